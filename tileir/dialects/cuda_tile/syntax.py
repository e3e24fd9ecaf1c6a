"""Shared pieces of cuda_tile's custom syntax.

* `parse_cuda_tile_type` / `print_cuda_tile_type`: the type positions of cuda_tile
  custom syntax accept the keyword `token`, any full MLIR type, or a bare cuda_tile
  mnemonic (`tile<...>`); they always print the bare form.
* `AsmFormat`: a small re-implementation of the spacing rules of MLIR's declarative
  assembly-format printer, so that ops print exactly as NVIDIA's tools print them
  (including the double space MLIR leaves where an optional custom directive printed
  nothing: `addf %a, %b  : tile<4xf32>`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xdsl.dialects.builtin import DictionaryAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tileir.dialects.cuda_tile.types import (
    DYNAMIC,
    GatherScatterViewType,
    PartitionViewType,
    PointerType,
    StridedViewType,
    TensorViewType,
    TileType,
    TokenType,
)

#: Bare type mnemonics accepted inside cuda_tile custom syntax.
SHORT_TYPES: dict[str, type[Attribute]] = {
    "tile": TileType,
    "ptr": PointerType,
    "tensor_view": TensorViewType,
    "partition_view": PartitionViewType,
    "strided_view": StridedViewType,
    "gather_scatter_view": GatherScatterViewType,
}

CUDA_TILE_TYPES = (
    TileType,
    PointerType,
    TensorViewType,
    PartitionViewType,
    StridedViewType,
    GatherScatterViewType,
    TokenType,
)


def parse_optional_cuda_tile_type(parser: AttrParser) -> Attribute | None:
    if parser.parse_optional_keyword("token") is not None:
        return TokenType()
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    cls = SHORT_TYPES.get(token.text)
    if cls is not None:
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
        params = cls.parse_parameters(parser)  # pyright: ignore[reportAttributeAccessIssue]
        attr = cls.new(params)  # pyright: ignore[reportAttributeAccessIssue]
        return attr
    return parser.parse_optional_type()


def parse_cuda_tile_type(parser: AttrParser) -> Attribute:
    """A type in a cuda_tile type position, with MLIR's messages: `expected valid
    keyword` where no type starts, `unknown type: X` for an unknown mnemonic."""
    pos = parser.pos
    result = parse_optional_cuda_tile_type(parser)
    if result is None:
        token = parser._current_token  # pyright: ignore[reportPrivateUsage]
        if token.kind != MLIRTokenKind.BARE_IDENT:
            parser.raise_error("expected valid keyword", pos, max(parser.pos, pos + 1))
        parser.raise_error(f"unknown type: {token.text}", pos, max(parser.pos, pos + 1))
    return result


def parse_cuda_tile_types(parser: AttrParser) -> list[Attribute]:
    """A comma-separated, undelimited list of types."""
    types = [parse_cuda_tile_type(parser)]
    while parser.parse_optional_punctuation(","):
        types.append(parse_cuda_tile_type(parser))
    return types


def short_type_name(attr: Attribute) -> str | None:
    """The bare mnemonic of a cuda_tile type, or None for other types."""
    if isinstance(attr, CUDA_TILE_TYPES):
        return attr.name.split(".", 1)[1]
    return None


def print_cuda_tile_type(printer: Printer, attr: Attribute) -> None:
    mnemonic = short_type_name(attr)
    if mnemonic is None:
        printer.print_attribute(attr)
        return
    printer.print_string(mnemonic)
    if not isinstance(attr, TokenType):
        attr.print_parameters(printer)  # pyright: ignore[reportAttributeAccessIssue]


def parse_shape_and_element(
    parser: AttrParser, *, allow_dynamic: bool
) -> tuple[list[int], Attribute]:
    """`4x8xf32`, `?x32xf16`, or just `f32`."""
    pos = parser.pos
    dims = parser.parse_dimension_list()
    if dims:
        parser.parse_shape_delimiter()
    if not allow_dynamic and any(d == DYNAMIC or d == -1 for d in dims):
        parser.raise_error("expected static shape", pos, parser.pos)
    dims = [DYNAMIC if d in (DYNAMIC, -1) else d for d in dims]
    return dims, parse_cuda_tile_type(parser)


def print_shape_and_element(printer: Printer, dims: Sequence[int], element: Attribute) -> None:
    for d in dims:
        printer.print_string(("?" if d == DYNAMIC else str(d)) + "x")
    print_cuda_tile_type(printer, element)


# ---------------------------------------------------------------------------
# Declarative-format spacing, MLIR style.
# ---------------------------------------------------------------------------


class AsmFormat:
    """Prints the pieces of an op's custom form with MLIR's spacing rules.

    MLIR's generated printers track two bits of state: whether a space should be
    emitted before the next element, and whether the last element was punctuation.
    Literals decide for themselves (no space before `,` `)` `]` `>` after punctuation,
    none before `(` `<` etc.); variables and custom directives always get a leading
    space when one is due.  Usage mirrors a format string:

        f = AsmFormat(printer)        # the op name was just printed
        f.operand(op.lhs); f.literal(","); f.operand(op.rhs)
        f.custom(lambda: print_rounding(...))
        f.attr_dict(op, elided)
        f.literal(":"); f.type(op.result.type)
    """

    def __init__(self, printer: Printer):
        self.printer = printer
        self.should_emit_space = True
        self.last_was_punctuation = False

    # -- elements ---------------------------------------------------------
    def literal(self, text: str) -> None:
        if self.should_emit_space and _should_emit_space_before(text, self.last_was_punctuation):
            self.printer.print_string(" ")
        self.printer.print_string(text)
        self.should_emit_space = len(text) != 1 or text not in "<({["
        self.last_was_punctuation = text[0] != "_" and not text[0].isalpha()

    def keyword(self, text: str) -> None:
        """A keyword printed by a custom directive or enum variable."""
        self._space()
        self.printer.print_string(text)
        self.after_variable()

    def operand(self, value: SSAValue) -> None:
        self._space()
        self.printer.print_operand(value)
        self.after_variable()

    def operands(self, values: Sequence[SSAValue]) -> None:
        if not values:
            return
        self._space()
        self.printer.print_list(values, self.printer.print_operand)
        self.after_variable()

    def type(self, attr: Attribute) -> None:
        self._space()
        print_cuda_tile_type(self.printer, attr)
        self.after_variable()

    def types(self, attrs: Sequence[Attribute]) -> None:
        self._space()
        self.printer.print_list(attrs, lambda t: print_cuda_tile_type(self.printer, t))
        self.after_variable()

    def custom(self, body: Callable[[], None]) -> None:
        """A `custom<...>` directive: MLIR emits the leading space even when the
        directive itself prints nothing."""
        self._space()
        body()
        self.after_variable()

    def attr_dict(self, op: Operation, elided: Iterable[str] = ()) -> None:
        """`attr-dict`: ` {a = 1}` when non-empty, nothing otherwise."""
        print_attr_dict(self.printer, op.attributes, elided)

    def attr_dict_with_keyword(self, op: Operation, elided: Iterable[str] = ()) -> None:
        skip = set(elided)
        attrs = {k: v for k, v in op.attributes.items() if k not in skip}
        if attrs:
            self.printer.print_string(" attributes")
            print_attr_dict(self.printer, attrs, ())

    # -- state ------------------------------------------------------------
    def _space(self) -> None:
        if self.should_emit_space:
            self.printer.print_string(" ")

    def after_variable(self) -> None:
        self.should_emit_space = True
        self.last_was_punctuation = False


def _should_emit_space_before(value: str, last_was_punctuation: bool) -> bool:
    if len(value) != 1 and value != "->":
        return True
    if last_was_punctuation:
        return value[0] not in ">)}],"
    return value[0] not in "<>(){}[],"


def print_attr_dict(printer: Printer, attrs: dict[str, Attribute], elided: Iterable[str]) -> None:
    skip = set(elided)
    shown = {k: v for k, v in attrs.items() if k not in skip}
    if shown:
        printer.print_string(" ")
        printer.print_attr_dict(shown)


# ---------------------------------------------------------------------------
# Parsing helpers shared by the ops.
# ---------------------------------------------------------------------------


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """`%a, %b, ...` (possibly empty)."""
    first = parser.parse_optional_unresolved_operand()
    if first is None:
        return []
    operands = [first]
    while parser.parse_optional_punctuation(","):
        operands.append(parser.parse_unresolved_operand())
    return operands


def resolve_operands(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute], pos: int
) -> list[SSAValue]:
    """MLIR's `resolveOperands`: as many types as operands."""
    if len(operands) != len(types):
        parser.raise_error(
            f"number of operands and types do not match: got {len(operands)} operands and "
            f"{len(types)} types",
            pos,
            parser.pos,
        )
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def parse_optional_attr_dict(parser: Parser) -> dict[str, Attribute]:
    return parser.parse_optional_attr_dict()


def parse_integer_of(parser: AttrParser, t: IntegerType) -> int:
    """An integer literal for a property of type `t` (a `dim`, a permutation entry, an
    alignment): one that does not fit `t` is a parse error at the literal, not the
    ValueError xDSL raises when the attribute is built."""
    start = parser.pos
    value = parser.parse_integer(allow_boolean=False)
    low, high = t.value_range()
    if not low <= value < high:
        parser.raise_error(f"integer value {value} is out of range for {t}", start, parser.pos)
    return value


def parse_keyword_enum(parser: Parser, choices: Sequence[str], message: str) -> str:
    """Parse a bare keyword that must be one of `choices`, with NVIDIA's message.  Where
    no keyword follows at all, MLIR reports `expected valid keyword` first, then the
    custom directive's own message: both are raised (`ParseErrors`)."""
    from tileir.frontend import parse_errors

    pos = parser.pos
    span = parser._current_token.span  # pyright: ignore[reportPrivateUsage]
    word = parser.parse_optional_identifier()
    if word is None:
        raise parse_errors([ParseError(span, "expected valid keyword"), ParseError(span, message)])
    if word not in choices:
        parser.raise_error(message, pos, max(parser.pos, pos + 1))
    return word


def attrs_dict(attrs: DictionaryAttr | None) -> dict[str, Attribute]:
    return dict(attrs.data) if attrs is not None else {}


__all__ = [
    "AsmFormat",
    "ParseError",
    "parse_cuda_tile_type",
    "parse_cuda_tile_types",
    "parse_keyword_enum",
    "parse_operand_list",
    "parse_optional_cuda_tile_type",
    "parse_shape_and_element",
    "print_cuda_tile_type",
    "print_shape_and_element",
    "resolve_operands",
]
