"""A small builder for tile arithmetic on builtin carriers.

Lowering passes build index arithmetic (products, sums, comparisons, splats) over
tensors and scalars.  `TileBuilder` inserts the cuda_tile and nv_tileaa ops for it at
one insertion point, with the defaults of the ops themselves (no overflow flags, round
to nearest even), so that every pass spells index math the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerType, TensorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tileir.dialects.cuda_tile.attributes import (
    ComparisonPredicate,
    ComparisonPredicateAttr,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of, with_element
from tileir.dialects.cuda_tile.ops import (
    AddIOp,
    AndIOp,
    CmpIOp,
    ConstantOp,
    DivIOp,
    ExtIOp,
    IotaOp,
    MaxIOp,
    MinIOp,
    MulIOp,
    SubIOp,
    TruncIOp,
)
from tileir.dialects.nv_tileaa.ops import BroadcastOp, ExpandDimsOp, SplatOp


class TileBuilder:
    """Inserts ops at `insertion_point` and returns their results."""

    def __init__(self, rewriter: PatternRewriter, insertion_point: InsertPoint):
        self.rewriter = rewriter
        self.ip = insertion_point

    def insert(self, op: Operation) -> Operation:
        self.rewriter.insert(op, self.ip)
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.insert(op).results[0]

    # -- constants ----------------------------------------------------------
    def constant(self, value: int | float, carrier: Attribute) -> SSAValue:
        return self.value(ConstantOp.splat(value, carrier))

    # -- integer arithmetic -------------------------------------------------
    def addi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(AddIOp.build_op([a, b]))

    def subi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(SubIOp.build_op([a, b]))

    def muli(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(MulIOp.build_op([a, b]))

    def divi_ceil(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Unsigned division rounding up."""
        from tileir.dialects.cuda_tile.attributes import RoundingMode, RoundingModeAttr

        return self.value(
            DivIOp.build_op(
                [a, b],
                signedness=SignednessAttr(Signedness.UNSIGNED),
                rounding=RoundingModeAttr(RoundingMode.POSITIVE_INF),
            )
        )

    def mini(self, a: SSAValue, b: SSAValue, signed: bool = True) -> SSAValue:
        return self.value(MinIOp.build_op([a, b], signedness=_signedness(signed)))

    def maxi(self, a: SSAValue, b: SSAValue, signed: bool = True) -> SSAValue:
        return self.value(MaxIOp.build_op([a, b], signedness=_signedness(signed)))

    def andi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.value(AndIOp.build_op([a, b]))

    def cmpi(
        self, predicate: ComparisonPredicate, a: SSAValue, b: SSAValue, signed: bool = True
    ) -> SSAValue:
        return self.value(
            CmpIOp.build_op(
                [a, b],
                comparison_predicate=ComparisonPredicateAttr(predicate),
                signedness=_signedness(signed),
            )
        )

    def cast_int(self, v: SSAValue, to: IntegerType, signed: bool = True) -> SSAValue:
        """Extend or truncate an integer carrier to element type `to`."""
        el = element_type(v.type)
        assert isinstance(el, IntegerType)
        if el == to:
            return v
        target = with_element(v.type, to)
        if el.width.data < to.width.data:
            return self.value(ExtIOp.build_op([v], target, signedness=_signedness(signed)))
        return self.value(TruncIOp.build_op([v], target))

    def to_i64(self, v: SSAValue, signed: bool = True) -> SSAValue:
        return self.cast_int(v, i64, signed)

    # -- shapes ---------------------------------------------------------------
    def iota(self, n: int, el: IntegerType) -> SSAValue:
        return self.value(IotaOp.create(result_types=[TensorType(el, [n])]))

    def splat(self, scalar: SSAValue, shape: Sequence[int]) -> SSAValue:
        if not shape:
            return scalar
        return self.value(SplatOp(scalar, TensorType(scalar.type, list(shape))))

    def expand_to(self, v: SSAValue, dim: int, shape: Sequence[int]) -> SSAValue:
        """Place the 1-D tensor `v` along dimension `dim` of a tensor of `shape`,
        broadcasting it across the other dimensions."""
        rank = len(shape)
        assert len(shape_of(v.type)) == 1
        if rank == 1:
            return v
        for axis in range(rank):
            if axis != dim:
                v = self.value(ExpandDimsOp(v, axis))
        if shape_of(v.type) == tuple(shape):
            return v
        return self.value(BroadcastOp(v, TensorType(element_type(v.type), list(shape))))


def _signedness(signed: bool) -> SignednessAttr:
    return SignednessAttr(Signedness.SIGNED if signed else Signedness.UNSIGNED)
