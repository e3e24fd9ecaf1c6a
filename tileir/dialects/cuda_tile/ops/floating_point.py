"""Floating-point ops (NVIDIA group FP): elementwise arithmetic, math functions and
comparison on tiles of f16, bf16, f32 and f64.

Semantics, stated once for the whole family: each op applies IEEE-754 arithmetic of
the element type, elementwise.  `rounding<mode>` selects the IEEE rounding of the
result (default nearest_even); `flush_to_zero` (f32 only) flushes subnormal inputs and
results to sign-preserving zero; `rounding<approx>` (f32 only) permits the hardware's
approximate instruction and `rounding<full>` asks for a full-range accurate result.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.attributes import (
    ComparisonOrdering,
    ComparisonOrderingAttr,
    ComparisonPredicate,
    ComparisonPredicateAttr,
    RoundingMode,
    RoundingModeAttr,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.base import (
    BOOL,
    FLOAT,
    IEEE_MODES,
    INTEGER,
    CudaTileCanonicalization,
    FlagList,
    Modifier,
    RoundingDirective,
    UnitFlag,
    check_tile_of,
    is_f32,
)
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp, Signature
from tileir.dialects.cuda_tile.syntax import AsmFormat, parse_cuda_tile_type

FTZ = UnitFlag("flush_to_zero", "flush_to_zero")
IEEE_ROUNDING = RoundingDirective(IEEE_MODES)


class FloatOp(ElementwiseOp):
    """An elementwise op on floating-point tiles."""

    OPERAND_ELEMENTS: ClassVar = FLOAT
    GROUP: ClassVar[str] = "Floating Point"

    def rounding(self) -> RoundingMode:
        mode = self.properties.get("rounding_mode")
        return mode.data if isinstance(mode, RoundingModeAttr) else RoundingMode.NEAREST_EVEN

    @property
    def flush_to_zero(self) -> bool:
        return "flush_to_zero" in self.properties

    def check_ftz(self) -> None:
        if self.flush_to_zero and not is_f32(self.result.type):
            raise self.op_error(
                "flush_to_zero modifier only supported for f32 data type, but got: "
                f"'{element_type(self.result.type)}'"
            )

    def check_ieee_rounding(self) -> None:
        if self.rounding() not in IEEE_MODES:
            raise self.op_error(
                "invalid rounding mode specified, expect one of [nearest_even, zero, "
                "negative_inf, positive_inf]"
            )


# ---------------------------------------------------------------------------
# Binary arithmetic with a rounding mode and flush_to_zero.
# ---------------------------------------------------------------------------


class RoundedFloatOp(FloatOp):
    """`%lhs, %rhs [rounding<RM>] [flush_to_zero] : T`."""

    rounding_mode = prop_def(RoundingModeAttr)
    flush_to_zero_flag = opt_prop_def(UnitAttr, prop_name="flush_to_zero")

    MODIFIERS: ClassVar[tuple[Modifier, ...]] = (IEEE_ROUNDING, FTZ)

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"rounding_mode": RoundingModeAttr(RoundingMode.NEAREST_EVEN)}

    def verify_modifiers(self) -> None:
        self.check_ieee_rounding()
        self.check_ftz()


@irdl_op_definition
class AddFOp(RoundedFloatOp):
    """Elementwise addition."""

    name = "cuda_tile.addf"
    traits = traits_def(Pure(), CudaTileCanonicalization())


@irdl_op_definition
class SubFOp(RoundedFloatOp):
    """Elementwise subtraction."""

    name = "cuda_tile.subf"


@irdl_op_definition
class MulFOp(RoundedFloatOp):
    """Elementwise multiplication."""

    name = "cuda_tile.mulf"


@irdl_op_definition
class FmaOp(RoundedFloatOp):
    """Fused multiply-add `lhs * rhs + acc` with a single rounding."""

    name = "cuda_tile.fma"
    OPERANDS: ClassVar = ("lhs", "rhs", "acc")


DIVF_MODES = (*IEEE_MODES, RoundingMode.APPROX, RoundingMode.FULL)


def check_div_sqrt_modifiers(op: FloatOp) -> None:
    """Shared by divf and sqrt: approx/full/flush_to_zero are f32 only."""
    mode = op.rounding()
    el = element_type(op.result.type)
    op.check_ftz()
    if mode is RoundingMode.APPROX and not is_f32(op.result.type):
        raise op.op_error(f"approx modifier only supported for f32 data type, but got: '{el}'")
    if mode is RoundingMode.FULL and not is_f32(op.result.type):
        raise op.op_error(f"full modifier only supported for f32 data type, but got: '{el}'")


@irdl_op_definition
class DivFOp(RoundedFloatOp):
    """Elementwise division; `rounding<approx>` and `rounding<full>` select the fast
    approximate and the full-range accurate f32 algorithms."""

    name = "cuda_tile.divf"
    MODIFIERS: ClassVar = (RoundingDirective(DIVF_MODES, strict_message=False), FTZ)

    def verify_modifiers(self) -> None:
        if self.rounding() not in DIVF_MODES:
            raise self.op_error(
                "invalid rounding mode specified, expect one of [nearest_even, zero, "
                "negative_inf, positive_inf, approx, full]"
            )
        check_div_sqrt_modifiers(self)


# ---------------------------------------------------------------------------
# Binary ops without modifiers.
# ---------------------------------------------------------------------------


@irdl_op_definition
class RemFOp(FloatOp):
    """Elementwise remainder with the sign of the dividend (C `fmod`)."""

    name = "cuda_tile.remf"


@irdl_op_definition
class PowOp(FloatOp):
    """Elementwise `source ** exponent`."""

    name = "cuda_tile.pow"
    OPERANDS: ClassVar = ("source", "exponent")


@irdl_op_definition
class FPowFOp(FloatOp):
    """Elementwise `source ** exponent` on floats: 13.4's name for `pow` (the same
    bytecode opcode, 0x54; cuTile 1.7 writes it for `ct.pow` and `**` on floats)."""

    name = "cuda_tile.fpowf"
    SINCE: ClassVar[str] = "13.4"
    OPERANDS: ClassVar = ("source", "exponent")


@irdl_op_definition
class FPowIOp(FloatOp):
    """`%source, %exponent : T, E`: elementwise `source ** exponent` with an integer
    exponent (a float tile and an integer tile of the same shape; the result has the
    source's type).  cuTile 1.7 writes it for `**` with an integer exponent."""

    name = "cuda_tile.fpowi"
    SINCE: ClassVar[str] = "13.4"
    SYNTAX: ClassVar[str] = "%source, %exponent [{attrs}] : T, E"
    OPERANDS: ClassVar = ("source", "exponent")

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.args[0])
        f.literal(",")
        f.operand(self.args[1])
        f.attr_dict(self)
        f.literal(":")
        f.type(self.args[0].type)
        f.literal(",")
        f.type(self.args[1].type)

    @classmethod
    def parse(cls, parser: Parser) -> FPowIOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        exponent = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        exponent_type = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[
                parser.resolve_operand(source, source_type),
                parser.resolve_operand(exponent, exponent_type),
            ],
            result_types=[source_type],
            attributes=attributes,
        )

    def verify_types(self) -> None:
        source, exponent = self.args
        check_tile_of(self, source, "operand #0", FLOAT)
        check_tile_of(self, exponent, "operand #1", INTEGER)
        check_tile_of(self, self.result, "result #0", FLOAT)
        if source.type != self.result.type:
            raise self.op_error("failed to verify that all of {source, result} have same type")
        if shape_of(exponent.type) != shape_of(source.type):
            raise self.op_error("failed to verify that all of {source, exponent} have same shape")


