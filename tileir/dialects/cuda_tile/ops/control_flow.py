"""Control-flow ops (NVIDIA group Control Flow): the counted `for`, the unbounded
`loop`, `if`, their terminators (`continue`, `break`, `yield`) and `assert`.

Structure, stated once:

* `for %iv in (%lb to %ub, step %s) : T iter_values(%x = %init) -> (R) { ... }` runs
  its body for iv = lb, lb + s, ... while iv < ub; `continue` yields the next values
  of the loop-carried variables, and the results are their last values.
* `loop iter_values(%x = %init) : T -> R { ... }` runs until a `break`, whose operands
  are the results; `continue` starts the next iteration with new carried values.
* `if %cond -> (R) { ... } else { ... }` runs one branch; `yield` gives its results.
  A branch may instead end the enclosing loop iteration (`continue`), the loop
  (`break`) or the function (`return`).

Regions have one block.  A region whose terminator is omitted gets the implicit one
(`continue` for loops, `yield` for if), and that terminator is not printed when it
carries no values.  The verifiers of the terminators check them against their loop;
`for` and `loop` check their carried values after the ops of their body verified,
as MLIR's region verifiers do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr, UnitAttr, i1
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.cuda_tile.ops.base import (
    BOOL,
    INTEGER,
    CudaTileCanonicalization,
    CudaTileOp,
    VerifyDiagnostics,
    check_tile_of,
    op_diagnostic,
    raise_after_nested,
    types_text,
)
from tileir.dialects.cuda_tile.ops.core import parse_terminator, print_terminator
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_cuda_tile_types,
    print_attr_dict,
    print_cuda_tile_type,
)
from tileir.dialects.cuda_tile.types import TensorViewType, TileType, is_tile_view

# ---------------------------------------------------------------------------
# Regions with an implicit terminator.
# ---------------------------------------------------------------------------


def ensure_terminator(
    region: Region, terminator: type[CudaTileOp], arg_types: Sequence[Attribute] = ()
) -> None:
    """Give a parsed region its block and its implicit terminator, as MLIR's
    `ensureTerminator` does."""
    if not region.blocks:
        region.add_block(Block(arg_types=arg_types))
    block = region.blocks[0]
    last = block.last_op
    if last is None or not last.has_trait(IsTerminator):
        block.add_op(terminator.create())


def print_control_flow_region(printer: Printer, region: Region, implicit: type[Operation]) -> None:
    """The region without its terminator when that is the implicit one and empty."""
    block = region.blocks[0] if region.blocks else None
    last = block.last_op if block is not None else None
    elide = isinstance(last, implicit) and not last.operands
    printer.print_region(region, print_entry_block_args=False, print_block_terminators=not elide)


def parse_assignment_list(
    parser: Parser,
) -> tuple[list[Parser.UnresolvedArgument], list[UnresolvedOperand]]:
    """`(%x = %init, ...)`."""
    names: list[Parser.UnresolvedArgument] = []
    inits: list[UnresolvedOperand] = []

    def assignment() -> None:
        names.append(parser.parse_argument(expect_type=False))
        parser.parse_punctuation("=")
        inits.append(parser.parse_unresolved_operand())

    parser.parse_comma_separated_list(parser.Delimiter.PAREN, assignment)
    return names, inits


def print_assignment_list(
    printer: Printer, args: Sequence[SSAValue], inits: Sequence[SSAValue]
) -> None:
    printer.print_string("iter_values(")
    for i, (arg, init) in enumerate(zip(args, inits, strict=True)):
        if i:
            printer.print_string(", ")
        printer.print_operand(arg)
        printer.print_string(" = ")
        printer.print_operand(init)
    printer.print_string(")")


def print_types(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_list(types, lambda t: print_cuda_tile_type(printer, t))


def loop_iter_values_error(
    inits: Sequence[SSAValue], iter_args: Sequence[SSAValue], results: Sequence[SSAValue]
) -> str | None:
    """NVIDIA's rules on loop-carried values (without the op prefix): as many region
    values as inits, of the same types, and no views carried or returned."""
    if len(iter_args) != len(inits):
        return (
            "mismatch in number of region iterator values and loop iterator inits: "
            f"{len(iter_args)} vs {len(inits)}"
        )
    for i, (init, arg) in enumerate(zip(inits, iter_args, strict=True)):
        if isinstance(arg.type, TensorViewType):
            return f"loop-carried value {i} is a tensor_view, which is not supported"
        if is_tile_view(arg.type):
            return f"loop-carried value {i} is a tile view, which is not supported"
        if init.type != arg.type:
            return (
                f"init value {i} and region iter_value {i} have different type: "
                f"'{init.type}' != '{arg.type}'"
            )
    for i, r in enumerate(results):
        if isinstance(r.type, TensorViewType):
            return f"result type {i} is a tensor_view, which is not supported"
        if is_tile_view(r.type):
            return f"result type {i} is a tile view, which is not supported"
    return None


def enclosing_loop(op: Operation, loops: tuple[type[Operation], ...]) -> Operation | None:
    """The loop an early exit (`continue`, `break`) belongs to: the first ancestor that
    is not an `if`, if it is one of `loops`."""
    parent = op.parent_op()
    while isinstance(parent, IfOp):
        parent = parent.parent_op()
    return parent if isinstance(parent, loops) else None


def check_early_exit(
    op: CudaTileOp, loops: tuple[type[Operation], ...], loop_names: Sequence[str]
) -> Operation:
    """The loop `op` exits, or NVIDIA's error naming the ancestor in the way."""
    loop = enclosing_loop(op, loops)
    if loop is not None:
        return loop
    names = "', '".join((*loop_names, "cuda_tile.if"))
    message = f"can only be nested within a ancestor chain of '{names}' operations"
    ancestor = op.parent_op()
    while isinstance(ancestor, IfOp):
        ancestor = ancestor.parent_op()
    notes = [] if ancestor is None else [(ancestor, "see unexpected ancestor operation")]
    raise VerifyDiagnostics([op_diagnostic(op, message, notes)])


