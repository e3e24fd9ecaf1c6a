"""A small builder for tile arithmetic on builtin carriers.

Lowering passes build index arithmetic (products, sums, comparisons, splats) over
tensors and scalars.  `TileBuilder` inserts the cuda_tile and nv_tileaa ops for it at
one insertion point, with the defaults of the ops themselves (no overflow flags, round
to nearest even), so that every pass spells index math the same way.

Its ops are built from shapes (`tileir/utils/op_shapes.py`): the first op of a class,
operand types and arguments by its constructor, the next ones as copies of its result
types, properties and attributes.  For a constant that spares the conversion of its
value to a dense attribute (`ConstantOp.splat` goes through numpy: about 0.1 ms a
constant, and a kernel's index math makes dozens).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Hashable, Sequence

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
from tileir.utils.op_shapes import insert, shaped


class TileBuilder:
    """Inserts ops at `insertion_point` and returns their results."""

    def __init__(self, rewriter: PatternRewriter, insertion_point: InsertPoint):
        self.rewriter = rewriter
        self.ip = insertion_point

    def insert(self, op: Operation) -> Operation:
        insert(self.rewriter, op, self.ip)
        return op

    def value(self, op: Operation) -> SSAValue:
        return self.insert(op).results[0]

    def _shaped(
        self, key: Hashable, operands: Sequence[SSAValue], make: Callable[[], Operation]
    ) -> SSAValue:
        """The result of `make()` (whose operands are `operands`), built from its shape:
        `key` holds what fixes its result types, properties and attributes besides the
        operands' types, which are added to it."""
        return self.value(shaped((key, *[o.type for o in operands]), operands, make))

    # -- constants ----------------------------------------------------------
    def constant(self, value: int | float, carrier: Attribute) -> SSAValue:
        # A float by its bits: 0.0 and -0.0 (and NaNs) stay apart.
        bits = struct.pack("<d", value) if isinstance(value, float) else value
        key = (ConstantOp, carrier, type(value), bits)
        return self._shaped(key, (), lambda: ConstantOp.splat(value, carrier))

    # -- integer arithmetic -------------------------------------------------
    def addi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._shaped(AddIOp, (a, b), lambda: AddIOp.build_op([a, b]))

    def subi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._shaped(SubIOp, (a, b), lambda: SubIOp.build_op([a, b]))

    def muli(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._shaped(MulIOp, (a, b), lambda: MulIOp.build_op([a, b]))

    def divi_ceil(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """Unsigned division rounding up."""
        from tileir.dialects.cuda_tile.attributes import RoundingMode, RoundingModeAttr

        return self._shaped(
            DivIOp,
            (a, b),
            lambda: DivIOp.build_op(
                [a, b],
                signedness=SignednessAttr(Signedness.UNSIGNED),
                rounding=RoundingModeAttr(RoundingMode.POSITIVE_INF),
            ),
        )

    def mini(self, a: SSAValue, b: SSAValue, signed: bool = True) -> SSAValue:
        return self._shaped(
            (MinIOp, signed),
            (a, b),
            lambda: MinIOp.build_op([a, b], signedness=_signedness(signed)),
        )

    def maxi(self, a: SSAValue, b: SSAValue, signed: bool = True) -> SSAValue:
        return self._shaped(
            (MaxIOp, signed),
            (a, b),
            lambda: MaxIOp.build_op([a, b], signedness=_signedness(signed)),
        )

    def andi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._shaped(AndIOp, (a, b), lambda: AndIOp.build_op([a, b]))

    def cmpi(
        self, predicate: ComparisonPredicate, a: SSAValue, b: SSAValue, signed: bool = True
    ) -> SSAValue:
        return self._shaped(
            (CmpIOp, predicate, signed),
            (a, b),
            lambda: CmpIOp.build_op(
                [a, b],
                comparison_predicate=ComparisonPredicateAttr(predicate),
                signedness=_signedness(signed),
            ),
        )

    def cast_int(self, v: SSAValue, to: IntegerType, signed: bool = True) -> SSAValue:
        """Extend or truncate an integer carrier to element type `to`."""
        el = element_type(v.type)
        assert isinstance(el, IntegerType)
        if el == to:
            return v
        if el.width.data < to.width.data:
            return self._shaped(
                (ExtIOp, to, signed),
                (v,),
                lambda: ExtIOp.build_op(
                    [v], with_element(v.type, to), signedness=_signedness(signed)
                ),
            )
        return self._shaped(
            (TruncIOp, to), (v,), lambda: TruncIOp.build_op([v], with_element(v.type, to))
        )

    def to_i64(self, v: SSAValue, signed: bool = True) -> SSAValue:
        return self.cast_int(v, i64, signed)

    # -- shapes ---------------------------------------------------------------
    def iota(self, n: int, el: IntegerType) -> SSAValue:
        return self._shaped(
            (IotaOp, n, el), (), lambda: IotaOp.create(result_types=[TensorType(el, [n])])
        )

    def splat(self, scalar: SSAValue, shape: Sequence[int]) -> SSAValue:
        if not shape:
            return scalar
        return self._shaped(
            (SplatOp, tuple(shape)),
            (scalar,),
            lambda: SplatOp(scalar, TensorType(scalar.type, list(shape))),
        )

    def expand_to(self, v: SSAValue, dim: int, shape: Sequence[int]) -> SSAValue:
        """Place the 1-D tensor `v` along dimension `dim` of a tensor of `shape`,
        broadcasting it across the other dimensions."""
        rank = len(shape)
        assert len(shape_of(v.type)) == 1
        if rank == 1:
            return v
        for axis in range(rank):
            if axis != dim:
                v = self._expand_dims(v, axis)
        if shape_of(v.type) == tuple(shape):
            return v
        return self._shaped(
            (BroadcastOp, tuple(shape)),
            (v,),
            lambda: BroadcastOp(v, TensorType(element_type(v.type), list(shape))),
        )

    def _expand_dims(self, v: SSAValue, axis: int) -> SSAValue:
        return self._shaped((ExpandDimsOp, axis), (v,), lambda: ExpandDimsOp(v, axis))


def _signedness(signed: bool) -> SignednessAttr:
    return SignednessAttr(Signedness.SIGNED if signed else Signedness.UNSIGNED)