@irdl_op_definition
class Atan2Op(FloatOp):
    """Elementwise two-argument arctangent `atan2(x, y)`."""

    name = "cuda_tile.atan2"
    OPERANDS: ClassVar = ("x", "y")
    SINCE: ClassVar = "13.2"


class MinMaxFOp(FloatOp):
    """`%lhs, %rhs [flush_to_zero] [propagate_nan] : T`.  Without `propagate_nan` a NaN
    operand is ignored (IEEE maxNum/minNum); with it, NaN wins."""

    flush_to_zero_flag = opt_prop_def(UnitAttr, prop_name="flush_to_zero")
    propagate_nan = opt_prop_def(UnitAttr)
    MODIFIERS: ClassVar = (
        FlagList((("flush_to_zero", "flush_to_zero"), ("propagate_nan", "propagate_nan"))),
    )

    def verify_modifiers(self) -> None:
        self.check_ftz()


@irdl_op_definition
class MaxFOp(MinMaxFOp):
    name = "cuda_tile.maxf"


@irdl_op_definition
class MinFOp(MinMaxFOp):
    name = "cuda_tile.minf"


# ---------------------------------------------------------------------------
# Unary math.
# ---------------------------------------------------------------------------


class UnaryFloatOp(FloatOp):
    """`%source : T`."""

    OPERANDS: ClassVar = ("source",)