def check_parent_one_of(op: CudaTileOp, parents: tuple[type[Operation], ...], names: str) -> None:
    """ODS's `ParentOneOf` trait."""
    if not isinstance(op.parent_op(), parents):
        raise op.op_error(f"expects parent op to be one of '{names}'")


# ---------------------------------------------------------------------------
# Terminators.
# ---------------------------------------------------------------------------


class CudaTileTerminator(CudaTileOp):
    """`{attrs} [%v, ... : T, ...]`."""

    GROUP: ClassVar[str] = "Control Flow"
    operands_ = var_operand_def()

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(values)])

    def print(self, printer: Printer) -> None:
        print_terminator(printer, self)

    @classmethod
    def parse(cls, parser: Parser):
        values, attrs = parse_terminator(parser)
        return cls.create(operands=values, attributes=attrs)


@irdl_op_definition
class ContinueOp(CudaTileTerminator):
    """`continue [%v, ... : T, ...]`: ends a loop iteration, yielding the next values
    of the loop-carried variables."""

    name = "cuda_tile.continue"
    SYNTAX: ClassVar[str] = "[{attrs}] [%v, ... : T, ...]"
    # Not pure (as in NVIDIA's dialect): leaving the loop body early is control flow
    # that an enclosing `if` must not be erased for.
    traits = lazy_traits_def(lambda: (IsTerminator(),))

    def verify_(self) -> None:
        check_parent_one_of(
            self, (ForOp, IfOp, LoopOp), "cuda_tile.for, cuda_tile.if, cuda_tile.loop"
        )
        loop = check_early_exit(self, (ForOp, LoopOp), ("cuda_tile.for", "cuda_tile.loop"))
        found = types_text(v.type for v in self.operands)
        if isinstance(loop, LoopOp):
            expected = [v.type for v in loop.init_values]
            if expected != [v.type for v in self.operands]:
                raise VerifyException(
                    "`loop` is missing a valid terminator. `continue` op should have operand "
                    f"types that match the parent loop iter_values: ({types_text(expected)}), "
                    f"but found: ({found})"
                )
        else:
            expected = [r.type for r in loop.results]
            if expected != [v.type for v in self.operands]:
                raise VerifyException(
                    "`for` is missing a valid terminator. `continue` op should have operand "
                    f"types that match the parent loop return types: ({types_text(expected)}), "
                    f"but found: ({found})"
                )


