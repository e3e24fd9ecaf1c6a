"""Core ops (NVIDIA group Core): the module and its kernels, constants, block ids,
shape manipulation and selection."""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IntegerType,
    StringAttr,
    SymbolNameConstraint,
    TensorType,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    NoTerminator,
    Pure,
    SymbolOpInterface,
    SymbolTable,
)
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tileir.dialects.cuda_tile.attributes import (
    AssumePredicate,
    BoundedAttr,
    DivByAttr,
    OptimizationHintsAttr,
    SameElementsAttr,
    parse_optimization_hints_body,
    print_optimization_hints_body,
)
from tileir.dialects.cuda_tile.carriers import element_type, is_carrier, shape_of
from tileir.dialects.cuda_tile.ops.base import (
    BOOL,
    INTEGER,
    POINTER,
    CudaTileCanonicalization,
    CudaTileOp,
    ElementSet,
    VerifyDiagnostics,
    check_tile_of,
    inside_cuda_tile_function,
    nested_ops_verify,
    op_diagnostic,
)
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp, Signature
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_cuda_tile_types,
    parse_operand_list,
    print_attr_dict,
    print_cuda_tile_type,
)
from tileir.dialects.cuda_tile.types import PointerType, TileType, shape_text
from tileir.utils.numeric import dense_first, dense_splat, numpy_to_dense, parse_element

if TYPE_CHECKING:
    import numpy as np

# ---------------------------------------------------------------------------
# module / entry / return
# ---------------------------------------------------------------------------


@irdl_op_definition
class ModuleOp(CudaTileOp):
    """`cuda_tile.module @name [attributes {...}] { ... }`: a symbol table of kernels
    and globals.  `producer` (13.3) names the tool that wrote the module."""

    name = "cuda_tile.module"
    SYNTAX: ClassVar[str] = "@name [attributes {attrs}] { body }"
    FIELD_SINCE: ClassVar[dict[str, str]] = {"producer": "13.3"}

    sym_name = prop_def(SymbolNameConstraint())
    producer = opt_prop_def(StringAttr)
    body = region_def("single_block")

    traits = traits_def(IsolatedFromAbove(), NoTerminator(), SymbolTable(), SymbolOpInterface())

    def __init__(self, sym_name: str, ops: Sequence[CudaTileOp] = ()):
        super().__init__(
            properties={"sym_name": StringAttr(sym_name)}, regions=[Region(Block(ops))]
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        shown = dict(self.attributes)
        if self.producer is not None:
            shown = {"producer": self.producer, **shown}
        if shown:
            printer.print_string(" attributes")
            print_attr_dict(printer, shown, ())
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        name = parse_symbol(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        if not body.blocks:
            body.add_block(Block())
        props: dict[str, Attribute] = {"sym_name": name}
        extra = dict(attrs.data) if attrs is not None else {}
        if "producer" in extra:
            props["producer"] = extra.pop("producer")
        return cls.create(properties=props, attributes=extra, regions=[body])

    def verify_(self) -> None:
        from tileir.dialects.cuda_tile.debug_info import verify_module_debug_info

        problem = verify_module_debug_info(
            list(self.body.block.ops), lambda op: isinstance(op, FunctionOp)
        )
        if problem is not None:
            op, message = problem
            raise VerifyDiagnostics([op_diagnostic(op, message)])


def parse_symbol(parser: Parser) -> StringAttr:
    """`@name`, with MLIR's message when it is missing."""
    name = parser.parse_optional_symbol_name()
    if name is None:
        parser.raise_error("expected valid '@'-identifier for symbol name")
    return name


@irdl_op_definition
class ReturnOp(CudaTileOp):
    """`return [%v, ... : T, ...]`: terminates an entry (and some if bodies)."""

    name = "cuda_tile.return"
    SYNTAX: ClassVar[str] = "[{attrs}] [%v, ... : T, ...]"
    GROUP: ClassVar[str] = "Control Flow"
    operands_ = var_operand_def()
    # Not pure (as in NVIDIA's dialect): a `return` inside an `if` is control flow, and
    # the `if` holding it must not be erased as dead.
    traits = traits_def(IsTerminator())

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(values)])

    def print(self, printer: Printer) -> None:
        print_terminator(printer, self)

    @classmethod
    def parse(cls, parser: Parser) -> ReturnOp:
        values, attrs = parse_terminator(parser)
        return cls.create(operands=values, attributes=attrs)

    def verify_(self) -> None:
        from tileir.dialects.cuda_tile.ops.control_flow import IfOp
        from tileir.dialects.cuda_tile.ops.testing import TestingFuncOp

        parent = self.parent_op()
        while isinstance(parent, IfOp):
            parent = parent.parent_op()
        if isinstance(parent, EntryOp | TestingFuncOp):
            results = list(parent.function_type.outputs.data)
            n = len(self.operands)
            if n != len(results):
                raise self.op_error(
                    f"has {n} operands, but enclosing function (@{parent.sym_name.data}) "
                    f"returns {len(results)}"
                )
            if isinstance(parent, EntryOp) and n:
                raise self.op_error(f"has {n} operands, but entry function must return 0 operands")
            for i, (v, t) in enumerate(zip(self.operands, results, strict=True)):
                if v.type != t:
                    raise VerifyException(
                        f"type of return operand {i} ('{v.type}') doesn't match function "
                        f"result type ('{t}') in function @{parent.sym_name.data}"
                    )
            return
        if (
            parent is not None
            and not parent.name.startswith("cuda_tile.")
            and parent.name != "builtin.module"
        ):
            return  # lowered IR: the conversion replaces it
        raise self.op_error(
            "must be used within a cuda_tile.testing$func, cuda_tile.entry, or cuda_tile.if "
            "operation"
        )