@irdl_op_definition
class AbsFOp(UnaryFloatOp):
    name = "cuda_tile.absf"


@irdl_op_definition
class NegFOp(UnaryFloatOp):
    name = "cuda_tile.negf"


@irdl_op_definition
class CeilOp(UnaryFloatOp):
    name = "cuda_tile.ceil"


@irdl_op_definition
class FloorOp(UnaryFloatOp):
    name = "cuda_tile.floor"


@irdl_op_definition
class CosOp(UnaryFloatOp):
    name = "cuda_tile.cos"


@irdl_op_definition
class CosHOp(UnaryFloatOp):
    name = "cuda_tile.cosh"


@irdl_op_definition
class SinOp(UnaryFloatOp):
    name = "cuda_tile.sin"


@irdl_op_definition
class SinHOp(UnaryFloatOp):
    name = "cuda_tile.sinh"


@irdl_op_definition
class TanOp(UnaryFloatOp):
    name = "cuda_tile.tan"


@irdl_op_definition
class LogOp(UnaryFloatOp):
    name = "cuda_tile.log"


@irdl_op_definition
class Log2Op(UnaryFloatOp):
    name = "cuda_tile.log2"


class FtzUnaryFloatOp(UnaryFloatOp):
    """`%source [flush_to_zero] : T`."""

    flush_to_zero_flag = opt_prop_def(UnitAttr, prop_name="flush_to_zero")
    MODIFIERS: ClassVar = (FTZ,)

    def verify_modifiers(self) -> None:
        self.check_ftz()


@irdl_op_definition
class Exp2Op(FtzUnaryFloatOp):
    """`2 ** source`."""

    name = "cuda_tile.exp2"


@irdl_op_definition
class RsqrtOp(FtzUnaryFloatOp):
    """`1 / sqrt(source)`."""

    name = "cuda_tile.rsqrt"


APPROX_FULL = (RoundingMode.APPROX, RoundingMode.FULL)


class ApproxOrFullOp(UnaryFloatOp):
    """`%source [rounding<approx|full>] : T`, default full."""

    rounding_mode = prop_def(RoundingModeAttr, default_value=RoundingModeAttr(RoundingMode.FULL))
    MODIFIERS: ClassVar = (RoundingDirective(APPROX_FULL, RoundingMode.FULL, strict_message=False),)

    def rounding(self) -> RoundingMode:
        mode = self.properties.get("rounding_mode")
        return mode.data if isinstance(mode, RoundingModeAttr) else RoundingMode.FULL

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"rounding_mode": RoundingModeAttr(RoundingMode.FULL)}

    def verify_modifiers(self) -> None:
        if self.rounding() not in APPROX_FULL:
            raise self.op_error("invalid rounding mode specified, expect one of [approx, full]")
        if self.rounding() is RoundingMode.APPROX and not is_f32(self.result.type):
            raise self.op_error(
                "approx modifier only supported for f32 data type, but got: "
                f"'{element_type(self.result.type)}'"
            )


@irdl_op_definition
class ExpOp(ApproxOrFullOp):
    """`e ** source`."""

    name = "cuda_tile.exp"
    FIELD_SINCE: ClassVar[dict[str, str]] = {"rounding_mode": "13.3"}


@irdl_op_definition
class TanHOp(ApproxOrFullOp):
    """Hyperbolic tangent."""

    name = "cuda_tile.tanh"
    FIELD_SINCE: ClassVar[dict[str, str]] = {"rounding_mode": "13.2"}


SQRT_MODES = (*IEEE_MODES, RoundingMode.APPROX)


