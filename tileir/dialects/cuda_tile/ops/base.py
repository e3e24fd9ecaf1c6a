"""Building blocks shared by every cuda_tile op family.

* `CudaTileOp`: the base op; carries the release an op appeared in and the MLIR-style
  result names (`getAsmResultNames`) NVIDIA's printer uses (`%tview`, `%cst_1_i32`).
* Element sets (`FLOAT`, `INTEGER`, ...) with the exact wording of NVIDIA's type
  constraint messages, and `check_tile_of`, which enforces them on tiles and on the
  builtin carriers ops run on after lifting (see `carriers.py`).
* Modifiers: the optional keyword pieces of the custom syntax (`rounding<...>`,
  `flush_to_zero`, `overflow<...>`, `signed`), each knowing how to print with MLIR's
  spacing and how to parse itself back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.cuda_tile.attributes import (
    Overflow,
    OverflowAttr,
    RoundingMode,
    RoundingModeAttr,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.cuda_tile.carriers import element_type, is_carrier, shape_of
from tileir.dialects.cuda_tile.syntax import AsmFormat
from tileir.dialects.cuda_tile.types import PointerType, TileType

# ---------------------------------------------------------------------------
# The base op.
# ---------------------------------------------------------------------------


class CudaTileOp(IRDLOperation):
    """Base of all cuda_tile ops."""

    #: The cuda_tile release that introduced the op (bytecode cares).
    SINCE: ClassVar[str] = "13.1"

    def asm_result_names(self) -> Sequence[str | None]:
        """Names NVIDIA's printer gives the results (None: a number)."""
        return ()

    def op_error(self, message: str) -> VerifyException:
        return VerifyException(f"'{self.name}' op {message}")


def inside_cuda_tile_function(op: Operation) -> bool:
    """True when `op` sits in the body of a cuda_tile function (`entry`,
    `testing$func`), where only cuda_tile types are allowed."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name in ("cuda_tile.entry", "cuda_tile.testing$func"):
            return True
        parent = parent.parent_op()
    return False


# ---------------------------------------------------------------------------
# Element constraints.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ElementSet:
    """A set of element types, described as NVIDIA's messages describe it."""

    text: str
    accepts: Callable[[Attribute], bool]


def _int_widths(*widths: int) -> Callable[[Attribute], bool]:
    return lambda t: isinstance(t, IntegerType) and t.width.data in widths


FLOAT = ElementSet(
    "f16 or bf16 or f32 or f64",
    lambda t: isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type),
)
INTEGER = ElementSet("i1 or i8 or i16 or i32 or i64", _int_widths(1, 8, 16, 32, 64))
BOOL = ElementSet("i1", _int_widths(1))
I64 = ElementSet("i64", _int_widths(64))
POINTER = ElementSet("ptr", lambda t: isinstance(t, PointerType))
ANY_FLOAT = ElementSet(
    "f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN",
    lambda t: isinstance(t, AnyFloat),
)
NUMBER = ElementSet(
    "i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN "
    "or f8E5M2 or f8E8M0FNU or f4E2M1FN",
    lambda t: INTEGER.accepts(t) or isinstance(t, AnyFloat),
)
ANY_ELEMENT = ElementSet(
    "any type", lambda t: NUMBER.accepts(t) or isinstance(t, PointerType) or t == IntegerType(4)
)


def type_text(t: Attribute) -> str:
    """How a type appears in diagnostics: the long (generic) form, as MLIR prints it."""
    return str(t)


def check_tile_of(
    op: CudaTileOp,
    value: SSAValue,
    position: str,
    elements: ElementSet,
    *,
    rank: int | None = None,
) -> None:
    """`position` is e.g. "operand #0" or "result #0"."""
    t = value.type
    public = inside_cuda_tile_function(op)
    ok = (isinstance(t, TileType) if public else is_carrier(t)) and elements.accepts(
        element_type(t)
    )
    if ok and rank is not None and len(shape_of(t)) != rank:
        ok = False
    if not ok:
        shape_text = " 0D" if rank == 0 else ""
        raise op.op_error(
            f"{position} must be{shape_text} tile of {elements.text} values, "
            f"but got '{type_text(t)}'"
        )


def check_same_types(op: CudaTileOp, names: Sequence[str], values: Sequence[SSAValue]) -> None:
    first = values[0].type
    if any(v.type != first for v in values[1:]):
        raise op.op_error(f"failed to verify that all of {{{', '.join(names)}}} have same type")


def check_same_shape(op: CudaTileOp, names: Sequence[str], values: Sequence[SSAValue]) -> None:
    first = shape_of(values[0].type)
    if any(shape_of(v.type) != first for v in values[1:]):
        raise op.op_error(f"failed to verify that all of {{{', '.join(names)}}} have same shape")


def is_f32(t: Attribute) -> bool:
    return isinstance(element_type(t), Float32Type)


# ---------------------------------------------------------------------------
# Modifiers of the custom syntax.
# ---------------------------------------------------------------------------

IEEE_MODES = (
    RoundingMode.NEAREST_EVEN,
    RoundingMode.ZERO,
    RoundingMode.NEGATIVE_INF,
    RoundingMode.POSITIVE_INF,
)


class Modifier:
    """One optional piece of an op's custom syntax bound to a property."""

    def print(self, f: AsmFormat, op: Operation) -> None:
        raise NotImplementedError

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        raise NotImplementedError