@irdl_op_definition
class BreakOp(CudaTileTerminator):
    """`break [%v, ... : T, ...]`: leaves the enclosing `loop`; the operands are the
    loop's results."""

    name = "cuda_tile.break"
    SYNTAX: ClassVar[str] = "[{attrs}] [%v, ... : T, ...]"
    traits = lazy_traits_def(lambda: (IsTerminator(),))

    def verify_(self) -> None:
        check_parent_one_of(self, (IfOp, LoopOp), "cuda_tile.if, cuda_tile.loop")
        loop = check_early_exit(self, (LoopOp,), ("cuda_tile.loop",))
        results = [r.type for r in loop.results]
        if results != [v.type for v in self.operands]:
            raise self.op_error(
                "operand types must correspond to the parent loop result types: "
                f"({types_text(v.type for v in self.operands)}) vs ({types_text(results)})"
            )


@irdl_op_definition
class YieldOp(CudaTileTerminator):
    """`yield [%v, ... : T, ...]`: the results of an `if` branch, or of one step of a
    `reduce`/`scan` body."""

    name = "cuda_tile.yield"
    SYNTAX: ClassVar[str] = "[{attrs}] [%v, ... : T, ...]"
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure()))

    def verify_(self) -> None:
        from tileir.dialects.cuda_tile.ops.reductions import ReduceOp, ScanOp

        check_parent_one_of(
            self, (IfOp, ReduceOp, ScanOp), "cuda_tile.if, cuda_tile.reduce, cuda_tile.scan"
        )


# ---------------------------------------------------------------------------
# for
# ---------------------------------------------------------------------------


