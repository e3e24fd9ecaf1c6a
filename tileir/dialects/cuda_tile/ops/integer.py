"""Integer and bitwise ops (NVIDIA groups Int and Bit) on tiles of i1, i8, i16, i32
and i64.

Integers are two's-complement bit patterns; an op's `signed`/`unsigned` keyword says
how to interpret them.  `overflow<no_signed_wrap|no_unsigned_wrap|no_wrap>` promises
that the result does not wrap (a poison-free assumption later passes may use); the
default `none` makes wrapping well defined.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, prop_def

from tileir.dialects.cuda_tile.attributes import (
    ComparisonPredicate,
    ComparisonPredicateAttr,
    Overflow,
    OverflowAttr,
    RoundingMode,
    RoundingModeAttr,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.cuda_tile.ops.base import (
    BOOL,
    INTEGER,
    OptionalKeywordRounding,
    OverflowFlag,
    SignednessDirective,
)
from tileir.dialects.cuda_tile.ops.elementwise import ElementwiseOp, Signature
from tileir.dialects.cuda_tile.ops.floating_point import PredicateDirective


class IntegerOp(ElementwiseOp):
    OPERAND_ELEMENTS: ClassVar = INTEGER
    GROUP: ClassVar[str] = "Integer"

    @property
    def is_signed(self) -> bool:
        s = self.properties.get("signedness")
        return isinstance(s, SignednessAttr) and s.data is Signedness.SIGNED

    @property
    def overflow_flag(self) -> Overflow:
        o = self.properties.get("overflow")
        return o.data if isinstance(o, OverflowAttr) else Overflow.NONE


class OverflowIntegerOp(IntegerOp):
    """`%lhs, %rhs [overflow<OVF>] : T`."""

    overflow = prop_def(OverflowAttr, default_value=OverflowAttr(Overflow.NONE))
    MODIFIERS: ClassVar = (OverflowFlag(),)

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"overflow": OverflowAttr(Overflow.NONE)}


@irdl_op_definition
class AddIOp(OverflowIntegerOp):
    name = "cuda_tile.addi"


@irdl_op_definition
class SubIOp(OverflowIntegerOp):
    name = "cuda_tile.subi"


@irdl_op_definition
class MulIOp(OverflowIntegerOp):
    name = "cuda_tile.muli"


@irdl_op_definition
class ShLIOp(OverflowIntegerOp):
    """Shift left; shift amounts >= the bit width give 0."""

    name = "cuda_tile.shli"


@irdl_op_definition
class NegIOp(OverflowIntegerOp):
    """Two's-complement negation; `overflow<no_signed_wrap>` promises the operand is not
    the minimum value."""

    name = "cuda_tile.negi"
    FIELD_SINCE: ClassVar[dict[str, str]] = {"overflow": "13.2"}
    OPERANDS: ClassVar = ("source",)

    def verify_modifiers(self) -> None:
        if self.overflow_flag is Overflow.NO_UNSIGNED_WRAP:
            # The op has signed semantics.
            raise self.op_error("'no_unsigned_wrap' overflow flag is not supported")


class SignedIntegerOp(IntegerOp):
    """`%lhs, %rhs signed|unsigned : T`."""

    signedness = prop_def(SignednessAttr)
    MODIFIERS: ClassVar = (SignednessDirective(),)


@irdl_op_definition
class MaxIOp(SignedIntegerOp):
    name = "cuda_tile.maxi"


@irdl_op_definition
class MinIOp(SignedIntegerOp):
    name = "cuda_tile.mini"


@irdl_op_definition
class RemIOp(SignedIntegerOp):
    """Remainder with the sign of the dividend (C `%`)."""

    name = "cuda_tile.remi"


@irdl_op_definition
class ShRIOp(SignedIntegerOp):
    """Shift right: arithmetic when signed, logical when unsigned."""

    name = "cuda_tile.shri"


INTEGER_DIV_MODES = (RoundingMode.ZERO, RoundingMode.POSITIVE_INF, RoundingMode.NEGATIVE_INF)


@irdl_op_definition
class DivIOp(IntegerOp):
    """`%lhs, %rhs signed|unsigned [rounding<zero|positive_inf|negative_inf>] : T`:
    division rounding the quotient as asked (default toward zero)."""

    name = "cuda_tile.divi"
    signedness = prop_def(SignednessAttr)
    rounding = prop_def(RoundingModeAttr, default_value=RoundingModeAttr(RoundingMode.ZERO))
    MODIFIERS: ClassVar = (
        SignednessDirective(),
        OptionalKeywordRounding(INTEGER_DIV_MODES, RoundingMode.ZERO),
    )

    @classmethod
    def default_properties(cls) -> dict[str, Attribute]:
        return {"rounding": RoundingModeAttr(RoundingMode.ZERO)}

    def verify_modifiers(self) -> None:
        mode = self.rounding.data
        if mode not in INTEGER_DIV_MODES:
            raise self.op_error(
                "invalid rounding mode specified, expect one of [zero, negative_inf, positive_inf]"
            )
        if mode is RoundingMode.NEGATIVE_INF and not self.is_signed:
            raise self.op_error("rounding mode 'negative_inf' is not allowed with 'unsigned' flag")


@irdl_op_definition
class MulhiIOp(IntegerOp):
    """The high half of the full-width unsigned product."""

    name = "cuda_tile.mulhii"
    OPERANDS: ClassVar = ("x", "y")


@irdl_op_definition
class AbsIOp(IntegerOp):
    name = "cuda_tile.absi"
    OPERANDS: ClassVar = ("source",)


@irdl_op_definition
class AndIOp(IntegerOp):
    GROUP: ClassVar[str] = "Bitwise"
    name = "cuda_tile.andi"


@irdl_op_definition
class OrIOp(IntegerOp):
    GROUP: ClassVar[str] = "Bitwise"
    name = "cuda_tile.ori"


@irdl_op_definition
class XOrIOp(IntegerOp):
    GROUP: ClassVar[str] = "Bitwise"
    name = "cuda_tile.xori"


@irdl_op_definition
class CmpIOp(IntegerOp):
    """`PRED %lhs, %rhs, signed|unsigned : T -> T(i1)`."""

    name = "cuda_tile.cmpi"
    SYNTAX: ClassVar[str] = "PRED %lhs, %rhs, signed|unsigned [{attrs}] : T -> R"
    SIGNATURE: ClassVar = Signature.COMPARE
    RESULT_ELEMENTS: ClassVar = BOOL
    comparison_predicate = prop_def(ComparisonPredicateAttr)
    signedness = prop_def(SignednessAttr)
    PREFIX_MODIFIERS: ClassVar = (PredicateDirective(),)

    @property
    def predicate(self) -> ComparisonPredicate:
        return self.comparison_predicate.data

    def print(self, printer) -> None:
        # `cmpi PRED %lhs, %rhs, signed : ...`: the signedness follows a comma.
        from tileir.dialects.cuda_tile.syntax import AsmFormat

        f = AsmFormat(printer)
        PredicateDirective().print(f, self)
        f.operand(self.args[0])
        f.literal(",")
        f.operand(self.args[1])
        f.literal(",")
        SignednessDirective().print(f, self)
        f.attr_dict(self)
        f.literal(":")
        f.type(self.args[0].type)
        f.literal("->")
        f.type(self.result.type)

    @classmethod
    def parse(cls, parser):
        from tileir.dialects.cuda_tile.syntax import parse_cuda_tile_type

        props: dict[str, Attribute] = {}
        PredicateDirective().parse(parser, props)
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        SignednessDirective().parse(parser, props)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        parser.parse_punctuation("->")
        r = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(lhs, t), parser.resolve_operand(rhs, t)],
            result_types=[r],
            properties=props,
            attributes=attributes,
        )


INTEGER_OPS = [
    AddIOp,
    SubIOp,
    MulIOp,
    ShLIOp,
    NegIOp,
    MaxIOp,
    MinIOp,
    RemIOp,
    ShRIOp,
    DivIOp,
    MulhiIOp,
    AbsIOp,
    AndIOp,
    OrIOp,
    XOrIOp,
    CmpIOp,
]
