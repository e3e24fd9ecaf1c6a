"""Affine forms of nv_tileas integer and pointer tiles: a tile's value as a uniform
part plus, per dimension, the coordinate times a sum of terms (a constant, or a constant
times a runtime value the whole tile shares), exact modulo the value's width.

`convert-tileas-to-llvm` reads them before it lowers anything, to address a thread's
tiled accesses from its first address (`tileas_to_llvm/affine_addresses.py`, where
the reasons are).  The rules follow the ops cuTile's views produce: `iota`, constants,
`splat`, `expand_dims`, `broadcast`, `convert_layout`, a value `view` that only adds or
drops unit dimensions, `assume`, `addi`, `subi`, a `muli` by a uniform value, `exti`
(only where the extended values are known to fit), `trunci` and `addptr` (in bytes);
any other op is uniform where the axis analysis finds it constant over the tile, and
unknown otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType, UnrealizedConversionCastOp
from xdsl.ir import Attribute, Operation, SSAValue

from tileir.analysis.axis_info import AxisInfoAnalysis
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import Signedness
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas
from tileir.utils.bits import mlir_bit_width
from tileir.utils.numeric import dense_splat, element_bytes


@dataclass(frozen=True)
class Term:
    """`factor * scale` per unit of a coordinate; `scale` a tile whose elements are all
    one runtime value (None: the factor alone)."""

    factor: int
    scale: SSAValue | None


@dataclass(frozen=True)
class Affine:
    """A tile's value as `U + sum_d c_d * (sum of terms[d])`, exact modulo its width.
    `constant` is U when it is a known integer (a narrow value whose range is then
    known may be extended); None when U is only known to be the same everywhere."""

    terms: tuple[tuple[Term, ...], ...]
    constant: int | None

    @property
    def uniform(self) -> bool:
        return not any(self.terms)

    def scaled(self, k: int) -> Affine:
        return Affine(
            tuple(tuple(Term(t.factor * k, t.scale) for t in ts) for ts in self.terms),
            None if self.constant is None else self.constant * k,
        )


def _plus(a: Affine, b: Affine) -> Affine:
    constant = None if a.constant is None or b.constant is None else a.constant + b.constant
    return Affine(tuple(x + y for x, y in zip(a.terms, b.terms, strict=True)), constant)


def _range(form: Affine, shape: tuple[int, ...]) -> tuple[int, int] | None:
    """The least and greatest value of a form of constants only over the tile."""
    if form.constant is None:
        return None
    lo = hi = form.constant
    for ts, n in zip(form.terms, shape, strict=True):
        if any(t.scale is not None for t in ts):
            return None
        k = sum(t.factor for t in ts) * (n - 1)
        lo, hi = lo + min(0, k), hi + max(0, k)
    return lo, hi


def _extended(form: Affine, shape: tuple[int, ...], bits: int, signed: bool) -> Affine | None:
    """`form` of a `bits`-wide value extended: the same where every value fits the
    source's range (then the narrow value is the exact sum), a new uniform value where
    it is uniform, else unknown."""
    if form.uniform:
        if form.constant is None:
            return form
        v = form.constant % (1 << bits)
        if signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        return Affine(form.terms, v)
    span = _range(form, shape)
    if span is None:
        return None
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    return form if lo <= span[0] and span[1] <= hi else None


def _pointee_bytes(t: Attribute) -> int | None:
    """Bytes a `getelementptr` of the pointee advances per element (as the PTX printer
    counts them: a sub-byte integer one); None for a pointee without a fixed size here
    (a pointer: its address tile keeps its own registers)."""
    if isinstance(t, PointerType):
        return None
    width = mlir_bit_width(t)
    if width is not None and width < 8:
        return 1
    return element_bytes(t)


class AffineForms:
    """The affine forms of nv_tileas integer and pointer tiles, memoized per value."""

    def __init__(self, unit_views: bool = True) -> None:
        self.cache: dict[SSAValue, Affine | None] = {}
        self.axis = AxisInfoAnalysis()
        #: Whether a value view that adds or drops unit dimensions keeps the form
        #: (`_unit_reshape`; `plan_affine_addresses` says where it does not use it).
        self.unit_views = unit_views

    def get(self, value: SSAValue) -> Affine | None:
        if value not in self.cache:
            self.cache[value] = self._compute(value)
        return self.cache[value]

    def _uniform_if_constant(self, value: SSAValue, rank: int) -> Affine | None:
        """An op the rules do not know: uniform if the axis analysis finds it constant
        over the whole tile."""
        shape = shape_of(value.type)
        if shape and self.axis.get(value).constancy == shape:
            return Affine(((),) * rank, None)
        return None

    def _compute(self, value: SSAValue) -> Affine | None:
        shape = shape_of(value.type)
        rank = len(shape)
        op = value.owner
        if not shape or not isinstance(op, Operation):
            return None
        uniform = Affine(((),) * rank, None)
        if isinstance(op, ct.ConstantOp):
            el = op.value.get_element_type()
            if not isinstance(el, IntegerType) or el.width.data == 1:
                return None  # (numpy's kinds "iu")
            splat = dense_splat(op.value)  # the common case: one element, without numpy
            if splat is not None:
                return Affine(((),) * rank, int(splat))
            data = op.values().reshape(-1)
            if data.size and data.dtype.kind in "iu" and bool((data == data[0]).all()):
                return Affine(((),) * rank, int(data[0]))
            return None
        if isinstance(op, ct.IotaOp):
            return Affine(((Term(1, None),),), 0)
        if isinstance(op, tas.AssumeOp | aa.AssumeOp | ct.AssumeOp | tas.ConvertLayoutOp):
            return self.get(op.operands[0])
        if isinstance(op, tas.SplatOp):
            return uniform
        if isinstance(op, tas.ExpandDimsOp):
            src = self.get(op.src)
            if src is None:
                return None
            axis = op.axis.value.data
            terms = list(src.terms)
            terms.insert(axis, ())
            return Affine(tuple(terms), src.constant)
        if isinstance(op, tas.ViewOp) and self.unit_views:
            return self._unit_reshape(op) or self._uniform_if_constant(value, rank)
        if isinstance(op, tas.BroadcastOp):
            src = self.get(op.src)
            if src is None:
                return None
            src_shape = shape_of(op.src.type)
            # A dimension of one element only ever had coordinate 0: its terms add nothing.
            terms = tuple(() if n == 1 else ts for ts, n in zip(src.terms, src_shape, strict=True))
            return Affine(terms, src.constant)
        if isinstance(op, ct.ExtIOp):
            src = self.get(op.args[0])
            bits = mlir_bit_width(element_type(op.args[0].type))
            if src is None or bits is None:
                return self._uniform_if_constant(value, rank)
            signed = op.signedness.data is Signedness.SIGNED
            return _extended(src, shape, bits, signed) or self._uniform_if_constant(value, rank)
        if isinstance(op, ct.TruncIOp):
            # The low bits of a sum are the sum of the low bits: the form stays a congruence.
            return self.get(op.args[0]) or self._uniform_if_constant(value, rank)
        if isinstance(op, ct.AddIOp | ct.SubIOp):
            a, b = self.get(op.args[0]), self.get(op.args[1])
            if a is None or b is None:
                return self._uniform_if_constant(value, rank)
            return _plus(a, b.scaled(-1) if isinstance(op, ct.SubIOp) else b)
        if isinstance(op, ct.MulIOp):
            return self._product(op.args[0], op.args[1]) or self._uniform_if_constant(value, rank)
        if isinstance(op, tas.AddPtrOp):
            return self._addptr(op) or self._uniform_if_constant(value, rank)
        return self._uniform_if_constant(value, rank)

    def _unit_reshape(self, op: tas.ViewOp) -> Affine | None:
        """A value view that only adds or drops dimensions of one element (a batched
        matmul's `1 x M x K` operand seen as `M x K`): each element keeps its
        coordinates in the other dimensions, so their terms carry over in order and a
        unit dimension's coordinate is always 0 (no terms).  Any other reshape renumbers
        elements across dimensions: unknown."""
        if op.indices or not op.is_value_view:
            return None
        src = self.get(op.src)
        src_shape, shape = shape_of(op.src.type), shape_of(op.result.type)
        if src is None or not shape:
            return None
        kept = [ts for ts, n in zip(src.terms, src_shape, strict=True) if n != 1]
        if [n for n in src_shape if n != 1] != [n for n in shape if n != 1]:
            return None
        terms = [() if n == 1 else kept.pop(0) for n in shape]
        return Affine(tuple(terms), src.constant)

    def _product(self, x: SSAValue, y: SSAValue) -> Affine | None:
        a, b = self.get(x), self.get(y)
        if a is None or b is None:
            return None
        if not a.uniform:
            a, b, x = b, a, y
        if not a.uniform:
            return None
        if a.constant is not None:
            return b.scaled(a.constant)
        if b.uniform:
            return Affine(b.terms, None)
        if any(t.scale is not None for ts in b.terms for t in ts):
            return None  # a product of two runtime values: not one term
        terms = tuple(tuple(Term(t.factor, x) for t in ts) for ts in b.terms)
        return Affine(terms, None)

    def _addptr(self, op: tas.AddPtrOp) -> Affine | None:
        base, offset = self.get(op.ptr), self.get(op.offset)
        if base is None or offset is None:
            return None
        el = element_type(op.ptr.type)
        assert isinstance(el, PointerType)
        bits = mlir_bit_width(element_type(op.offset.type))
        if bits is None:
            return None
        if bits < 64:
            # The offset is sign-extended to 64 bits (`mad.wide.s32`).
            offset = _extended(offset, shape_of(op.offset.type), bits, signed=True)
            if offset is None:
                return None
        size = _pointee_bytes(el.pointee)
        if size is None:
            return None
        return Affine(_plus(base, offset.scaled(size)).terms, None)


@dataclass
class AffineAccess:
    """A tiled access's pointer tile in affine form (bytes per coordinate), and the
    cast that holds the runtime scales it multiplies by until the access is lowered."""

    form: Affine
    scales: list[SSAValue]
    anchor: UnrealizedConversionCastOp | None