@irdl_op_definition
class SqrtOp(UnaryFloatOp):
    """`%source [rounding<RM|approx>] [flush_to_zero] : T`: square root."""

    name = "cuda_tile.sqrt"
    rounding_mode = prop_def(RoundingModeAttr)
    flush_to_zero_flag = opt_prop_def(UnitAttr, prop_name="flush_to_zero")
    MODIFIERS: ClassVar = (RoundingDirective(SQRT_MODES, strict_message=False), FTZ)

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"rounding_mode": RoundingModeAttr(RoundingMode.NEAREST_EVEN)}

    def verify_modifiers(self) -> None:
        if self.rounding() not in SQRT_MODES:
            raise self.op_error(
                "invalid rounding mode specified, expect one of [nearest_even, zero, "
                "negative_inf, positive_inf, approx]"
            )
        check_div_sqrt_modifiers(self)


# ---------------------------------------------------------------------------
# Comparison.
# ---------------------------------------------------------------------------

PREDICATES = tuple(p.value for p in ComparisonPredicate)


class PredicateDirective(Modifier):
    """`custom<ComparisonPredicate>`."""

    def syntax(self) -> str:
        return "PRED"

    def print(self, f: AsmFormat, op: Operation) -> None:
        p = op.properties["comparison_predicate"]
        assert isinstance(p, ComparisonPredicateAttr)
        f.keyword(p.data.value)

    def parse(self, parser, props) -> None:
        from tileir.dialects.cuda_tile.syntax import parse_keyword_enum

        word = parse_keyword_enum(
            parser,
            PREDICATES,
            "expected 'comparison_predicate' to be one of: {'equal', 'not_equal', "
            "'less_than', 'less_than_or_equal', 'greater_than', 'greater_than_or_equal'}",
        )
        props["comparison_predicate"] = ComparisonPredicateAttr(ComparisonPredicate(word))


class OrderingDirective(Modifier):
    """`custom<ComparisonOrdering>`."""

    def syntax(self) -> str:
        return "ordered|unordered"

    def print(self, f: AsmFormat, op: Operation) -> None:
        o = op.properties["comparison_ordering"]
        assert isinstance(o, ComparisonOrderingAttr)
        f.keyword(o.data.value)

    def parse(self, parser, props) -> None:
        from tileir.dialects.cuda_tile.syntax import parse_keyword_enum

        word = parse_keyword_enum(
            parser,
            ("ordered", "unordered"),
            "expected 'comparison_ordering' to be one of: {'ordered', 'unordered'}",
        )
        props["comparison_ordering"] = ComparisonOrderingAttr(ComparisonOrdering(word))


@irdl_op_definition
class CmpFOp(FloatOp):
    """`PRED ordered|unordered %lhs, %rhs : T -> T(i1)`.  An ordered comparison is false
    when either operand is NaN, an unordered one true."""

    name = "cuda_tile.cmpf"
    SIGNATURE: ClassVar = Signature.COMPARE
    RESULT_ELEMENTS: ClassVar = BOOL
    comparison_predicate = prop_def(ComparisonPredicateAttr)
    comparison_ordering = prop_def(ComparisonOrderingAttr)
    PREFIX_MODIFIERS: ClassVar = (PredicateDirective(), OrderingDirective())

    @property
    def predicate(self) -> ComparisonPredicate:
        return self.comparison_predicate.data

    @property
    def ordered(self) -> bool:
        return self.comparison_ordering.data is ComparisonOrdering.ORDERED


FLOATING_POINT_OPS = [
    AddFOp,
    SubFOp,
    MulFOp,
    FmaOp,
    DivFOp,
    RemFOp,
    PowOp,
    Atan2Op,
    MaxFOp,
    MinFOp,
    AbsFOp,
    NegFOp,
    CeilOp,
    FloorOp,
    CosOp,
    CosHOp,
    SinOp,
    SinHOp,
    TanOp,
    LogOp,
    Log2Op,
    Exp2Op,
    RsqrtOp,
    ExpOp,
    TanHOp,
    SqrtOp,
    CmpFOp,
]

#: Ops of cuda_tile 13.4 that cuTile 1.7 writes (not in NVIDIA's 13.3 dialect).
FLOATING_POINT_OPS_13_4 = [FPowFOp, FPowIOp]