@irdl_op_definition
class ForOp(CudaTileOp):
    """`[unsigned] for %iv in (%lb to %ub, step %s) : T [iter_values(%x = %init, ...)
    -> (T, ...)] { body }`.

    Runs the body for iv = lb, lb + s, ... while iv < ub (signed comparison, or
    unsigned with `unsigned`); the loop-carried values start at the inits, each
    iteration's `continue` gives the next ones, and the results are the last."""

    name = "cuda_tile.for"
    SYNTAX: ClassVar[str] = (
        "[unsigned] %iv in (%lb to %ub, step %s) : T [iter_values(%x = %init, ...) -> (R, ...)] { body } [{attrs}]"
    )
    FIELD_SINCE: ClassVar[dict[str, str]] = {"unsignedCmp": "13.2"}
    GROUP: ClassVar[str] = "Control Flow"
    lower_bound = operand_def()
    upper_bound = operand_def()
    step = operand_def()
    init_values = var_operand_def()
    unsignedCmp = opt_prop_def(UnitAttr)
    results_ = var_result_def()
    region = region_def()
    traits = lazy_traits_def(lambda: (RecursiveMemoryEffect(),))

    @property
    def body(self) -> Block:
        return self.region.block

    @property
    def induction_var(self) -> SSAValue:
        return self.body.args[0]

    @property
    def iter_args(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.args[1:])

    def asm_result_names(self) -> Sequence[str | None]:
        return ("for",) if self.results else ()

    def asm_block_arg_names(self, block: Block) -> Sequence[str | None]:
        return ("loopIdx", *(f"iterArg{i}" for i in range(len(block.args) - 1)))

    def print(self, printer: Printer) -> None:
        if self.unsignedCmp is not None:
            printer.print_string(" unsigned")
        printer.print_string(" ")
        printer.print_operand(self.induction_var)
        printer.print_string(" in (")
        printer.print_operand(self.lower_bound)
        printer.print_string(" to ")
        printer.print_operand(self.upper_bound)
        printer.print_string(", step ")
        printer.print_operand(self.step)
        printer.print_string(") : ")
        print_cuda_tile_type(printer, self.induction_var.type)
        printer.print_string(" ")
        if self.init_values:
            print_assignment_list(printer, self.iter_args, self.init_values)
            printer.print_string(" -> (")
            print_types(printer, [v.type for v in self.init_values])
            printer.print_string(") ")
        print_control_flow_region(printer, self.region, ContinueOp)
        print_attr_dict(printer, self.attributes, ())

    @classmethod
    def parse(cls, parser: Parser) -> ForOp:
        props: dict[str, Attribute] = {}
        if parser.parse_optional_keyword("unsigned") is not None:
            props["unsignedCmp"] = UnitAttr()
        iv = parser.parse_argument(expect_type=False)
        parser.parse_keyword("in")
        parser.parse_punctuation("(")
        lb = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        ub = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("step")
        step = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        parser.parse_punctuation(":")
        iv_type = parse_cuda_tile_type(parser)
        region_args = [iv.resolve(iv_type)]
        inits: list[UnresolvedOperand] = []
        result_types: list[Attribute] = []
        if parser.parse_optional_keyword("iter_values") is not None:
            names, inits = parse_assignment_list(parser)
            parser.parse_punctuation("->")
            parser.parse_punctuation("(")
            result_types = parse_cuda_tile_types(parser)
            parser.parse_punctuation(")")
            if len(result_types) != len(inits):
                parser.raise_error("mismatch in number of loop-carried values and defined values")
            region_args += [n.resolve(t) for n, t in zip(names, result_types, strict=True)]
        # As MLIR, the operands are resolved before the region is parsed.
        operands = [
            parser.resolve_operand(lb, iv_type),
            parser.resolve_operand(ub, iv_type),
            parser.resolve_operand(step, iv_type),
            *(parser.resolve_operand(o, t) for o, t in zip(inits, result_types, strict=True)),
        ]
        region = parser.parse_region(region_args)
        ensure_terminator(region, ContinueOp, [a.type for a in region_args])
        attrs = parser.parse_optional_attr_dict()
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=props,
            attributes=attrs,
            regions=[region],
        )

    def verify_(self) -> None:
        bounds = (self.lower_bound, self.upper_bound, self.step)
        for i, bound in enumerate(bounds):
            check_tile_of(self, bound, f"operand #{i}", INTEGER, rank=0)
        if any(b.type != self.lower_bound.type for b in bounds):
            raise self.op_error(
                "failed to verify that all of {lowerBound, upperBound, step} have same type"
            )
        if [v.type for v in self.init_values] != [r.type for r in self.results]:
            raise self.op_error(
                "failed to verify that all of {initValues, resultValues} have same type"
            )
        if len(self.region.blocks) != 1:
            raise self.op_error(
                "region #0 ('region') failed to verify constraint: region with 1 blocks"
            )
        block = self.region.blocks[0]
        if not isinstance(block.last_op, ContinueOp):
            found = block.last_op.name if block.last_op is not None else "nothing"
            raise self.op_error(
                f"expects regions to end with 'cuda_tile.continue', found '{found}'"
            )
        # The region verifier (after the body's ops).
        error = self.region_error(block)
        if error is not None:
            raise_after_nested(self, error)

    def region_error(self, block: Block) -> str | None:
        if not block.args:
            return "expected at least one block argument for induction variable"
        iv = block.args[0]
        if iv.type != self.lower_bound.type:
            return (
                "expected induction variable to be same type as bounds and step: "
                f"'{iv.type}' vs '{self.lower_bound.type}'"
            )
        return loop_iter_values_error(list(self.init_values), block.args[1:], list(self.results))


