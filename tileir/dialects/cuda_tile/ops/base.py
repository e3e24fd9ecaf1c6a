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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    IntegerType,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.utils.exceptions import VerifyException

from tileir.diagnostics import CompileError, location_of
from tileir.dialects.cuda_tile.attributes import (
    Overflow,
    OverflowAttr,
    RoundingMode,
    RoundingModeAttr,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.cuda_tile.carriers import element_type, is_carrier, shape_of
from tileir.dialects.cuda_tile.syntax import AsmFormat, parse_keyword_enum
from tileir.dialects.cuda_tile.types import PointerType, TileType

# ---------------------------------------------------------------------------
# The base op.
# ---------------------------------------------------------------------------

#: Regions may nest this deep inside a function (`if` in `for` in `loop` ...): far
#: beyond real kernels, and a bound on the recursion of the parsers, the verifier, the
#: printer and the passes.  The text parser and the bytecode reader both reject deeper
#: nesting with a located error.
MAX_REGION_DEPTH = 64


@dataclass(frozen=True)
class CudaTileCanonicalization(HasCanonicalizationPatternsTrait):
    """Attaches the op's patterns from `tileir.dialects.cuda_tile.canonicalize` (imported
    lazily), so that xDSL's `canonicalize` runs them."""

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        from tileir.dialects.cuda_tile.canonicalize import patterns_for

        return patterns_for(op.name)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()


class CudaTileOp(IRDLOperation):
    """Base of all cuda_tile ops."""

    #: The cuda_tile release that introduced the op (bytecode cares).
    SINCE: ClassVar[str] = "13.1"
    #: The group of NVIDIA's specification the op belongs to.
    GROUP: ClassVar[str] = "Core"
    #: Operands, attributes and results added after the op itself: name -> release.
    FIELD_SINCE: ClassVar[dict[str, str]] = {}
    #: The custom form after the op name, as the reference documentation writes it
    #: (`docs/dialects/cuda_tile.md`); elementwise ops derive it from their modifiers.
    SYNTAX: ClassVar[str] = ""

    @classmethod
    def syntax(cls) -> str:
        return cls.SYNTAX

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


def _floats(*classes: type[Attribute]) -> Callable[[Attribute], bool]:
    return lambda t: isinstance(t, classes)


_CUDA_TILE_FLOATS = (
    Float16Type,
    BFloat16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float4E2M1FNType,
)

FLOAT = ElementSet(
    "f16 or bf16 or f32 or f64",
    lambda t: isinstance(t, Float16Type | BFloat16Type | Float32Type | Float64Type),
)
INTEGER = ElementSet("i1 or i8 or i16 or i32 or i64", _int_widths(1, 8, 16, 32, 64))
BOOL = ElementSet("i1", _int_widths(1))
I8 = ElementSet("i8", _int_widths(8))
I32 = ElementSet("i32", _int_widths(32))
I64 = ElementSet("i64", _int_widths(64))
POINTER = ElementSet("Pointer type", lambda t: isinstance(t, PointerType))
ANY_FLOAT = ElementSet(
    "f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN",
    _floats(*_CUDA_TILE_FLOATS),
)
NUMBER = ElementSet(
    "i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN "
    "or f8E5M2 or f8E8M0FNU or f4E2M1FN",
    lambda t: INTEGER.accepts(t) or ANY_FLOAT.accepts(t),
)
NUMBER_OR_I4 = ElementSet(
    NUMBER.text + " or i4", lambda t: NUMBER.accepts(t) or t == IntegerType(4)
)
ANY_ELEMENT = ElementSet(
    "any type", lambda t: NUMBER.accepts(t) or isinstance(t, PointerType) or t == IntegerType(4)
)


def type_text(t: Attribute) -> str:
    """How a type appears in diagnostics: the long (generic) form, as MLIR prints it."""
    return str(t)


def tile_constraint_text(
    elements: ElementSet, rank: int | None = None, summary: str = "tile"
) -> str:
    """How ODS describes a `CudaTile_TileOf` constraint: `tile of f32 values`,
    `0D tile of i1 values`, `mmaf operand tile type of ... values`."""
    prefix = f"{rank}D tile" if rank is not None and summary == "tile" else summary
    return f"{prefix} of {elements.text} values"


def check_tile_of(
    op: CudaTileOp,
    value: SSAValue,
    position: str,
    elements: ElementSet,
    *,
    rank: int | None = None,
    summary: str = "tile",
    variadic: bool = False,
) -> None:
    """ODS's operand/result constraint check; `position` is e.g. "operand #0" or
    "result #0".  Outside a cuda_tile function (after lifting) the builtin carriers
    are accepted too (see `carriers.py`)."""
    t = value.type
    public = inside_cuda_tile_function(op)
    ok = (isinstance(t, TileType) if public else is_carrier(t)) and elements.accepts(
        element_type(t)
    )
    if ok and rank is not None and len(shape_of(t)) != rank:
        ok = False
    if not ok:
        text = tile_constraint_text(elements, rank, summary)
        if variadic:
            text = "variadic of " + text
        raise op.op_error(f"{position} must be {text}, but got '{type_text(t)}'")


def check_type(
    op: CudaTileOp, value: SSAValue, position: str, description: str, accepts: bool
) -> None:
    """A constraint that is not a tile constraint (`cuda tile token type`, `TileView
    instance`)."""
    if not accepts:
        raise op.op_error(f"{position} must be {description}, but got '{type_text(value.type)}'")


def operand_position(op: Operation, value: SSAValue) -> str:
    """`operand #N` for `value` (the first use of it among `op`'s operands)."""
    for i, v in enumerate(op.operands):
        if v is value:
            return f"operand #{i}"
    return "operand"


def check_same_rank(op: CudaTileOp, names: Sequence[str], values: Sequence[SSAValue]) -> None:
    first = len(shape_of(values[0].type))
    if any(len(shape_of(v.type)) != first for v in values[1:]):
        raise op.op_error(f"failed to verify that all of {{{', '.join(names)}}} have same rank")


def check_same_element_type(
    op: CudaTileOp, names: Sequence[str], values: Sequence[SSAValue]
) -> None:
    first = element_type(values[0].type)
    if any(element_type(v.type) != first for v in values[1:]):
        raise op.op_error(
            f"failed to verify that all of {{{', '.join(names)}}} have the same element type"
        )


def element_text(t: Attribute) -> str:
    """An element type as MLIR streams a `Type` into a diagnostic: quoted."""
    return f"'{element_type(t)}'"


def region_block_count_error(op: CudaTileOp, index: int, name: str, count: int) -> None:
    """ODS's `SizedRegion<1>` check."""
    region = op.regions[index]
    if len(region.blocks) != count:
        raise op.op_error(
            f"region #{index} ('{name}') failed to verify constraint: region with {count} blocks"
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

    def syntax(self) -> str:
        """How the reference documentation writes the piece."""
        raise NotImplementedError

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
    #: The strict parser: modes the op does not allow are rejected while parsing, and
    #: the message names the word (`, got: '...'`).
    strict_message: bool = True

    def syntax(self) -> str:
        return f"[rounding<{'|'.join(m.value for m in self.allowed)}>]"

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
        """NVIDIA's two rounding parsers: a strict one (IEEE ops, conversions) rejects
        any mode the op does not allow, naming the culprit; a lenient one (divf, sqrt,
        exp, tanh) only rejects unknown words and leaves the rest to the verifier."""
        if parser.parse_optional_keyword("rounding") is None:
            return self.default
        parser.parse_punctuation("<")
        word = parser.parse_identifier()
        parser.parse_punctuation(">")
        allowed_text = ", ".join(f"'{m.value}'" for m in self.allowed)
        known = {m.value for m in RoundingMode}
        if word not in known or (self.strict_message and RoundingMode(word) not in self.allowed):
            suffix = f", got: '{word}'" if self.strict_message else ""
            parser.raise_error(f"expected rounding mode to be one of: {allowed_text}{suffix}")
        return RoundingMode(word)


@dataclass(frozen=True)
class UnitFlag(Modifier):
    """`(`keyword` $flag^)?`: a unit attribute spelled as a keyword."""

    keyword: str
    prop: str

    def syntax(self) -> str:
        return f"[{self.keyword}]"

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

    def syntax(self) -> str:
        return " ".join(f"[{k}]" for k, _ in self.flags) + " (any order)"

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

    def syntax(self) -> str:
        return f"[overflow<{'|'.join(o.value for o in Overflow if o is not Overflow.NONE)}>]"

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

    def syntax(self) -> str:
        return "signed|unsigned"

    def print(self, f: AsmFormat, op: Operation) -> None:
        s = op.properties[self.prop]
        assert isinstance(s, SignednessAttr)
        f.keyword(s.data.value)

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        word = parse_keyword_enum(
            parser,
            ("signed", "unsigned"),
            "expected signedness to be one of: {'signed', 'unsigned'}",
        )
        props[self.prop] = SignednessAttr(Signedness(word))


@dataclass(frozen=True)
class OptionalKeywordRounding(Modifier):
    """`(`rounding` `` $rounding^)?` on an attribute with a default (divi)."""

    allowed: tuple[RoundingMode, ...]
    default: RoundingMode
    prop: str = "rounding"

    def syntax(self) -> str:
        return f"[rounding<{'|'.join(m.value for m in self.allowed)}>]"

    def print(self, f: AsmFormat, op: Operation) -> None:
        mode = op.properties.get(self.prop)
        if isinstance(mode, RoundingModeAttr) and mode.data != self.default:
            f.literal("rounding")
            f.printer.print_string(f"<{mode.data.value}>")
            f.after_variable()

    def parse(self, parser: Parser, props: dict[str, Attribute]) -> None:
        props[self.prop] = RoundingModeAttr(
            RoundingDirective(
                self.allowed, self.default, self.prop, strict_message=False
            ).parse_mode(parser)
        )


def print_modifiers(f: AsmFormat, op: Operation, modifiers: Sequence[Modifier]) -> None:
    for m in modifiers:
        m.print(f, op)


def parse_modifiers(
    parser: Parser, modifiers: Sequence[Modifier], props: dict[str, Attribute]
) -> None:
    for m in modifiers:
        m.parse(parser, props)


# ---------------------------------------------------------------------------
# Diagnostics helpers.
# ---------------------------------------------------------------------------


def types_text(types: Iterable[Attribute]) -> str:
    """Types as MLIR streams a `TypeRange` into a diagnostic: `'T1', 'T2'`."""
    return ", ".join(f"'{t}'" for t in types)


def nested_ops_verify(op: Operation) -> bool:
    """Whether every op nested in `op` verifies."""
    for child in op.walk():
        if child is op:
            continue
        try:
            child.verify(verify_nested_ops=False)
        except (VerifyException, CompileError):
            return False
    return True


def raise_after_nested(op: CudaTileOp, message: str, *, prefixed: bool = True) -> None:
    """Report a region rule the way MLIR's region verifiers do: after the ops inside
    the regions.  When one of them fails, stay silent: the walk reports that op (at
    its own location) instead."""
    if nested_ops_verify(op):
        raise op.op_error(message) if prefixed else VerifyException(message)


class VerifyDiagnostics(CompileError):
    """Diagnostics a verifier reports that one `VerifyException` cannot carry: several
    of them (MLIR's inferred-type check emits two), or one located at another op than
    the one being verified (a region rule blaming an op inside the region).  Drivers
    see a located `CompileError`; `errors` holds each diagnostic."""

    def __init__(self, errors: Sequence[CompileError]):
        super().__init__(errors[0].message, errors[0].location)
        self.errors = list(errors)

    def format(self, style: str = "mlir") -> str:
        lines: list[str] = []
        for e in self.errors:
            lines.append(CompileError.format(e, style))
            for note in getattr(e, "notes", ()):
                lines.append(CompileError.format(note, style).replace(": error: ", ": note: ", 1))
        return "\n".join(lines)


def op_diagnostic(
    op: Operation, message: str, notes: Sequence[tuple[Operation, str]] = ()
) -> CompileError:
    """`message` about `op` (prefixed as emitOpError does), at `op`'s location, with
    notes attached to other ops."""
    error = CompileError(f"'{op.name}' op {message}", location_of(op))
    error.notes = [CompileError(text, location_of(at)) for at, text in notes]  # pyright: ignore[reportAttributeAccessIssue]
    return error