@dataclass(frozen=True)
class RoundingDirective(Modifier):
    """`custom<...RoundingMode>`: prints `rounding<mode>` unless the mode is the op's
    default; MLIR leaves the directive's leading space even when it prints nothing."""

    allowed: tuple[RoundingMode, ...]
    default: RoundingMode = RoundingMode.NEAREST_EVEN
    prop: str = "rounding_mode"
    #: When set, an unknown keyword is reported with the `, got: '...'` suffix.
    strict_message: bool = True

    def print(self, f: AsmFormat, op: Operation) -> None:
        mode = op.properties.get(self.prop)
        assert isinstance(mode, RoundingModeAttr)

        def body() -> None:
            if mode.data != self.default:
                f.printer.print_string(f"rounding<{mode.data.value}>")

        f.custom(body)

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        props[self.prop] = RoundingModeAttr(self.parse_mode(parser))

    def parse_mode(self, parser: Parser) -> RoundingMode:
        if parser.parse_optional_keyword("rounding") is None:
            return self.default
        parser.parse_punctuation("<")
        pos = parser.pos
        word = parser.parse_identifier()
        parser.parse_punctuation(">")
        allowed_text = ", ".join(f"'{m.value}'" for m in self.allowed)
        known = {m.value for m in RoundingMode}
        if word not in known or RoundingMode(word) not in self.allowed:
            suffix = f", got: '{word}'" if self.strict_message or word in known else ""
            parser.raise_error(
                f"expected rounding mode to be one of: {allowed_text}{suffix}", pos, parser.pos
            )
        return RoundingMode(word)


@dataclass(frozen=True)
class UnitFlag(Modifier):
    """`(`keyword` $flag^)?`: a unit attribute spelled as a keyword."""

    keyword: str
    prop: str

    def print(self, f: AsmFormat, op: Operation) -> None:
        if self.prop in op.properties:
            f.literal(self.keyword)

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        if parser.parse_optional_keyword(self.keyword) is not None:
            props[self.prop] = UnitAttr()


@dataclass(frozen=True)
class FlagList(Modifier):
    """`oilist(`a` $a | `b` $b)`: unit flags in any order on input, declaration order
    on output."""

    flags: tuple[tuple[str, str], ...]  # (keyword, prop)

    def print(self, f: AsmFormat, op: Operation) -> None:
        for keyword, prop in self.flags:
            if prop in op.properties:
                f.literal(keyword)

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        keywords = {k: p for k, p in self.flags}
        while True:
            pos = parser.pos
            word = parser.parse_optional_keyword_in(tuple(keywords))  # pyright: ignore[reportArgumentType]
            if word is None:
                return
            if keywords[word] in props:
                parser.raise_error(f"'{word}' may appear only once", pos, parser.pos)
            props[keywords[word]] = UnitAttr()


@dataclass(frozen=True)
class OverflowFlag(Modifier):
    """`(`overflow` `` $overflow^)?`: printed only when not `none`."""

    prop: str = "overflow"

    def print(self, f: AsmFormat, op: Operation) -> None:
        flag = op.properties.get(self.prop)
        if isinstance(flag, OverflowAttr) and flag.data != Overflow.NONE:
            f.literal("overflow")
            f.printer.print_string(f"<{flag.data.value}>")
            f.after_variable()

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        if parser.parse_optional_keyword("overflow") is None:
            props[self.prop] = OverflowAttr(Overflow.NONE)
            return
        parser.parse_punctuation("<")
        pos = parser.pos
        word = parser.parse_identifier()
        if word not in {o.value for o in Overflow}:
            parser.raise_error(
                "expected overflow to be one of: 'none', 'no_signed_wrap', "
                "'no_unsigned_wrap', 'no_wrap'",
                pos,
                parser.pos,
            )
        parser.parse_punctuation(">")
        props[self.prop] = OverflowAttr(Overflow(word))


@dataclass(frozen=True)
class SignednessDirective(Modifier):
    """`custom<Signedness>`: the keyword `signed` or `unsigned`."""

    prop: str = "signedness"

    def print(self, f: AsmFormat, op: Operation) -> None:
        s = op.properties[self.prop]
        assert isinstance(s, SignednessAttr)
        f.keyword(s.data.value)

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        pos = parser.pos
        word = parser.parse_optional_identifier()
        if word not in ("signed", "unsigned"):
            parser.raise_error(
                "expected signedness to be one of: {'signed', 'unsigned'}",
                pos,
                max(parser.pos, pos + 1),
            )
        props[self.prop] = SignednessAttr(Signedness(word))


@dataclass(frozen=True)
class OptionalKeywordRounding(Modifier):
    """`(`rounding` `` $rounding^)?` on an attribute with a default (divi)."""

    allowed: tuple[RoundingMode, ...]
    default: RoundingMode
    prop: str = "rounding"

    def print(self, f: AsmFormat, op: Operation) -> None:
        mode = op.properties.get(self.prop)
        if isinstance(mode, RoundingModeAttr) and mode.data != self.default:
            f.literal("rounding")
            f.printer.print_string(f"<{mode.data.value}>")
            f.after_variable()

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        props[self.prop] = RoundingModeAttr(
            RoundingDirective(self.allowed, self.default, self.prop).parse_mode(parser)
        )


def print_modifiers(f: AsmFormat, op: Operation, modifiers: Sequence[Modifier]) -> None:
    for m in modifiers:
        m.print(f, op)


def parse_modifiers(
    parser: Parser, modifiers: Sequence[Modifier], props: dict[str, Attribute]
) -> None:
    for m in modifiers:
        m.parse(parser, props)
