"""Conversion ops (NVIDIA group Conv): `%from [modifiers] : T -> R`, elementwise, the
shape unchanged."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import Float8E8M0FNUType, IntegerType
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def

from tileir.dialects.cuda_tile.attributes import (
    Overflow,
    OverflowAttr,
    RoundingMode,
    RoundingModeAttr,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.ops.base import (
    ANY_FLOAT,
    I64,
    IEEE_MODES,
    INTEGER,
    NUMBER,
    POINTER,
    ElementSet,
    OverflowFlag,
    RoundingDirective,
    SignednessDirective,
)
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp, Signature
from tileir.utils.bits import POINTER_BITS, mlir_bit_width

INT_OR_I4 = ElementSet(
    "i1 or i8 or i16 or i32 or i64 or i4",
    lambda t: isinstance(t, IntegerType) and t.width.data in (1, 4, 8, 16, 32, 64),
)


def bit_width(t: Attribute) -> int:
    """MLIR's width of `t`'s elements; a pointer counts 64 (bitcasts to and from i64)."""
    return mlir_bit_width(element_type(t)) or POINTER_BITS


class ConversionOp(ElementwiseOp):
    OPERANDS: ClassVar = ("from",)
    RESULT_NAME: ClassVar[str] = "to"
    SIGNATURE: ClassVar = Signature.CONVERT
    GROUP: ClassVar[str] = "Conversions"


@irdl_op_definition
class BitcastOp(ConversionOp):
    """Reinterpret the bits of each element as another type of the same width."""

    name = "cuda_tile.bitcast"
    OPERANDS: ClassVar = ("source",)
    RESULT_NAME: ClassVar[str] = "result"
    OPERAND_ELEMENTS: ClassVar = NUMBER
    RESULT_ELEMENTS: ClassVar = NUMBER

    def verify_modifiers(self) -> None:
        src, res = self.args[0].type, self.result.type
        if bit_width(src) != bit_width(res):
            raise self.op_error(
                f"types must be equal width, cannot convert '{src}' of width {bit_width(src)} "
                f"to type '{res}' of width {bit_width(res)}"
            )


@irdl_op_definition
class ExtIOp(ConversionOp):
    """`%from signed|unsigned : T -> R`: sign- or zero-extend to a wider integer."""

    name = "cuda_tile.exti"
    OPERAND_ELEMENTS: ClassVar = INT_OR_I4
    RESULT_ELEMENTS: ClassVar = INT_OR_I4
    signedness = prop_def(SignednessAttr)
    MODIFIERS: ClassVar = (SignednessDirective(),)

    def verify_modifiers(self) -> None:
        if bit_width(self.result.type) <= bit_width(self.args[0].type):
            raise self.op_error("extending to smaller or identical integer")


@irdl_op_definition
class TruncIOp(ConversionOp):
    """`%from [overflow<OVF>] : T -> R`: keep the low bits."""

    name = "cuda_tile.trunci"
    OPERAND_ELEMENTS: ClassVar = INT_OR_I4
    RESULT_ELEMENTS: ClassVar = INT_OR_I4
    overflow = prop_def(OverflowAttr, default_value=OverflowAttr(Overflow.NONE))
    MODIFIERS: ClassVar = (OverflowFlag(),)

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"overflow": OverflowAttr(Overflow.NONE)}

    def verify_modifiers(self) -> None:
        if bit_width(self.result.type) >= bit_width(self.args[0].type):
            raise self.op_error("truncating to larger or identical integer")


#: The directed rounding modes a narrowing `ftof` accepts besides nearest_even.
DIRECTED_MODES = (RoundingMode.ZERO, RoundingMode.NEGATIVE_INF, RoundingMode.POSITIVE_INF)


@irdl_op_definition
class FToFOp(ConversionOp):
    """`%from [rounding<RM>] : T -> R`: float to float, rounding to nearest even (to
    f8E8M0FNU: toward zero or +inf).  A narrowing conversion may also round toward
    zero, -inf or +inf, or to nearest with ties away from zero (`nearest_away`)
    (cuda_tile 13.4; cuTile 1.7 writes `rounding<zero>`, `rounding<nearest_away>` and
    the like for `astype` with a rounding mode); widening is exact and keeps
    `nearest_even`."""

    name = "cuda_tile.ftof"
    OPERAND_ELEMENTS: ClassVar = ANY_FLOAT
    RESULT_ELEMENTS: ClassVar = ANY_FLOAT
    rounding_mode = prop_def(
        RoundingModeAttr, default_value=RoundingModeAttr(RoundingMode.NEAREST_EVEN)
    )
    MODIFIERS: ClassVar = (RoundingDirective((*IEEE_MODES, RoundingMode.NEAREST_AWAY)),)

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"rounding_mode": RoundingModeAttr(RoundingMode.NEAREST_EVEN)}

    def verify_modifiers(self) -> None:
        if self.args[0].type == self.result.type:
            raise self.op_error("converting tiles must not be a no-op")
        dst = element_type(self.result.type)
        mode = self.rounding_mode.data
        if isinstance(dst, Float8E8M0FNUType):
            if mode not in (RoundingMode.ZERO, RoundingMode.POSITIVE_INF):
                raise self.op_error(
                    "invalid rounding mode specified for conversion to f8E8M0FNU. Only "
                    "'zero' and 'positive_inf' are supported"
                )
        elif mode is RoundingMode.NEAREST_EVEN:
            return
        elif bit_width(self.result.type) >= bit_width(self.args[0].type):
            raise self.op_error("invalid rounding mode specified. Only 'nearest_even' is supported")
        elif mode not in (*DIRECTED_MODES, RoundingMode.NEAREST_AWAY):
            raise self.op_error(
                "invalid rounding mode specified for a narrowing conversion. Only "
                "'nearest_even', 'zero', 'negative_inf', 'positive_inf' and 'nearest_away' "
                "are supported"
            )


@irdl_op_definition
class FToIOp(ConversionOp):
    """`%from signed|unsigned : T -> R`: float to integer, rounding toward zero;
    out-of-range values saturate and NaN gives 0."""

    name = "cuda_tile.ftoi"
    OPERAND_ELEMENTS: ClassVar = ANY_FLOAT
    RESULT_ELEMENTS: ClassVar = INTEGER
    signedness = prop_def(SignednessAttr)
    rounding_mode = prop_def(
        RoundingModeAttr, default_value=RoundingModeAttr(RoundingMode.NEAREST_INT_TO_ZERO)
    )
    MODIFIERS: ClassVar = (
        SignednessDirective(),
        RoundingDirective((RoundingMode.NEAREST_INT_TO_ZERO,), RoundingMode.NEAREST_INT_TO_ZERO),
    )

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"rounding_mode": RoundingModeAttr(RoundingMode.NEAREST_INT_TO_ZERO)}

    def verify_modifiers(self) -> None:
        if self.rounding_mode.data is not RoundingMode.NEAREST_INT_TO_ZERO:
            raise self.op_error(
                "invalid rounding mode specified. Only 'nearest_int_to_zero' is supported"
            )


@irdl_op_definition
class IToFOp(ConversionOp):
    """`%from signed|unsigned : T -> R`: integer to float, rounding to nearest even."""

    name = "cuda_tile.itof"
    OPERAND_ELEMENTS: ClassVar = INTEGER
    RESULT_ELEMENTS: ClassVar = ANY_FLOAT
    signedness = prop_def(SignednessAttr)
    rounding_mode = prop_def(
        RoundingModeAttr, default_value=RoundingModeAttr(RoundingMode.NEAREST_EVEN)
    )
    MODIFIERS: ClassVar = (SignednessDirective(), RoundingDirective(IEEE_MODES))

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"rounding_mode": RoundingModeAttr(RoundingMode.NEAREST_EVEN)}

    def verify_modifiers(self) -> None:
        if isinstance(element_type(self.result.type), Float8E8M0FNUType):
            raise self.op_error(
                "integer to f8E8M0FNU conversion is not supported, please first convert to "
                "another float type"
            )
        if self.rounding_mode.data is not RoundingMode.NEAREST_EVEN:
            raise self.op_error("invalid rounding mode specified. Only 'nearest_even' is supported")


@irdl_op_definition
class IntToPtrOp(ConversionOp):
    name = "cuda_tile.int_to_ptr"
    OPERANDS: ClassVar = ("source",)
    RESULT_NAME: ClassVar[str] = "result"
    OPERAND_ELEMENTS: ClassVar = I64
    RESULT_ELEMENTS: ClassVar = POINTER


@irdl_op_definition
class PtrToIntOp(ConversionOp):
    name = "cuda_tile.ptr_to_int"
    OPERANDS: ClassVar = ("source",)
    RESULT_NAME: ClassVar[str] = "result"
    OPERAND_ELEMENTS: ClassVar = POINTER
    RESULT_ELEMENTS: ClassVar = I64


@irdl_op_definition
class PtrToPtrOp(ConversionOp):
    """Reinterpret a pointer tile as pointers to another element type."""

    name = "cuda_tile.ptr_to_ptr"
    OPERANDS: ClassVar = ("source",)
    RESULT_NAME: ClassVar[str] = "result"
    OPERAND_ELEMENTS: ClassVar = POINTER
    RESULT_ELEMENTS: ClassVar = POINTER


def signedness_of(op: ElementwiseOp) -> Signedness:
    s = op.properties.get("signedness")
    return s.data if isinstance(s, SignednessAttr) else Signedness.SIGNED


CONVERSION_OPS = [
    BitcastOp,
    ExtIOp,
    TruncIOp,
    FToFOp,
    FToIOp,
    IToFOp,
    IntToPtrOp,
    PtrToIntOp,
    PtrToPtrOp,
]
