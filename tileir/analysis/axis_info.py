"""Axis information of integer and pointer tiles: contiguity, divisibility, constancy.

For each dimension d of a value (Triton's AxisInfo, recomputed for nv_tileaa):

* `contiguity[d]`: the value grows by one element along d in runs of this length;
* `divisibility[d]`: the largest power of two dividing the first value of each such
  run (for pointers, in bytes);
* `constancy[d]`: the value repeats along d in runs of this length.

The facts come from constants, `iota`, `assume div_by<...>` and the arithmetic in
between; convert-tileaa-to-tileas reads them to pick the widest memory atom a load
or store can use (16-byte `ld.global.v4.b32` for aligned contiguous rows), and
tileas-assign-layouts and the remarks read them again at nv_tileas.  The analysis reads
the nv_tileas forms (`nv_tileas.assume`, `addptr`, `splat`, ...) and, since the
conversion rewrites a kernel op by op while it asks, their nv_tileaa and cuda_tile
forms too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import DivByAttr, SameElementsAttr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.utils.bits import POINTER_BITS, mlir_bit_width
from tileir.utils.numeric import dense_splat

#: The divisibility of 0: "divisible by anything" (capped so arithmetic stays finite).
MAX_DIVISIBILITY = 1 << 62


def pow2_divisor(v: int) -> int:
    v = abs(v)
    return MAX_DIVISIBILITY if v == 0 else min(v & -v, MAX_DIVISIBILITY)


def element_bytes(t: Attribute) -> int:
    """Bytes of one element as the analysis counts them: MLIR's width in whole bytes,
    rounded down but at least one (so tf32 counts 2, where memory holds it in 4: that
    only understates a tf32 pointer's alignment); a pointer counts 8."""
    return max(1, (mlir_bit_width(t) or POINTER_BITS) // 8)


@dataclass(frozen=True)
class AxisInfo:
    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.contiguity)


def _cap(v: int) -> int:
    return min(v, MAX_DIVISIBILITY)


def divisibility_at_runs(info: AxisInfo, dim: int, runs: int) -> int:
    """What divides `info`'s value at the start of every run of `runs` elements along
    `dim` (runs aligned to multiples of `runs` in index space).

    `info.divisibility[dim]` only speaks of the starts of *its own* runs.  When a result
    is contiguous in shorter runs than this operand, its runs also start inside the
    operand's: there the value is `start + j * runs`, divisible only by
    `gcd(divisibility, runs)`.  So `[0, 1, 2, 3]` multiplied by 8 is divisible by 8
    at index 0 but by 8 * 1 at index 1, not by 8 * 2^62.
    """
    div, contiguity = info.divisibility[dim], info.contiguity[dim]
    if contiguity <= 1 or runs % contiguity == 0:
        return div
    return min(div, pow2_divisor(runs))


def every_element_divisibility(info: AxisInfo) -> int:
    """What divides *every* element of a value, not only the starts of its runs: inside
    a contiguous run consecutive values differ by one, so only dimensions without runs
    keep their divisibility (that of a dimension of one-element runs, such as one
    `expand_dims` or a reshape adds)."""
    return min(
        (dv if cg == 1 else 1 for cg, dv in zip(info.contiguity, info.divisibility, strict=True)),
        default=MAX_DIVISIBILITY,
    )


def _is_reshape(op: Operation) -> bool:
    """A reshape of a tile's values: cuda_tile's, nv_tileaa's view, nv_tileas's value
    view (without indices)."""
    if isinstance(op, tas.ViewOp):
        return op.is_value_view and not op.indices
    return isinstance(op, ct.ReshapeOp | aa.ViewOp)


class AxisInfoAnalysis:
    """Computes AxisInfo on demand, memoized per value."""

    def __init__(self) -> None:
        self.cache: dict[SSAValue, AxisInfo] = {}

    def get(self, value: SSAValue) -> AxisInfo:
        info = self.cache.get(value)
        if info is None:
            info = self._compute(value)
            self.cache[value] = info
        return info

    # Scalars are handled as rank-1 tensors of one element so the rules are uniform.
    def _shape(self, value: SSAValue) -> tuple[int, ...]:
        return shape_of(value.type) or (1,)

    def _unknown(self, value: SSAValue) -> AxisInfo:
        shape = self._shape(value)
        el = element_type(value.type)
        div = element_bytes(el.pointee) if isinstance(el, PointerType) else 1
        return AxisInfo((1,) * len(shape), (div,) * len(shape), (1,) * len(shape))

    def _compute(self, value: SSAValue) -> AxisInfo:
        if isinstance(value, BlockArgument):
            return self._unknown(value)
        op = value.owner
        assert isinstance(op, Operation)
        shape = self._shape(value)
        rank = len(shape)

        if isinstance(op, ct.ConstantOp):
            if not isinstance(op.value.get_element_type(), IntegerType):
                return self._unknown(value)
            splat = dense_splat(op.value)  # the common case: one element, without numpy
            if splat is not None:
                return AxisInfo((1,) * rank, (pow2_divisor(int(splat)),) * rank, shape)
            data = op.values().reshape(-1)
            if data.size and bool((data == data[0]).all()) and data.dtype.kind in "iub":
                div = pow2_divisor(int(data[0]))
                return AxisInfo((1,) * rank, (div,) * rank, shape)
            return self._unknown(value)
        if isinstance(op, ct.IotaOp):
            return AxisInfo(shape, (MAX_DIVISIBILITY,), (1,))
        if isinstance(op, tas.AssumeOp | aa.AssumeOp | ct.AssumeOp):
            inner = self.get(op.operands[0])
            pred = op.predicate
            if isinstance(pred, DivByAttr) and pred.every_value is None:
                d = pred.divisor.data
                return AxisInfo(
                    inner.contiguity,
                    tuple(max(x, d) for x in inner.divisibility),
                    inner.constancy,
                )
            if isinstance(pred, SameElementsAttr):
                values = [v.data for v in pred.values] or [1]
                return AxisInfo(
                    inner.contiguity,
                    inner.divisibility,
                    tuple(max(c, v) for c, v in zip(inner.constancy, values, strict=False)),
                )
            return inner
        if isinstance(op, aa.SplatOp | tas.SplatOp):
            src = self.get(op.src)
            return AxisInfo((1,) * rank, (src.divisibility[0],) * rank, shape)
        if isinstance(op, aa.ExpandDimsOp | tas.ExpandDimsOp):
            src = self.get(op.src)
            axis = op.axis.value.data
            # Along the new axis every element starts a run.
            new_div = every_element_divisibility(src)
            if not shape_of(op.src.type):
                src = AxisInfo((), (), ())
            c, d, k = list(src.contiguity), list(src.divisibility), list(src.constancy)
            c.insert(axis, 1)
            d.insert(axis, new_div)
            k.insert(axis, 1)
            return AxisInfo(tuple(c), tuple(d), tuple(k))
        if isinstance(op, aa.BroadcastOp | tas.BroadcastOp):
            src = self.get(op.src)
            src_shape = self._shape(op.src)
            c, d, k = [], [], []
            for i, (s, r) in enumerate(zip(src_shape, shape, strict=True)):
                if s == r:
                    c.append(src.contiguity[i])
                    d.append(src.divisibility[i])
                    k.append(src.constancy[i])
                else:
                    c.append(1)
                    d.append(src.divisibility[i])
                    k.append(r)
            return AxisInfo(tuple(c), tuple(d), tuple(k))
        if isinstance(op, ct.ExtIOp | ct.TruncIOp):
            return self.get(op.args[0])
        if _is_reshape(op):
            unit = self._unit_reshape(op.operands[0], shape)
            if unit is not None:
                return unit
        if isinstance(op, ct.AddIOp | ct.SubIOp | tas.AddPtrOp | aa.AddPtrOp | ct.OffsetOp):
            a, b = self.get(op.operands[0]), self.get(op.operands[1])
            scale = 1
            if isinstance(op, tas.AddPtrOp | aa.AddPtrOp | ct.OffsetOp):
                el = element_type(op.operands[0].type)
                assert isinstance(el, PointerType)
                scale = element_bytes(el.pointee)
                b = AxisInfo(
                    b.contiguity, tuple(_cap(x * scale) for x in b.divisibility), b.constancy
                )
            return self._add_like(a, b, subtract=isinstance(op, ct.SubIOp))
        if isinstance(op, ct.MulIOp):
            a, b = self.get(op.args[0]), self.get(op.args[1])
            c = []
            for i in range(rank):
                if self._is_splat_one(op.args[1]):
                    c.append(a.contiguity[i])
                elif self._is_splat_one(op.args[0]):
                    c.append(b.contiguity[i])
                else:
                    c.append(1)
            return AxisInfo(
                tuple(c),
                tuple(
                    _cap(divisibility_at_runs(a, i, c[i]) * divisibility_at_runs(b, i, c[i]))
                    for i in range(rank)
                ),
                tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy, strict=True)),
            )
        if isinstance(op, ct.CmpIOp):
            a, b = self.get(op.args[0]), self.get(op.args[1])
            k = []
            for i in range(rank):
                base = math.gcd(a.constancy[i], b.constancy[i])
                if b.constancy[i] == shape[i] and a.contiguity[i] > 1:
                    # lhs contiguous, rhs uniform: the comparison flips at most at
                    # multiples of the common divisibility.
                    base = max(
                        base, min(math.gcd(a.divisibility[i], b.divisibility[i]), a.contiguity[i])
                    )
                k.append(base)
            return AxisInfo((1,) * rank, (1,) * rank, tuple(k))
        if isinstance(op, ct.MinIOp | ct.MaxIOp):
            # Each element is one of its operands' elements: what divides both divides
            # it, and it repeats where both repeat (a clamp of an extent, `min(n - i,
            # 128)`, keeps n's divisibility).
            a, b = self.get(op.operands[0]), self.get(op.operands[1])
            return AxisInfo(
                (1,) * rank,
                tuple(
                    math.gcd(divisibility_at_runs(a, i, 1), divisibility_at_runs(b, i, 1))
                    for i in range(rank)
                ),
                tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy, strict=True)),
            )
        if isinstance(op, ct.SelectOp):
            # Each element is one of the two values' elements, as for min/max: what
            # divides both divides it (the bound of a 2-D tile's column mask, `select(row
            # tile in bounds, clamp(n - start, 0, 32), 0)`, keeps n's divisibility, so a
            # vector of the row is wholly in bounds or out).
            cond, a, b = (self.get(v) for v in op.operands)
            return AxisInfo(
                (1,) * rank,
                tuple(
                    math.gcd(divisibility_at_runs(a, i, 1), divisibility_at_runs(b, i, 1))
                    for i in range(rank)
                ),
                tuple(
                    math.gcd(*(x.constancy[i] for x in (cond, a, b) if x.rank == rank))
                    for i in range(rank)
                ),
            )
        if isinstance(op, ct.AndIOp | ct.OrIOp | ct.XOrIOp):
            infos = [self.get(v) for v in op.operands]
            k = tuple(math.gcd(*(x.constancy[i] for x in infos)) for i in range(rank))
            return AxisInfo((1,) * rank, (1,) * rank, k)
        return self._unknown(value)

    def _unit_reshape(self, src_value: SSAValue, shape: tuple[int, ...]) -> AxisInfo | None:
        """A reshape that only adds or drops dimensions of one element (cuTile's batched
        matmul views its 1xMxK tiles, and their masks, as MxK): the other dimensions keep
        their runs; a new unit dimension is what `expand_dims` makes.  None for any
        other reshape (its runs would need the row-major order of both shapes)."""
        src = self.get(src_value)
        src_shape = self._shape(src_value)
        kept = [i for i, n in enumerate(src_shape) if n > 1]
        if [src_shape[i] for i in kept] != [n for n in shape if n > 1]:
            return None
        unit_div = every_element_divisibility(src)
        c, d, k = [], [], []
        source = iter(kept)
        for n in shape:
            if n > 1:
                i = next(source)
                c.append(src.contiguity[i])
                d.append(src.divisibility[i])
                k.append(src.constancy[i])
            else:
                c.append(1)
                d.append(unit_div)
                k.append(1)
        return AxisInfo(tuple(c), tuple(d), tuple(k))

    def _add_like(self, a: AxisInfo, b: AxisInfo, subtract: bool) -> AxisInfo:
        rank = a.rank
        c = []
        for i in range(rank):
            if subtract:
                c.append(math.gcd(a.contiguity[i], b.constancy[i]))
            else:
                c.append(
                    max(
                        math.gcd(a.contiguity[i], b.constancy[i]),
                        math.gcd(b.contiguity[i], a.constancy[i]),
                    )
                )
        return AxisInfo(
            tuple(c),
            tuple(
                math.gcd(divisibility_at_runs(a, i, c[i]), divisibility_at_runs(b, i, c[i]))
                for i in range(rank)
            ),
            tuple(math.gcd(x, y) for x, y in zip(a.constancy, b.constancy, strict=True)),
        )

    @staticmethod
    def _is_splat_one(value: SSAValue) -> bool:
        op = value.owner
        if isinstance(op, aa.SplatOp | tas.SplatOp):
            op = op.src.owner
        if isinstance(op, ct.ConstantOp):
            splat = dense_splat(op.value)  # the common case: one element, without numpy
            if splat is not None:
                return splat == 1
            data = op.values().reshape(-1)
            return bool(data.size) and bool((data == 1).all())
        return False

    # -- queries --------------------------------------------------------------
    def vector_elements(self, pointers: SSAValue, dim: int, max_bytes: int = 16) -> int:
        """The widest power-of-two run of elements along `dim` that one aligned
        vector access of at most `max_bytes` can move."""
        el = element_type(pointers.type)
        assert isinstance(el, PointerType)
        size = element_bytes(el.pointee)
        info = self.get(pointers)
        contiguous = info.contiguity[dim]
        aligned = max(1, min(info.divisibility[dim], MAX_DIVISIBILITY) // size)
        vec = max(1, min(contiguous, aligned, max_bytes // size))
        return 1 << (vec.bit_length() - 1)