def print_terminator(printer: Printer, op: CudaTileOp) -> None:
    """`attr-dict ($operands^ : types)?`."""
    f = AsmFormat(printer)
    f.attr_dict(op)
    if op.operands:
        f.operands(op.operands)
        f.literal(":")
        f.types([v.type for v in op.operands])


def parse_terminator(parser: Parser) -> tuple[list[SSAValue], dict[str, Attribute]]:
    attrs = parser.parse_optional_attr_dict()
    pos = parser.pos
    operands = parse_operand_list(parser)
    values: list[SSAValue] = []
    if operands:
        parser.parse_punctuation(":")
        types = parse_cuda_tile_types(parser)
        if len(types) != len(operands):
            parser.raise_error(f"expected {len(operands)} types, got {len(types)}", pos, parser.pos)
        values = [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]
    return values, attrs


class FunctionOp(CudaTileOp):
    """Shared by `entry` and `testing$func`: `@name(%a: T, ...) [-> R] { body }`, one
    block whose arguments are the function's arguments."""

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def()

    #: Properties the custom form shows elsewhere than in the attribute dictionary.
    ELIDED: ClassVar[tuple[str, ...]] = ("sym_name", "function_type", "arg_attrs", "res_attrs")

    @property
    def args(self) -> tuple[SSAValue, ...]:
        return tuple(self.body.block.args)

    def print_signature(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        block = self.body.blocks[0] if self.body.blocks else Block()
        print_function_signature(printer, block, list(self.function_type.outputs))

    def print_body(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        AsmFormat(printer).attr_dict(self)

    def print(self, printer: Printer) -> None:
        self.print_signature(printer)
        self.print_body(printer)

    @classmethod
    def parse_function(
        cls, parser: Parser, props: dict[str, Attribute], args: list[Parser.Argument]
    ) -> FunctionOp:
        body = parser.parse_region(args)
        if not body.blocks:
            body.add_block(Block(arg_types=[a.type for a in args]))
        ensure_terminator(body.block)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(properties=props, attributes=attrs, regions=[body])

    @classmethod
    def parse_signature(cls, parser: Parser) -> tuple[dict[str, Attribute], list[Parser.Argument]]:
        name = parse_symbol(parser)
        args, results = parse_function_signature(parser)
        props: dict[str, Attribute] = {
            "sym_name": name,
            "function_type": FunctionType.from_lists([a.type for a in args], results),
            "arg_attrs": ArrayAttr([DictionaryAttr({}) for _ in args]),
        }
        return props, args

    @classmethod
    def parse(cls, parser: Parser) -> FunctionOp:
        props, args = cls.parse_signature(parser)
        return cls.parse_function(parser, props, args)

    def verify_(self) -> None:
        from tileir.dialects.cuda_tile.debug_info import (
            verify_function_body_debug_info,
            verify_function_debug_info,
        )

        if len(self.body.blocks) != 1:
            raise self.op_error(
                "region #0 ('body') failed to verify constraint: region with 1 blocks"
            )
        inputs = tuple(self.function_type.inputs.data)
        if inputs != tuple(a.type for a in self.body.block.args):
            raise self.op_error("argument types do not match the function type")
        self.verify_signature()
        error = verify_function_debug_info(self, self.sym_name.data)
        if error is not None:
            raise self.op_error(error)
        self.verify_hints()
        problem = verify_function_body_debug_info(self)
        if problem is not None and nested_ops_verify(self):
            # Reported after the body verified, at the offending op.
            op, message = problem
            raise VerifyDiagnostics([op_diagnostic(op, message)])
        self.verify_dominance()

    def verify_dominance(self) -> None:
        """Every operand in the body is defined before its use (MLIR's dominance check,
        `tileir/dialects/cuda_tile/dominance.py`), reported at the use, after the ops of
        the body verified, as MLIR reports it."""
        from tileir.dialects.cuda_tile.dominance import first_use_before_definition

        use = first_use_before_definition(self.body.block)
        if use is None or not nested_ops_verify(self):
            return
        definition = use.definition
        notes = [(definition, "operand defined here")] if definition is not None else []
        raise VerifyDiagnostics(
            [op_diagnostic(use.user, f"operand #{use.index} does not dominate this use", notes)]
        )

    def verify_signature(self) -> None:
        """Per-op rules on the signature."""

    def verify_hints(self) -> None:
        """Per-op rules on optimization hints."""


@irdl_op_definition
class EntryOp(FunctionOp):
    """`entry @name(%a: T, ...) [optimization_hints=<...>] { body }`: a kernel.

    Arguments are rank-0 tiles (scalars and pointers); an entry returns nothing.
    Each becomes one `.visible .entry` whose parameters are the arguments in order."""

    name = "cuda_tile.entry"
    SYNTAX: ClassVar[str] = (
        "@name(%a: T, ...) [optimization_hints=<sm_N = {k = v, ...}, ...>] { body } [{attrs}]"
    )

    optimization_hints = opt_prop_def(OptimizationHintsAttr)

    ELIDED: ClassVar[tuple[str, ...]] = (*FunctionOp.ELIDED, "optimization_hints")

    traits = lazy_traits_def(
        lambda: (IsolatedFromAbove(), SymbolOpInterface(), HasParent(ModuleOp))
    )

    def __init__(
        self,
        sym_name: str,
        arg_types: Sequence[Attribute],
        body: Region,
        hints: OptimizationHintsAttr | None = None,
    ):
        props: dict[str, Attribute] = {
            "sym_name": StringAttr(sym_name),
            "function_type": FunctionType.from_lists(list(arg_types), []),
            "arg_attrs": ArrayAttr([DictionaryAttr({}) for _ in arg_types]),
        }
        if hints is not None:
            props["optimization_hints"] = hints
        super().__init__(properties=props, regions=[body])

    def print(self, printer: Printer) -> None:
        self.print_signature(printer)
        hints = self.optimization_hints
        if hints is not None and hints.hints.data:
            printer.print_string(" optimization_hints=")
            print_optimization_hints_body(printer, hints)
        self.print_body(printer)

    @classmethod
    def parse(cls, parser: Parser) -> EntryOp:
        props, args = cls.parse_signature(parser)
        if parser.parse_optional_keyword("optimization_hints") is not None:
            parser.parse_punctuation("=")
            props["optimization_hints"] = OptimizationHintsAttr(
                parse_optimization_hints_body(parser)
            )
        op = cls.parse_function(parser, props, args)
        assert isinstance(op, EntryOp)
        return op

    def verify_signature(self) -> None:
        if self.function_type.outputs.data:
            raise self.op_error("entry op must not return values")
        for t in self.function_type.inputs.data:
            if isinstance(t, TileType) and t.rank != 0:
                raise self.op_error("entry op must have scalar types (rank 0 !cuda_tile.tile)")

    def verify_hints(self) -> None:
        from tileir.dialects.cuda_tile.hints import verify_optimization_hints

        if self.optimization_hints is not None:
            error = verify_optimization_hints(self, self.optimization_hints.hints)
            if error is not None:
                raise self.op_error(error)


def print_function_signature(printer: Printer, block: Block, results: Sequence[Attribute]) -> None:
    printer.print_string("(")
    for i, arg in enumerate(block.args):
        if i:
            printer.print_string(", ")
        printer.print_operand(arg)
        printer.print_string(": ")
        print_cuda_tile_type(printer, arg.type)
    printer.print_string(")")
    if results:
        printer.print_string(" -> ")
        if len(results) == 1:
            print_cuda_tile_type(printer, results[0])
        else:
            printer.print_string("(")
            printer.print_list(results, lambda t: print_cuda_tile_type(printer, t))
            printer.print_string(")")


def parse_function_signature(parser: Parser) -> tuple[list[Parser.Argument], list[Attribute]]:
    def argument() -> Parser.Argument:
        name = parser.parse_argument(expect_type=False)
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        parser.parse_optional_attr_dict()
        return Parser.Argument(name.name, t)

    args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, argument)
    results: list[Attribute] = []
    if parser.parse_optional_punctuation("->"):
        if parser.parse_optional_punctuation("("):
            if not parser.parse_optional_punctuation(")"):
                results = parse_cuda_tile_types(parser)
                parser.parse_punctuation(")")
        else:
            results = [parse_cuda_tile_type(parser)]
    return args, results


def ensure_terminator(block: Block) -> None:
    """Entry bodies may omit their `return`; add it, as MLIR's parser does."""
    last = block.last_op
    if last is None or not last.has_trait(IsTerminator):
        block.add_op(ReturnOp())


# ---------------------------------------------------------------------------
# constant
# ---------------------------------------------------------------------------

DENSE_ELEMENTS = (
    "expect element type to be one of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 "
    "or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got "
)


@irdl_op_definition
class ConstantOp(CudaTileOp):
    """`constant <ET: LIT> : T`.  The value is stored as a builtin dense attribute over a
    tensor of the tile's shape; a scalar literal splats to every element."""

    name = "cuda_tile.constant"
    SYNTAX: ClassVar[str] = "<ET: LIT> : T [{attrs}]"

    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def()
    traits = traits_def(Pure(), CudaTileCanonicalization())

    def __init__(self, value: DenseIntOrFPElementsAttr, result_type: Attribute | None = None):
        if result_type is None:
            result_type = TileType(value.get_shape(), value.get_element_type())
        super().__init__(properties={"value": value}, result_types=[result_type])

    @staticmethod
    def splat(value: float | int, carrier: Attribute) -> ConstantOp:
        """A constant filling `carrier` (a tile, tensor or scalar type) with `value`."""
        shape = shape_of(carrier)
        # The value converted once and its bytes repeated (converting each of a tile's
        # elements was a tenth of a compilation: a padded load's fill value, a zero
        # accumulator), as parse_dense_literal does for a splat literal.
        el = element_type(carrier)
        one = numpy_to_dense([value], (1,), el)
        data = BytesAttr(one.data.data * max(1, math.prod(shape)))
        if not isinstance(el, IntegerType | AnyFloat):  # numpy_to_dense raised already
            raise ValueError(f"no dense elements of type {el}")
        dense = DenseIntOrFPElementsAttr(TensorType(el, list(shape)), data)
        return ConstantOp(dense, carrier)

    def asm_result_names(self) -> Sequence[str | None]:
        return (constant_result_name(self.value),)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        el = self.value.get_element_type()
        printer.print_string("<")
        printer.print_attribute(el)
        printer.print_string(": ")
        printer.print_string(dense_literal_text(self.value))
        printer.print_string("> : ")
        print_cuda_tile_type(printer, self.result.type)
        AsmFormat(printer).attr_dict(self)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        value, t = parse_dense_literal(parser)
        attrs = parser.parse_optional_attr_dict()
        return cls.create(properties={"value": value}, result_types=[t], attributes=attrs)

    def verify_(self) -> None:
        t = self.result.type
        if (
            shape_of(t) != self.value.get_shape()
            or element_type(t) != self.value.get_element_type()
        ):
            raise self.op_error(f"value type {self.value.type} does not match the result type {t}")

    def values(self) -> np.ndarray:
        """The constant as a numpy array of the tile's shape."""
        from tileir.utils.numeric import dense_to_numpy

        return dense_to_numpy(self.value)

    def first_value(self) -> int | float:
        """`int()`/`float()` of `values()`'s first element (a bool as 0 or 1), read
        from that element alone, without numpy."""
        value = dense_first(self.value)
        if value is None:
            raise IndexError("an empty constant has no first element")
        return value


def constant_result_name(value: DenseIntOrFPElementsAttr) -> str:
    """NVIDIA's name for a constant: `%true`, `%false`, `%cst_1_i32`, `%cst_f32`."""
    el = value.get_element_type()
    splat = dense_splat(value)
    if splat is not None:  # the common case, without numpy
        return _constant_name(splat, el)
    from tileir.utils.numeric import dense_to_numpy

    data = dense_to_numpy(value).reshape(-1)
    if isinstance(el, IntegerType) and el.width.data == 1:
        if data.all():
            return "true"
        if not data.any():
            return "false"
        return "cst_i1"
    if is_splat(data):
        first = data[0]
        return _constant_name(int(first) if isinstance(el, IntegerType) else float(first), el)
    return f"cst_{el}"


def _constant_name(v: float | int, el: Attribute) -> str:
    """`constant_result_name` of a splat of value `v`."""
    if isinstance(el, IntegerType) and el.width.data == 1:
        return "true" if v else "false"
    name = "cst"
    if isinstance(el, IntegerType):
        name += f"_{int(v)}"
    else:
        f = float(v)
        if math.isnan(f):
            name += "_NaN"
        elif math.isfinite(f) and f >= 0 and f == math.floor(f):
            name += f"_{int(f)}"
    return f"{name}_{el}"


def dense_literal_text(value: DenseIntOrFPElementsAttr) -> str:
    """The literal inside `<ET: ...>` as MLIR prints a dense attribute: one value for a
    splat, nested brackets otherwise."""
    from tileir.utils.numeric import dense_to_numpy, format_element

    el = value.get_element_type()
    splat = dense_splat(value)
    if splat is not None:  # the common case, without numpy
        return format_element(splat, el)
    data = dense_to_numpy(value)
    flat = data.reshape(-1)
    if is_splat(flat):
        return format_element(flat[0], el)

    def nest(a: np.ndarray) -> str:
        if a.ndim == 0:
            return format_element(a.item(), el)
        return "[" + ", ".join(nest(x) for x in a) + "]"

    return nest(data)


def is_splat(a: np.ndarray) -> bool:
    """All elements bit-identical (NaNs included)."""
    import numpy as np

    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.size <= 1:
        return True
    raw = flat.view(np.uint8).reshape(flat.size, -1)
    return bool((raw == raw[0]).all())


def parsing_inside_cuda_tile(parser: Parser) -> bool:
    """Whether the op being parsed follows NVIDIA's type rules: it sits in a cuda_tile
    op's region or at the top level, rather than in lowered IR (a `func.func`, an
    `scf.for`), where constants hold builtin carriers."""
    stack = parser._parser_state.dialect_stack  # pyright: ignore[reportPrivateUsage]
    return len(stack) < 2 or stack[-2] in ("cuda_tile", "builtin")


def parse_dense_literal(parser: Parser) -> tuple[DenseIntOrFPElementsAttr, Attribute]:
    """`<ET: LIT> : T` with NVIDIA's checks (element prefix, inferred shape)."""
    from tileir.frontend import parse_errors

    parser.parse_punctuation("<")
    span = parser._current_token.span  # pyright: ignore[reportPrivateUsage]
    try:
        prefix = parse_cuda_tile_type(parser)
    except ParseError as e:
        # MLIR reports the type error, then that no element type was read.
        raise parse_errors([e, ParseError(span, DENSE_ELEMENTS + "'<<NULL TYPE>>'")]) from None
    if not isinstance(prefix, IntegerType | AnyFloat) or (
        isinstance(prefix, IntegerType) and prefix.width.data not in (1, 8, 16, 32, 64)
    ):
        parser.raise_error(DENSE_ELEMENTS + f"'{prefix}'", span)
    parser.parse_punctuation(":")

    def nested() -> tuple[list[object], list[int]]:
        if parser.parse_optional_punctuation("["):
            items: list[object] = []
            inner: list[int] | None = None
            while True:
                sub, shape = nested()
                if inner is None:
                    inner = shape
                elif shape != inner:
                    parser.raise_error(
                        "tensor literal is invalid; ranks are not consistent between elements"
                    )
                items.append(sub)
                if not parser.parse_optional_punctuation(","):
                    break
            parser.parse_punctuation("]")
            return items, [len(items), *(inner or [])]
        return [parse_element(parser, prefix)], []

    items, inferred = nested()
    parser.parse_punctuation(">")
    parser.parse_punctuation(":")
    pos = parser.pos
    t = parse_cuda_tile_type(parser)
    lowered_ok = not parsing_inside_cuda_tile(parser) and is_carrier(t)
    if not isinstance(t, TileType) and not lowered_ok:
        parser.raise_error(
            "result #0 must be tile of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 "
            "or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got "
            f"'{t}'",
            pos,
            parser.pos,
        )
    el = element_type(t)
    dims = shape_of(t)
    if el != prefix:
        parser.raise_error(
            f"mismatch between the element type: '{prefix}' and the tile element type '{el}'",
            pos,
            parser.pos,
        )

    def show(s: Sequence[int]) -> str:
        return "[" + ", ".join(map(str, s)) + "]"

    if inferred and tuple(inferred) != dims:
        parser.raise_error(
            f"inferred shape of elements literal ({show(inferred)}) does not match type "
            f"({show(dims)})",
            pos,
            parser.pos,
        )
    flat: list[object] = []

    def flatten(x: object) -> None:
        if isinstance(x, list):
            for y in x:  # pyright: ignore[reportUnknownVariableType]
                flatten(y)  # pyright: ignore[reportUnknownArgumentType]
        else:
            flat.append(x)

    flatten(items)
    if not inferred:
        # A splat: its value converted once and repeated (converting each of a large
        # tile's millions of copies took half a minute; found by the fuzzer).
        one = numpy_to_dense(flat, (1,), prefix)
        data = BytesAttr(one.data.data * max(1, math.prod(dims)))
        return DenseIntOrFPElementsAttr(TensorType(prefix, list(dims)), data), t
    return numpy_to_dense(flat, dims, prefix), t


# ---------------------------------------------------------------------------
# Block ids and grid size.
# ---------------------------------------------------------------------------


class GridQueryOp(CudaTileOp):
    """`{attrs} : tile<i32>`, three rank-0 results (x, y, z)."""

    RESULT_NAMES: ClassVar[tuple[str, str, str]]

    def asm_result_names(self) -> Sequence[str | None]:
        return self.RESULT_NAMES

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.results[0].type)

    @classmethod
    def parse(cls, parser: Parser) -> GridQueryOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        return cls.create(result_types=[t, t, t], attributes=attrs)

    def verify_(self) -> None:
        for i, r in enumerate(self.results):
            check_tile_of(self, r, f"result #{i}", _I32, rank=0)


