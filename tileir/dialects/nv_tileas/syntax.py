"""Shared pieces of nv_tileas custom syntax.

**Bare tile types.**  The seeds write cuda_tile tiles without their prefix inside
nv_tileas ops (`nv_tileas.dot %a, %b, %acc : tile<128x128xf16>, ...`,
`producer_types = [tile<128x128xf16>]`, `^bb0(%buf : tile<128x128xf16>)`).  xDSL has
no default-dialect hook for types, so every nv_tileas op's custom `parse` runs with
`bare_types_parsed(parser)`, which makes the parser accept the mnemonic `tile<...>` as
`!cuda_tile.tile<...>` wherever a type is expected, including attribute dictionaries,
nested regions and block arguments; its `print` runs with `bare_types_printed(printer)`,
which prints tiles bare in the same places.  `@bare_tile_syntax` installs both around
an op's parse/print (custom or declarative).  The generic form stays fully qualified,
and qualified input keeps parsing everywhere.  Type parameters of nv_tileas and the
foreign types it declares read bare tiles through `parse_type_bare` in any context.

**Mixed static/dynamic index lists** (`[%i, 0]`, `[64, %n]`) are stored MLIR-style: a
`DenseArrayBase` of i64 with `DYNAMIC_INDEX` where the value comes from an SSA operand.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar, cast

from xdsl.dialects.builtin import DYNAMIC_INDEX as BUILTIN_DYNAMIC_INDEX
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tileir.dialects.cuda_tile.types import TileType
from tileir.utils.lazy_ops import after_definition

#: The marker of a dynamic entry in a mixed static/dynamic index list (MLIR's
#: `ShapedType::kDynamic`).
DYNAMIC_INDEX = BUILTIN_DYNAMIC_INDEX

#: cuda_tile type mnemonics accepted without their prefix in nv_tileas scope.
BARE_TYPES: dict[str, type[TileType]] = {"tile": TileType}

OpT = TypeVar("OpT", bound=type[Operation])


def _parse_optional_bare_type(parser: AttrParser) -> Attribute | None:
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    cls = BARE_TYPES.get(token.text) if token.kind is MLIRTokenKind.BARE_IDENT else None
    if cls is None:
        return None
    start = parser.pos
    parser._consume_token()  # pyright: ignore[reportPrivateUsage]
    attr = cls.new(cls.parse_parameters(parser))
    try:
        attr.verify()
    except VerifyException as e:
        parser.raise_error(str(e), start, parser.pos)
    return attr


def parse_type_bare(parser: AttrParser) -> Attribute:
    """A type, where `tile<...>` may be written without its `!cuda_tile.` prefix."""
    bare = _parse_optional_bare_type(parser)
    return bare if bare is not None else parser.parse_type()


def print_type_bare(printer: Printer, attr: Attribute) -> None:
    """Prints cuda_tile tiles as `tile<...>`, anything else as usual."""
    if isinstance(attr, TileType):
        printer.print_string("tile")
        attr.print_parameters(printer)
    else:
        printer.print_attribute(attr)


@contextmanager
def bare_types_parsed(parser: Parser) -> Iterator[None]:
    """While active, `parser` reads `tile<...>` as `!cuda_tile.tile<...>` in every type
    position (nested ops and block arguments included)."""
    if "parse_optional_type" in vars(parser):
        yield
        return
    original = parser.parse_optional_type

    def parse_optional_type():
        bare = _parse_optional_bare_type(parser)
        return bare if bare is not None else original()

    setattr(parser, "parse_optional_type", parse_optional_type)  # noqa: B010
    try:
        yield
    finally:
        delattr(parser, "parse_optional_type")


@contextmanager
def bare_types_printed(printer: Printer) -> Iterator[None]:
    """While active, `printer` prints cuda_tile tiles as `tile<...>`."""
    if "print_attribute" in vars(printer) or printer.print_generic_format:
        yield
        return
    original = printer.print_attribute

    def print_attribute(attribute: Attribute) -> None:
        if isinstance(attribute, TileType):
            printer.print_string("tile")
            attribute.print_parameters(printer)
        else:
            original(attribute)

    setattr(printer, "print_attribute", print_attribute)  # noqa: B010
    try:
        yield
    finally:
        delattr(printer, "print_attribute")


def bare_tile_syntax(cls: OpT) -> OpT:
    """Runs an op's parse and print with bare tile types (see the module docstring).

    Apply it above `@irdl_op_definition`, so that it wraps the declarative format's
    generated methods too (once they exist: tileir/utils/lazy_ops.py)."""
    return after_definition(cls, _bare_tile_syntax)


def _bare_tile_syntax(cls: type[Operation]) -> None:
    parse_fn = cast(Callable[[type[Operation], Parser], Operation], cls.parse.__func__)  # pyright: ignore[reportFunctionMemberAccess]
    print_fn = cast(Callable[[Operation, Printer], None], cls.print)

    def parse(c: type[Operation], parser: Parser) -> Operation:
        with bare_types_parsed(parser):
            return parse_fn(c, parser)

    def print_(self: Operation, printer: Printer) -> None:
        with bare_types_printed(printer):
            print_fn(self, printer)

    setattr(cls, "parse", classmethod(parse))  # noqa: B010
    setattr(cls, "print", print_)  # noqa: B010


# ---------------------------------------------------------------------------
# Operand and type lists.
# ---------------------------------------------------------------------------


def parse_operand_list(parser: Parser, delimiter: Parser.Delimiter) -> list[UnresolvedOperand]:
    """`[%a, %b]` / `(%a, %b)`; the list may be empty."""
    return parser.parse_comma_separated_list(delimiter, parser.parse_unresolved_operand)


def parse_optional_operands(parser: Parser) -> list[UnresolvedOperand]:
    """`%a, %b, ...` without delimiters, possibly empty."""
    first = parser.parse_optional_unresolved_operand()
    if first is None:
        return []
    operands = [first]
    while parser.parse_optional_punctuation(","):
        operands.append(parser.parse_unresolved_operand())
    return operands


def parse_types(parser: Parser) -> list[Attribute]:
    """`T1, T2, ...` without delimiters (at least one)."""
    types: list[Attribute] = [parser.parse_type()]
    while parser.parse_optional_punctuation(","):
        types.append(parser.parse_type())
    return types


def print_operands(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list(values, printer.print_operand)


def print_types(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_list(types, printer.print_attribute)


def resolve(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute]
) -> list[SSAValue]:
    if len(operands) != len(types):
        parser.raise_error(f"expected {len(operands)} types, got {len(types)}")
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def resolve_index(parser: Parser, operands: Sequence[UnresolvedOperand]) -> list[SSAValue]:
    return [parser.resolve_operand(o, IndexType()) for o in operands]


# ---------------------------------------------------------------------------
# Mixed static/dynamic index lists.
# ---------------------------------------------------------------------------


def parse_dynamic_index_list(parser: Parser) -> tuple[list[UnresolvedOperand], list[int]]:
    """`[%i, 0, %n]`: SSA values and integer literals, in any mix."""
    operands: list[UnresolvedOperand] = []
    static: list[int] = []

    def entry() -> None:
        value = parser.parse_optional_unresolved_operand()
        if value is not None:
            operands.append(value)
            static.append(DYNAMIC_INDEX)
        else:
            static.append(parser.parse_integer(allow_boolean=False, context_msg=" or SSA value"))

    parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
    return operands, static


def print_dynamic_index_list(
    printer: Printer, values: Sequence[SSAValue], static: Sequence[int]
) -> None:
    printer.print_string("[")
    it = iter(values)
    for i, s in enumerate(static):
        if i:
            printer.print_string(", ")
        if s == DYNAMIC_INDEX:
            printer.print_operand(next(it))
        else:
            printer.print_string(str(s))
    printer.print_string("]")


def index_array(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def int_array_values(attr: DenseArrayBase) -> tuple[int, ...]:
    """The entries of an integer (or i1) dense array."""
    values = cast("DenseArrayBase[IntegerType]", attr).get_values()
    return tuple(int(v) for v in values)


#: The entries of a static offsets/sizes/strides array.
static_values = int_array_values


def mixed_values(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[int | SSAValue]:
    """The entries of a mixed list: an int where static, the SSA value where dynamic."""
    it = iter(dynamic)
    return [next(it) if s == DYNAMIC_INDEX else s for s in static]


def split_mixed(values: Sequence[int | SSAValue]) -> tuple[list[SSAValue], list[int]]:
    """(dynamic operands, static entries with `DYNAMIC_INDEX` holes) of a mixed list."""
    dynamic: list[SSAValue] = []
    static: list[int] = []
    for v in values:
        if isinstance(v, int):
            static.append(v)
        else:
            dynamic.append(v)
            static.append(DYNAMIC_INDEX)
    return dynamic, static