# ---------------------------------------------------------------------------
# loop
# ---------------------------------------------------------------------------


@irdl_op_definition
class LoopOp(CudaTileOp):
    """`loop [iter_values(%x = %init, ...) : T, ... [-> R, ...]] | [: R, ...] { body }`.

    Runs its body until a `break`; the region's arguments are the loop-carried
    values, which `continue` updates."""

    name = "cuda_tile.loop"
    SYNTAX: ClassVar[str] = (
        "[iter_values(%x = %init, ...)] [: T, ... [-> R, ...]] { body } [{attrs}]"
    )
    GROUP: ClassVar[str] = "Control Flow"
    init_values = var_operand_def()
    results_ = var_result_def()
    region = region_def()
    traits = lazy_traits_def(lambda: (RecursiveMemoryEffect(),))

    @property
    def body(self) -> Block:
        return self.region.block

    @property
    def iter_args(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.args)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        has_iters = bool(self.init_values)
        has_results = bool(self.results)
        if has_iters:
            print_assignment_list(printer, self.region.blocks[0].args, self.init_values)
            printer.print_string(" ")
        if has_iters or has_results:
            printer.print_string(": ")
        if has_iters:
            print_types(printer, [v.type for v in self.init_values])
            printer.print_string(" ")
            if has_results:
                printer.print_string("-> ")
        if has_results:
            print_types(printer, [r.type for r in self.results])
            printer.print_string(" ")
        print_control_flow_region(printer, self.region, ContinueOp)
        print_attr_dict(printer, self.attributes, ())

    @classmethod
    def parse(cls, parser: Parser) -> LoopOp:
        result_types: list[Attribute] = []
        iter_types: list[Attribute] = []
        names: list[Parser.UnresolvedArgument] = []
        inits: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("iter_values") is None:
            if parser.parse_optional_punctuation(":") is not None:
                result_types = parse_cuda_tile_types(parser)
        else:
            names, inits = parse_assignment_list(parser)
            parser.parse_punctuation(":")
            iter_types = parse_cuda_tile_types(parser)
            if len(names) != len(iter_types):
                parser.raise_error("found different number of iter_values and types")
            if parser.parse_optional_punctuation("->") is not None:
                result_types = parse_cuda_tile_types(parser)
        region_args = [n.resolve(t) for n, t in zip(names, iter_types, strict=True)]
        # As MLIR, the inits are resolved before the region is parsed.
        operands = [parser.resolve_operand(o, t) for o, t in zip(inits, iter_types, strict=True)]
        region = parser.parse_region(region_args)
        ensure_terminator(region, ContinueOp, iter_types)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(
            operands=operands, result_types=result_types, attributes=attrs, regions=[region]
        )

    def verify_(self) -> None:
        if len(self.region.blocks) != 1:
            raise self.op_error(
                "region #0 ('region') failed to verify constraint: region with 1 blocks"
            )
        block = self.region.blocks[0]
        if block.last_op is None or not block.last_op.has_trait(IsTerminator):
            raise self.op_error("expects the body to end with a terminator")
        error = loop_iter_values_error(list(self.init_values), block.args, list(self.results))
        if error is not None:
            raise_after_nested(self, error)


# ---------------------------------------------------------------------------
# if
# ---------------------------------------------------------------------------