_I32 = ElementSet("i32", lambda t: isinstance(t, IntegerType) and t.width.data == 32)


@irdl_op_definition
class GetTileBlockIdOp(GridQueryOp):
    """The coordinates of the tile block (CTA) running the kernel."""

    name = "cuda_tile.get_tile_block_id"
    SYNTAX: ClassVar[str] = "[{attrs}] : tile<i32>  (results x, y, z)"
    RESULT_NAMES: ClassVar = ("blockId_x", "blockId_y", "blockId_z")
    blockId_x = result_def()
    blockId_y = result_def()
    blockId_z = result_def()
    traits = traits_def(Pure())


@irdl_op_definition
class GetNumTileBlocksOp(GridQueryOp):
    """The size of the grid of tile blocks."""

    name = "cuda_tile.get_num_tile_blocks"
    SYNTAX: ClassVar[str] = "[{attrs}] : tile<i32>  (results x, y, z)"
    RESULT_NAMES: ClassVar = ("gridSize_x", "gridSize_y", "gridSize_z")
    gridSize_x = result_def()
    gridSize_y = result_def()
    gridSize_z = result_def()
    traits = traits_def(Pure())


# ---------------------------------------------------------------------------
# Shape manipulation.
# ---------------------------------------------------------------------------


class ShapeOp(ElementwiseOp):
    """`%source : T -> R`: same elements, another shape."""

    OPERANDS: ClassVar = ("source",)
    SIGNATURE: ClassVar = Signature.CONVERT

    def verify_types(self) -> None:
        src, res = self.args[0].type, self.result.type
        public = inside_cuda_tile_function(self)
        if public and not isinstance(src, TileType):
            raise self.op_error(f"operand #0 must be Tile type, but got '{src}'")
        self.verify_shapes()
        if element_type(src) != element_type(res):
            raise self.op_error("requires the same element type for all operands and results")

    def verify_shapes(self) -> None:
        """The op's shape rules that ODS checks before the element-type trait."""


