"""Attributes of the cuda_tile dialect.

Two storage kinds exist, exactly as in NVIDIA's dialect (they matter for the generic
form and for bytecode):

* dialect enum attributes that print as ``#cuda_tile.NAME<value>`` (rounding,
  signedness, overflow, comparison predicate/ordering, padding value, symbol
  visibility);
* plain ``i32`` integer attributes holding an enum value (memory ordering
  semantics, memory scope, atomic mode).  They print as ``0 : i32`` in the generic
  form and as keywords (``weak``, ``device``) in the custom form.

The assume predicates (``div_by``, ``same_elements``, ``bounded``) and the
``optimization_hints`` dictionary are parametrized attributes with the printed forms
of NVIDIA's dialect.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Generic, cast

from typing_extensions import TypeVar
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    i32,
)
from xdsl.ir import Attribute, Data, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

# ---------------------------------------------------------------------------
# Enumerations.  The member order is the integer encoding used by bytecode and by
# the plain-i32 attributes.
# ---------------------------------------------------------------------------


class RoundingMode(StrEnum):
    NEAREST_EVEN = "nearest_even"
    ZERO = "zero"
    NEGATIVE_INF = "negative_inf"
    POSITIVE_INF = "positive_inf"
    APPROX = "approx"
    FULL = "full"
    NEAREST_INT_TO_ZERO = "nearest_int_to_zero"
    #: cuda_tile 13.4 (bytecode value 7): round to nearest, ties away from zero.
    NEAREST_AWAY = "nearest_away"


class Signedness(StrEnum):
    UNSIGNED = "unsigned"
    SIGNED = "signed"


class Overflow(StrEnum):
    NONE = "none"
    NO_SIGNED_WRAP = "no_signed_wrap"
    NO_UNSIGNED_WRAP = "no_unsigned_wrap"
    NO_WRAP = "no_wrap"


class ComparisonPredicate(StrEnum):
    EQUAL = "equal"
    NOT_EQUAL = "not_equal"
    LESS_THAN = "less_than"
    LESS_THAN_OR_EQUAL = "less_than_or_equal"
    GREATER_THAN = "greater_than"
    GREATER_THAN_OR_EQUAL = "greater_than_or_equal"


class ComparisonOrdering(StrEnum):
    UNORDERED = "unordered"
    ORDERED = "ordered"


class PaddingValue(StrEnum):
    ZERO = "zero"
    NEG_ZERO = "neg_zero"
    NAN = "nan"
    POS_INF = "pos_inf"
    NEG_INF = "neg_inf"


class SymbolVisibility(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"


class MemoryOrderingSemantics(StrEnum):
    WEAK = "weak"
    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"


class MemoryScope(StrEnum):
    TL_BLK = "tl_blk"
    DEVICE = "device"
    SYS = "sys"


class AtomicRMWMode(StrEnum):
    AND = "and"
    OR = "or"
    XOR = "xor"
    ADD = "add"
    ADDF = "addf"
    MAX = "max"
    MIN = "min"
    UMAX = "umax"
    UMIN = "umin"
    XCHG = "xchg"


EnumT = TypeVar("EnumT", bound=StrEnum)


def enum_index(value: StrEnum) -> int:
    """The integer encoding of an enum member (its declaration index)."""
    return list(type(value)).index(value)


def enum_from_index(enum: type[EnumT], index: int) -> EnumT:
    members = list(enum)
    if not 0 <= index < len(members):
        raise ValueError(f"{index} is not a valid {enum.__name__} value")
    return members[index]


# ---------------------------------------------------------------------------
# Dialect enum attributes: `#cuda_tile.NAME<value>`.
# ---------------------------------------------------------------------------


class CudaTileEnumAttr(Data[EnumT], Generic[EnumT]):
    """Base of the `#cuda_tile.NAME<value>` enum attributes."""

    enum_type: ClassVar[type[StrEnum]]

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> EnumT:
        with parser.in_angle_brackets():
            return cast(EnumT, parser.parse_str_enum(cls.enum_type))

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)

    @property
    def keyword(self) -> str:
        return self.data.value


@irdl_attr_definition
class RoundingModeAttr(CudaTileEnumAttr[RoundingMode]):
    name = "cuda_tile.rounding"
    enum_type = RoundingMode


@irdl_attr_definition
class SignednessAttr(CudaTileEnumAttr[Signedness]):
    name = "cuda_tile.signedness"
    enum_type = Signedness


@irdl_attr_definition
class OverflowAttr(CudaTileEnumAttr[Overflow]):
    name = "cuda_tile.overflow"
    enum_type = Overflow


@irdl_attr_definition
class ComparisonPredicateAttr(CudaTileEnumAttr[ComparisonPredicate]):
    name = "cuda_tile.comparison_predicate"
    enum_type = ComparisonPredicate


@irdl_attr_definition
class ComparisonOrderingAttr(CudaTileEnumAttr[ComparisonOrdering]):
    name = "cuda_tile.comparison_ordering"
    enum_type = ComparisonOrdering


@irdl_attr_definition
class SymbolVisibilityAttr(CudaTileEnumAttr[SymbolVisibility]):
    name = "cuda_tile.symbol_visibility"
    enum_type = SymbolVisibility


@irdl_attr_definition
class PaddingValueAttr(CudaTileEnumAttr[PaddingValue]):
    """Only ever appears inside view types; standalone it prints as NVIDIA's does,
    `#cuda_tile<padding_value zero>`."""

    name = "cuda_tile.padding_value"
    enum_type = PaddingValue


# ---------------------------------------------------------------------------
# Plain i32 enum attributes.
# ---------------------------------------------------------------------------


def i32_enum_attr(value: StrEnum) -> IntegerAttr[IntegerType]:
    return IntegerAttr(enum_index(value), i32)


def enum_of_i32_attr(enum: type[EnumT], attr: Attribute) -> EnumT:
    if not isinstance(attr, IntegerAttr):
        raise VerifyException(f"expected an i32 enum value, got {attr}")
    return enum_from_index(enum, attr.value.data)


# ---------------------------------------------------------------------------
# Assume predicates.
# ---------------------------------------------------------------------------

#: Sentinel for an absent `bounded` bound (`?`).
UNBOUNDED = None


@irdl_attr_definition
class DivByAttr(ParametrizedAttribute):
    """`#cuda_tile.div_by<D>` or `#cuda_tile.div_by<D, every E along A>`: the value (or
    every E-th element along dimension A) is divisible by D."""

    name = "cuda_tile.div_by"

    divisor: IntAttr
    every: IntAttr | NoneAttr
    along: IntAttr | NoneAttr

    def __init__(self, divisor: int, every: int | None = None, along: int | None = None):
        super().__init__(
            IntAttr(divisor),
            NoneAttr() if every is None else IntAttr(every),
            NoneAttr() if along is None else IntAttr(along),
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            divisor = parser.parse_integer(allow_boolean=False)
            every: Attribute = NoneAttr()
            along: Attribute = NoneAttr()
            if parser.parse_optional_punctuation(","):
                parser.parse_keyword("every")
                every = IntAttr(parser.parse_integer(allow_boolean=False))
                parser.parse_keyword("along")
                along = IntAttr(parser.parse_integer(allow_boolean=False))
        return (IntAttr(divisor), every, along)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.divisor.data}")
        if isinstance(self.every, IntAttr) and isinstance(self.along, IntAttr):
            printer.print_string(f", every {self.every.data} along {self.along.data}")
        printer.print_string(">")

    @property
    def every_value(self) -> int | None:
        return self.every.data if isinstance(self.every, IntAttr) else None

    @property
    def along_value(self) -> int | None:
        return self.along.data if isinstance(self.along, IntAttr) else None


@irdl_attr_definition
class SameElementsAttr(ParametrizedAttribute):
    """`#cuda_tile.same_elements<[a, b]>`: groups of `a` x `b` consecutive elements hold
    the same value."""

    name = "cuda_tile.same_elements"

    values: ArrayAttr[IntAttr]

    def __init__(self, values: Sequence[int]):
        super().__init__(ArrayAttr([IntAttr(v) for v in values]))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            values = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
            )
        return (ArrayAttr([IntAttr(v) for v in values]),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<[" + ", ".join(str(v.data) for v in self.values) + "]>")


@irdl_attr_definition
class BoundedAttr(ParametrizedAttribute):
    """`#cuda_tile.bounded<lb, ub>` with `?` for an absent bound."""

    name = "cuda_tile.bounded"

    lower: IntAttr | NoneAttr
    upper: IntAttr | NoneAttr

    def __init__(self, lower: int | None, upper: int | None):
        super().__init__(
            NoneAttr() if lower is None else IntAttr(lower),
            NoneAttr() if upper is None else IntAttr(upper),
        )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        def bound() -> Attribute:
            if parser.parse_optional_punctuation("?"):
                return NoneAttr()
            return IntAttr(parser.parse_integer(allow_boolean=False))

        with parser.in_angle_brackets():
            lower = bound()
            parser.parse_punctuation(",")
            upper = bound()
        return (lower, upper)

    def print_parameters(self, printer: Printer) -> None:
        def text(b: IntAttr | NoneAttr) -> str:
            return "?" if isinstance(b, NoneAttr) else str(b.data)

        printer.print_string(f"<{text(self.lower)}, {text(self.upper)}>")

    @property
    def lower_value(self) -> int | None:
        return self.lower.data if isinstance(self.lower, IntAttr) else None

    @property
    def upper_value(self) -> int | None:
        return self.upper.data if isinstance(self.upper, IntAttr) else None


AssumePredicate = DivByAttr | SameElementsAttr | BoundedAttr

# ---------------------------------------------------------------------------
# Optimization hints: `optimization_hints=<sm_90 = {k = v}, default = {}>`.
# ---------------------------------------------------------------------------

OPTIMIZATION_HINT_TARGETS = (
    "sm_80",
    "sm_86",
    "sm_87",
    "sm_88",
    "sm_89",
    "sm_90",
    "sm_100",
    "sm_103",
    "sm_110",
    "sm_120",
    "sm_121",
    "default",
)


@irdl_attr_definition
class OptimizationHintsAttr(ParametrizedAttribute):
    """Per-target hint dictionaries.  The printed form is NVIDIA's: target keys in
    angle brackets, each bound to a dictionary (`<sm_90 = {num_cta_in_cga = 2}>`)."""

    name = "cuda_tile.optimization_hints"

    hints: DictionaryAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return (parse_optimization_hints_body(parser),)

    def print_parameters(self, printer: Printer) -> None:
        print_optimization_hints_body(printer, self)

    def for_target(self, target: str) -> DictionaryAttr | None:
        """The hint dictionary for `target` (e.g. "sm_90"), else the `default` one."""
        data = self.hints.data
        hint = data.get(target, data.get("default"))
        return hint if isinstance(hint, DictionaryAttr) else None


def parse_optimization_hints_body(parser: AttrParser) -> DictionaryAttr:
    """`<key = {hints}, ...>`; keys are keywords or strings, values dictionaries.
    Unknown targets and hints are accepted here; `hints.verify_optimization_hints`
    judges them."""
    entries: dict[str, Attribute] = {}

    def entry() -> None:
        pos = parser.pos
        key = parser.parse_optional_identifier_or_str_literal()
        if key is None:
            parser.raise_error("expected valid keyword or string", pos, max(parser.pos, pos + 1))
        parser.parse_punctuation("=")
        value = parser.parse_attribute()
        if key in entries:
            parser.raise_error(f"duplicate optimization_hints key `{key}`")
        if not isinstance(value, DictionaryAttr):
            parser.raise_error(
                f"expected dictionary attribute for optimization_hints entry `{key}` got "
                f"value={attribute_text(value)}"
            )
        entries[key] = value

    parser.parse_punctuation("<")
    if parser.parse_optional_punctuation(">") is None:
        parser.parse_comma_separated_list(parser.Delimiter.NONE, entry)
        parser.parse_punctuation(">")
    return DictionaryAttr(entries)


def attribute_text(attr: Attribute) -> str:
    """An attribute as MLIR prints it in a diagnostic (`2 : i64`, `"a"`)."""
    return str(attr)


def print_optimization_hints_body(printer: Printer, attr: OptimizationHintsAttr) -> None:
    printer.print_string("<")
    for i, (key, value) in enumerate(attr.hints.data.items()):
        if i:
            printer.print_string(", ")
        printer.print_identifier_or_string_literal(key)
        printer.print_string(" = ")
        if isinstance(value, DictionaryAttr):
            print_mlir_dict(printer, value)
        else:
            printer.print_attribute(value)
    printer.print_string(">")


def print_attribute_without_type(printer: Printer, value: Attribute) -> None:
    """MLIR's `printAttributeWithoutType`: integers and floats without their type,
    booleans as `true`/`false`."""
    if isinstance(value, IntegerAttr):
        if value.type == IntegerType(1):
            printer.print_string("true" if value.value.data else "false")
        else:
            printer.print_string(str(value.value.data))
        return
    printer.print_attribute(value)


def print_mlir_dict(printer: Printer, attr: DictionaryAttr) -> None:
    """A dictionary of hints as NVIDIA prints it: values without their type
    (`{latency = 3, allow_tma = true}`)."""
    printer.print_string("{")
    for i, (key, value) in enumerate(attr.data.items()):
        if i:
            printer.print_string(", ")
        printer.print_identifier_or_string_literal(key)
        printer.print_string(" = ")
        print_attribute_without_type(printer, value)
    printer.print_string("}")


ATTRIBUTES: list[type[Attribute]] = [
    RoundingModeAttr,
    SignednessAttr,
    OverflowAttr,
    ComparisonPredicateAttr,
    ComparisonOrderingAttr,
    SymbolVisibilityAttr,
    PaddingValueAttr,
    DivByAttr,
    SameElementsAttr,
    BoundedAttr,
    OptimizationHintsAttr,
]