@irdl_op_definition
class IfOp(CudaTileOp):
    """`if %cond [-> (T, ...)] { then } [else { else }]`: runs one branch.  With
    results, both branches `yield` them."""

    name = "cuda_tile.if"
    SYNTAX: ClassVar[str] = "%cond [-> (R, ...)] { then } [else { else }] [{attrs}]"
    GROUP: ClassVar[str] = "Control Flow"
    condition = operand_def()
    results_ = var_result_def()
    then_region = region_def()
    else_region = region_def()
    traits = lazy_traits_def(lambda: (RecursiveMemoryEffect(), CudaTileCanonicalization()))

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.condition)
        if self.results:
            f.literal("->")
            f.literal("(")
            f.types([r.type for r in self.results])
            f.literal(")")
        printer.print_string(" ")
        print_control_flow_region(printer, self.then_region, YieldOp)
        if self.else_region.blocks:
            printer.print_string(" else ")
            print_control_flow_region(printer, self.else_region, YieldOp)
        print_attr_dict(printer, self.attributes, ())

    @classmethod
    def parse(cls, parser: Parser) -> IfOp:
        # As MLIR, the condition is resolved before the regions are parsed.
        cond = parser.resolve_operand(parser.parse_unresolved_operand(), TileType([], i1))
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            parser.parse_punctuation("(")
            result_types = parse_cuda_tile_types(parser)
            parser.parse_punctuation(")")
        then_region = parser.parse_region()
        ensure_terminator(then_region, YieldOp)
        else_region = Region()
        if parser.parse_optional_keyword("else") is not None:
            else_region = parser.parse_region()
            ensure_terminator(else_region, YieldOp)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(
            operands=[cond],
            result_types=result_types,
            attributes=attrs,
            regions=[then_region, else_region],
        )

    def verify_(self) -> None:
        check_tile_of(self, self.condition, "operand #0", BOOL, rank=0)
        if len(self.then_region.blocks) != 1:
            raise self.op_error(
                "region #0 ('thenRegion') failed to verify constraint: region with 1 blocks"
            )
        if len(self.else_region.blocks) > 1:
            raise self.op_error(
                "region #1 ('elseRegion') failed to verify constraint: region with at most 1 blocks"
            )
        result_types = [r.type for r in self.results]
        for i, t in enumerate(result_types):
            if isinstance(t, TensorViewType):
                raise self.op_error(f"result type {i} is a tensor_view, which is not supported")
            if is_tile_view(t):
                raise self.op_error(f"result type {i} is a tile view, which is not supported")
        self.check_yield(self.then_region, "then", result_types)
        if not self.else_region.blocks:
            if result_types:
                raise self.op_error("has non-empty return type, must define else branch")
            return
        self.check_yield(self.else_region, "else", result_types)

    def check_yield(self, region: Region, branch: str, result_types: list[Attribute]) -> None:
        last = region.blocks[0].last_op
        if not isinstance(last, YieldOp):
            return
        yielded = [v.type for v in last.operands]
        if result_types and not yielded:
            raise self.op_error(
                f"has return type of {types_text(result_types)} but {branch} branch does not "
                "yield anything"
            )
        if not result_types and yielded:
            raise self.op_error(
                f"does not return a value, but {branch} branch yields {types_text(yielded)}"
            )
        if yielded != result_types:
            raise self.op_error(
                f"type does not match yield type, {branch} branch yields {types_text(yielded)} "
                f"but op result type is {types_text(result_types)}"
            )


# ---------------------------------------------------------------------------
# assert
# ---------------------------------------------------------------------------


@irdl_op_definition
class AssertOp(CudaTileOp):
    """`assert %cond, "message" : T`: traps with `message` where an element of the
    condition is false."""

    name = "cuda_tile.assert"
    SYNTAX: ClassVar[str] = '%cond, "message" [{attrs}] : T'
    GROUP: ClassVar[str] = "Control Flow"
    condition = operand_def()
    message = prop_def(StringAttr)

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.condition)
        f.literal(",")
        f.custom(lambda: printer.print_string_literal(self.message.data))
        f.attr_dict(self)
        f.literal(":")
        f.type(self.condition.type)

    @classmethod
    def parse(cls, parser: Parser) -> AssertOp:
        cond = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        message = parser.parse_str_literal()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(cond, t)],
            properties={"message": StringAttr(message)},
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile_of(self, self.condition, "operand #0", BOOL)


CONTROL_FLOW_OPS = [ForOp, LoopOp, IfOp, ContinueOp, BreakOp, YieldOp, AssertOp]