@irdl_op_definition
class BroadcastOp(ShapeOp):
    """Replicates dimensions of extent 1 to the result's extent (ranks equal)."""

    name = "cuda_tile.broadcast"

    def asm_result_names(self) -> Sequence[str | None]:
        return ("bcast",)

    def verify_shapes(self) -> None:
        src, res = shape_of(self.args[0].type), shape_of(self.result.type)
        if len(src) != len(res):
            raise self.op_error("failed to verify that all of {source, result} have same rank")

    def verify_modifiers(self) -> None:
        src, res = shape_of(self.args[0].type), shape_of(self.result.type)
        for s, r in zip(src, res, strict=True):
            if s != r and s != 1:
                raise self.op_error(
                    "expects the shape of source tile to be compatible with that of the "
                    f"result tile, but got: {shape_text(src)} and {shape_text(res)}"
                )


@irdl_op_definition
class ReshapeOp(ShapeOp):
    """Reinterprets the elements, in row-major order, with another shape."""

    name = "cuda_tile.reshape"

    def asm_result_names(self) -> Sequence[str | None]:
        return ("reshape",)

    def verify_modifiers(self) -> None:
        if math.prod(shape_of(self.args[0].type)) != math.prod(shape_of(self.result.type)):
            raise self.op_error(
                "expected source tile and result tile to have the same number of elements"
            )


