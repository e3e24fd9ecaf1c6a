"""Control-flow ops (NVIDIA group CF): the counted `for` loop and its `continue`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerType, UnitAttr
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    region_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, Pure, RecursiveMemoryEffect

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.base import CudaTileOp
from tileir.dialects.cuda_tile.ops.core import parse_terminator, print_terminator
from tileir.dialects.cuda_tile.syntax import (
    parse_cuda_tile_type,
    parse_cuda_tile_types,
    print_cuda_tile_type,
)


@irdl_op_definition
class ContinueOp(CudaTileOp):
    """`continue [%v, ... : T, ...]`: ends a loop iteration, yielding the next values
    of the loop-carried variables."""

    name = "cuda_tile.continue"
    operands_ = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), Pure()))

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(values)])

    def print(self, printer: Printer) -> None:
        print_terminator(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> ContinueOp:
        values, attrs = parse_terminator(parser)
        return cls.create(operands=values, attributes=attrs)


@irdl_op_definition
class ForOp(CudaTileOp):
    """`[unsigned] for %iv in (%lb to %ub, step %s) : T [iter_values(%x = %init, ...)
    -> (T, ...)] { body }`.

    Runs the body for iv = lb, lb + s, ... while iv < ub (signed comparison, or
    unsigned with `unsigned`); the loop-carried values start at the inits, each
    iteration's `continue` gives the next ones, and the results are the last."""

    name = "cuda_tile.for"
    lower_bound = operand_def()
    upper_bound = operand_def()
    step = operand_def()
    init_values = var_operand_def()
    unsignedCmp = opt_prop_def(UnitAttr)
    results_ = var_result_def()
    region = region_def("single_block")
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
            printer.print_string("iter_values(")
            for i, (arg, init) in enumerate(zip(self.iter_args, self.init_values, strict=True)):
                if i:
                    printer.print_string(", ")
                printer.print_operand(arg)
                printer.print_string(" = ")
                printer.print_operand(init)
            printer.print_string(") -> (")
            printer.print_list([v.type for v in self.init_values], lambda t: print_cuda_tile_type(printer, t))
            printer.print_string(") ")
        terminator = self.body.last_op
        elide = isinstance(terminator, ContinueOp) and not terminator.operands
        printer.print_region(self.region, print_entry_block_args=False, print_block_terminators=not elide)
        from tileir.dialects.cuda_tile.syntax import print_attr_dict

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
        region_args = [Parser.Argument(iv.name, iv_type)]
        inits = []
        result_types: list[Attribute] = []
        if parser.parse_optional_keyword("iter_values") is not None:
            parser.parse_punctuation("(")
            names = []
            while True:
                names.append(parser.parse_argument(expect_type=False))
                parser.parse_punctuation("=")
                inits.append(parser.parse_unresolved_operand())
                if not parser.parse_optional_punctuation(","):
                    break
            parser.parse_punctuation(")")
            parser.parse_punctuation("->")
            parser.parse_punctuation("(")
            result_types = parse_cuda_tile_types(parser)
            parser.parse_punctuation(")")
            if len(result_types) != len(inits):
                parser.raise_error("mismatch in number of loop-carried values and defined values")
            region_args += [Parser.Argument(n.name, t) for n, t in zip(names, result_types, strict=True)]
        region = parser.parse_region(region_args)
        if not region.blocks:
            region.add_block(Block(arg_types=[a.type for a in region_args]))
        block = region.block
        if block.last_op is None or not block.last_op.has_trait(IsTerminator):
            block.add_op(ContinueOp())
        attrs = parser.parse_optional_attr_dict()
        operands = [
            parser.resolve_operand(lb, iv_type),
            parser.resolve_operand(ub, iv_type),
            parser.resolve_operand(step, iv_type),
            *(parser.resolve_operand(o, t) for o, t in zip(inits, result_types, strict=True)),
        ]
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=props,
            attributes=attrs,
            regions=[region],
        )

    def verify_(self) -> None:
        iv = self.induction_var
        for bound in (self.lower_bound, self.upper_bound, self.step):
            if bound.type != iv.type:
                raise self.op_error(
                    "expected induction variable to be same type as bounds and step: "
                    f"{iv.type} vs {bound.type}"
                )
        if shape_of(iv.type) or not isinstance(element_type(iv.type), IntegerType):
            raise self.op_error(f"bounds must be scalar integer tiles, got {iv.type}")
        inits = [v.type for v in self.init_values]
        if inits != [a.type for a in self.iter_args] or inits != [r.type for r in self.results]:
            raise self.op_error("mismatch in number or types of loop-carried values")
        terminator = self.body.last_op
        if not isinstance(terminator, ContinueOp):
            raise self.op_error("body must end with 'continue'")
        if [v.type for v in terminator.operands] != inits:
            raise self.op_error("operand types must correspond to the parent loop's loop-carried values")


CONTROL_FLOW_OPS = [ForOp, ContinueOp]

_ = Region