@irdl_op_definition
class SelectOp(ElementwiseOp):
    """`%cond, %a, %b : C, T`: elementwise `cond ? a : b`."""

    name = "cuda_tile.select"
    OPERANDS: ClassVar = ("cond", "val_if_true", "val_if_false")
    traits = traits_def(Pure(), CudaTileCanonicalization())
    SIGNATURE: ClassVar = Signature.SELECT

    def verify_types(self) -> None:
        c, a, b = self.args
        check_tile_of(self, c, "operand #0", BOOL)
        if a.type != b.type or a.type != self.result.type:
            raise self.op_error(
                "failed to verify that all of {val_if_true, val_if_false, result} have same type"
            )
        if shape_of(c.type) != shape_of(a.type):
            raise self.op_error(
                "failed to verify that all of {cond, val_if_true, val_if_false, result} have "
                "same shape"
            )

    def verify_modifiers(self) -> None:
        from xdsl.dialects.builtin import Float4E2M1FNType

        if isinstance(element_type(self.result.type), Float4E2M1FNType):
            raise self.op_error("cannot operate on sub-byte type F4E2M1FN")


@irdl_op_definition
class IotaOp(CudaTileOp):
    """`: tile<N x iK>`: the 1-D tile 0, 1, ..., N-1."""

    name = "cuda_tile.iota"
    SYNTAX: ClassVar[str] = "[{attrs}] : T"
    result = result_def()
    traits = traits_def(Pure())

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> IotaOp:
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        return cls.create(result_types=[parse_cuda_tile_type(parser)], attributes=attrs)

    def verify_(self) -> None:
        check_tile_of(self, self.result, "result #0", INTEGER)
        shape = shape_of(self.result.type)
        if len(shape) != 1:
            raise self.op_error("expects result type to be 1-d tile")
        el = element_type(self.result.type)
        assert isinstance(el, IntegerType)
        if el.width.data < 64 and shape[0] > 2**el.width.data:
            raise self.op_error(
                f"the number of elements {shape[0]} exceeds the maximum value of element "
                f"type '{el}'"
            )


@irdl_op_definition
class OffsetOp(CudaTileOp):
    """`%ptr, %offset : P, I -> P`: pointer arithmetic in elements of the pointee."""

    name = "cuda_tile.offset"
    SYNTAX: ClassVar[str] = "%ptr, %offset [{attrs}] : P, T -> P"
    ptr = operand_def()
    offset = operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.ptr)
        f.literal(",")
        f.operand(self.offset)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.ptr.type)
        f.literal(",")
        f.type(self.offset.type)
        f.literal("->")
        f.type(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> OffsetOp:
        p = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        o = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        pt = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        ot = parse_cuda_tile_type(parser)
        parser.parse_punctuation("->")
        rt = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(p, pt), parser.resolve_operand(o, ot)],
            result_types=[rt],
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile_of(self, self.ptr, "operand #0", POINTER)
        check_tile_of(self, self.offset, "operand #1", INTEGER)
        check_tile_of(self, self.result, "result #0", POINTER)
        if self.ptr.type != self.result.type:
            raise self.op_error("failed to verify that all of {result, ptr} have same type")
        if shape_of(self.ptr.type) != shape_of(self.offset.type):
            raise self.op_error("requires the same shape for all operands and results")


# ---------------------------------------------------------------------------
# assume
# ---------------------------------------------------------------------------


@irdl_op_definition
class AssumeOp(CudaTileOp):
    """`assume PRED, %value : T`: returns `value` and records a fact about it
    (`div_by<16>`: divisible by 16; `bounded<0, ?>`: non-negative; `same_elements`).
    Later passes read these facts, for instance to vectorize memory accesses."""

    name = "cuda_tile.assume"
    SYNTAX: ClassVar[str] = "PREDICATE, %value [{attrs}] : T"
    GROUP: ClassVar[str] = "Miscellaneous"
    value = operand_def()
    predicate = prop_def(DivByAttr | SameElementsAttr | BoundedAttr)
    result = result_def()
    traits = traits_def(Pure(), CudaTileCanonicalization())

    def __init__(self, predicate: AssumePredicate, value: SSAValue):
        super().__init__(
            operands=[value], properties={"predicate": predicate}, result_types=[value.type]
        )

    def asm_result_names(self) -> Sequence[str | None]:
        from tileir.printing import source_base_name

        source = source_base_name(self.value)
        return ("assume" if source is None else f"assume_{source}",)

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)

        def pred() -> None:
            p = self.predicate
            printer.print_string(p.name.split(".", 1)[1])
            p.print_parameters(printer)

        f.custom(pred)
        f.literal(",")
        f.operand(self.value)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.value.type)

    @classmethod
    def parse(cls, parser: Parser) -> AssumeOp:
        pos = parser.pos
        token = parser._current_token  # pyright: ignore[reportPrivateUsage]
        if token.kind != MLIRTokenKind.BARE_IDENT:
            pred = parser.parse_attribute()
        else:
            kind = parser.parse_optional_identifier()
            kinds: dict[str, type[Attribute]] = {
                "div_by": DivByAttr,
                "same_elements": SameElementsAttr,
                "bounded": BoundedAttr,
            }
            if kind not in kinds:
                parser.raise_error(
                    f"unknown assume predicate attribute: {kind} (expected 'div_by', "
                    "'same_elements', or 'bounded')",
                    pos,
                    parser.pos,
                )
            cls_ = kinds[kind]
            pred = cls_.new(cls_.parse_parameters(parser))  # pyright: ignore[reportAttributeAccessIssue]
        if not isinstance(pred, DivByAttr | SameElementsAttr | BoundedAttr):
            parser.raise_error("expected assume predicate attribute", pos, parser.pos)
        parser.parse_punctuation(",")
        v = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(v, t)],
            result_types=[t],
            properties={"predicate": pred},
            attributes=attrs,
        )

    def verify_(self) -> None:
        if self.value.type != self.result.type:
            raise self.op_error("failed to verify that all of {value, result} have same type")
        error = assume_predicate_error(self.predicate, self.value.type)
        if error is not None:
            raise self.op_error(error)


def assume_predicate_error(p: Attribute, t: Attribute) -> str | None:
    """Why predicate `p` cannot constrain a value of type `t` (NVIDIA's rules)."""
    from tileir.dialects.cuda_tile.types import TensorViewType

    if isinstance(p, DivByAttr):
        name = "'cuda_tile.div_by'"
        d = p.divisor.data
        if d <= 0 or d & (d - 1):
            return f"{name} divisor must be a power of 2"
        if (p.every_value is None) != (p.along_value is None):
            return f"{name} 'every'/'along' must be used in combination"
        if d > 2**62:
            return f"{name} divisor is too large"
        if isinstance(t, TensorViewType):
            if p.every_value is not None:
                return (
                    f"{name} 'every'/'along' cannot be used if the constrained value is a "
                    "tensor_view"
                )
            return None
        if not isinstance(t, TileType):
            return f"{name} is valid only for tile of integer/pointer or tensor_view values"
        if t.rank == 0 and p.every_value is not None:
            return f"{name} 'every'/'along' cannot be used if the constrained value is a 0D tile"
        if not isinstance(t.element_type, IntegerType | PointerType):
            return f"{name} is valid only for tile of integer/pointer or tensor_view values"
        if p.every_value is None:
            return None
        along, every = p.along_value, p.every_value
        assert along is not None
        if not 0 <= along < t.rank:
            return f"{name} every_dim ({along}) must be >= 0 and < tile rank ({t.rank})"
        if not 0 <= every <= t.dims[along]:
            return (
                f"expected {name} every_dim to be within 0 and the size of the respective "
                f"dimension ({t.dims[along]})"
            )
        return None
    if isinstance(p, SameElementsAttr):
        name = "'cuda_tile.same_elements'"
        if not isinstance(t, TileType) or not isinstance(t.element_type, IntegerType | PointerType):
            return f"{name} is valid only for tile of integer/pointer values"
        values = [v.data for v in p.values]
        if len(values) != t.rank:
            return (
                f"expected number of values in {name} ({len(values)}) to match rank of "
                f"constrained tile ({t.rank})"
            )
        for i, (v, d) in enumerate(zip(values, t.dims, strict=True)):
            if not 0 <= v <= d:
                return (
                    f"expected {name} value {i} to be within 0 and the size of the respective "
                    f"dimension ({d})"
                )
        return None
    assert isinstance(p, BoundedAttr)
    name = "'cuda_tile.bounded'"
    if not isinstance(t, TileType) or not isinstance(t.element_type, IntegerType):
        return f"{name} is valid only for tile of integer values"
    width = t.element_type.width.data
    lo, hi = -(2 ** (width - 1)), 2 ** (width - 1) - 1
    lb, ub = p.lower_value, p.upper_value
    if lb is not None and not lo <= lb <= hi:
        return f"{name} expects lower bound to be within [{lo}, {hi}]"
    if ub is not None and not lo <= ub <= hi:
        return f"{name} expects upper bound to be within [{lo}, {hi}]"
    if lb is not None and ub is not None and lb > ub:
        return f"{name} expects lower bound to be less than or equal to upper bound"
    return None


# Keep the float helpers referenced so that unused-import checks stay meaningful.
_FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type)
_ = struct

CORE_OPS = [
    ModuleOp,
    EntryOp,
    ReturnOp,
    ConstantOp,
    GetTileBlockIdOp,
    GetNumTileBlocksOp,
    BroadcastOp,
    ReshapeOp,
    SelectOp,
    IotaOp,
    OffsetOp,
    AssumeOp,
]
