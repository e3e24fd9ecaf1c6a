"""Dots on the CUDA cores: `nv_tileas.dot`s with an `fma` atom (those the tensor cores
do not take: f32 and f64 operands, tiles that are not multiples of the MMA shape, i8
tiles like cuTile's 2x1 by 1x2 `mmai`; `transforms/tileas/dot_plan.py`), computed with
FMAs for floats and 32-bit multiply-adds for integers (`fma_s8_u8_s32` ...: the atom
spells each operand's signedness).

The operands go through shared memory and each thread computes the accumulator
elements it holds, one multiply-add per K step, in the accumulator's type (f32 for
half accumulators, rounded once at the end).

The operand buffers' rows are padded to a multiple of 16 bytes, so a thread reads the
values it needs in 16-byte loads where they are consecutive and aligned: a row of A
(which runs along K) for several K steps at once, the B values of accumulator columns
a thread holds side by side for one K step; each distinct value is read once per K
step, however many accumulator elements use it.  Scalar loads were the bulk of the
PTX: cuTile's FFT kernel (12 batched 2x16x16 by 2x16x256 f32 dots) read 6,912 scalars
per thread for 12,288 FMAs, now 1,728 `ld.shared.v4.b32`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import LoweringContext, linear_layout
from tileir.conversions.tileas_to_llvm.exchange import (
    ElementKind,
    Exchange,
    check_exchangeable,
    element_kind,
    load_vector,
    padded_strides,
)
from tileir.conversions.tileas_to_llvm.fp8 import decode_to_f32, is_fp8
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.layouts import LinearLayout

#: Bytes one shared-memory load of an operand moves at most (`ld.shared.v4.b32`); the
#: operand buffers' rows are padded to a multiple of it, so any row may start a vector.
ACCESS_BYTES = 16


def lower_fma_dot(
    op: tas.DotOp, rewriter: PatternRewriter, ctx: LoweringContext, ex: Exchange
) -> None:
    """`acc + a · b` on the CUDA cores: `a` and `b` go into shared memory, and each
    thread computes the accumulator elements it holds, one FMA per K step, in the
    accumulator's type (f32 for half accumulators, rounded once at the end), reading
    its operand values in vectors of up to 16 bytes (the module docstring).  8-bit
    float operands are widened to f32 as they are read (exactly: `fp8.decode_to_f32`),
    so each product is exact."""
    a_t, b_t, acc_t = op.a.type, op.b.type, op.acc.type
    assert isinstance(a_t, TensorType) and isinstance(b_t, TensorType)
    assert isinstance(acc_t, TensorType)
    layouts = [linear_layout(op, t) for t in (a_t, b_t, acc_t)]
    for layout in layouts:
        check_exchangeable(op, layout)
    a_kind, b_kind = element_kind(op, a_t), element_kind(op, b_t)
    a_el, b_el = element_type(a_t), element_type(b_t)
    acc_el = element_type(acc_t)
    integer = isinstance(acc_el, IntegerType)
    kinds = op.atom.info.mma_kinds or ("s8", "s8", "s32")  # floats: `fma`, no kinds
    if integer:  # i8 x i8 -> i32 (`mmai`): products and sums modulo 2^32
        compute: Attribute = acc_el
    else:
        compute = acc_el if isinstance(acc_el, Float32Type | Float64Type) else Float32Type()
    signed = {"a": kinds[0] != "u8", "b": kinds[1] != "u8"}
    a_strides, a_size = padded_strides(a_t.get_shape(), a_kind.bits, ACCESS_BYTES)
    b_strides, b_size = padded_strides(b_t.get_shape(), b_kind.bits, ACCESS_BYTES)
    state = ctx.function_state(op)
    smem_a, smem_b = ex.allocator.allocate(op, state, rewriter, [a_size, b_size])
    b = LLBuilder(rewriter, InsertPoint.before(op))
    ex.write(b, rewriter, state, ctx.registers_of(op, op.a), layouts[0], a_strides, smem_a, a_kind)
    ex.write(b, rewriter, state, ctx.registers_of(op, op.b), layouts[1], b_strides, smem_b, b_kind)
    b.op(nvvm.Barrier0Op())

    acc_layout = layouts[2]
    batched = len(acc_t.get_shape()) == 3
    k = a_t.get_shape()[-1]
    # Where the accumulator's coordinates (batch, i, j) move the A and B addresses.
    a_by_acc = [a_strides[0], a_strides[1], 0] if batched else [a_strides[0], 0]
    b_by_acc = [b_strides[0], 0, b_strides[2]] if batched else [0, b_strides[1]]
    a_k, b_k = a_strides[-1], b_strides[-2]
    base_a = ex.thread_offset(b, state, rewriter, acc_layout, a_by_acc, smem_a)
    base_b = ex.thread_offset(b, state, rewriter, acc_layout, b_by_acc, smem_b)
    a_align = _thread_alignment(acc_layout, a_by_acc)
    b_align = _thread_alignment(acc_layout, b_by_acc)

    def widen(value: SSAValue, signed_operand: bool, el: Attribute) -> SSAValue:
        if is_fp8(el):
            value = decode_to_f32(b, value, el)
        if integer:
            return b.sext(value, compute) if signed_operand else b.zext(value, compute)
        if value.type != compute:
            return (
                b.fpext(value, compute)
                if _float_bits(value.type) < _float_bits(compute)
                else b.fptrunc(value, compute)
            )
        return value

    def read(
        name: str, base: SSAValue, offsets: set[int], kind: ElementKind, el: Attribute, align: int
    ) -> dict[int, SSAValue]:
        """The operand elements at `base + offset` for each of `offsets`, widened to
        the compute type: runs of consecutive elements aligned to their length in one
        `ld.shared.v2`/`v4` (`load_vector`), the rest one at a time."""
        size = max(kind.bits, 8) // 8
        widest = ACCESS_BYTES // size if kind.bits >= 16 else 1
        values: dict[int, SSAValue] = {}
        for offset in sorted(offsets):
            if offset in values:
                continue
            vec = widest
            while vec > 1 and not (
                vec * size >= 4
                and align % (vec * size) == 0
                and offset % (vec * size) == 0
                and all(offset + i * size in offsets for i in range(vec))
            ):
                vec //= 2
            address = b.add(base, b.const(offset, i32)) if offset else base
            if vec > 1:
                raw = load_vector(b, address, vec, kind)
            else:
                raw = [b.load(b.shared_pointer(address), kind.register_type)]
            for i, value in enumerate(raw):
                values[offset + i * size] = widen(value, signed[name], el)
        return values

    accs = ctx.registers_of(op, op.acc)
    offsets = []
    for r in range(len(accs)):
        coord = acc_layout.register_coord(r)
        a_off = sum(x * s for x, s in zip(coord, a_by_acc, strict=True))
        b_off = sum(x * s for x, s in zip(coord, b_by_acc, strict=True))
        offsets.append((a_off, b_off))
    totals = [acc if acc.type == compute else b.fpext(acc, compute) for acc in accs]
    a_rows = {a_off for a_off, _ in offsets}
    b_columns = {b_off for _, b_off in offsets}

    def multiply_add(x: SSAValue, y: SSAValue, total: SSAValue) -> SSAValue:
        return b.add(b.mul(x, y), total) if integer else b.fma(x, y, total)

    # K outermost, a few steps at a time: one vector load of A covers that many K
    # steps of a row (A's rows run along K), B's values are loaded per K step, its
    # columns side by side.  Only those steps' operand values are live at a time, and
    # each element still sums its products in K order.
    steps = ACCESS_BYTES // (a_kind.bits // 8) if a_kind.bits >= 16 else 1
    for k0 in range(0, k, steps):
        chunk = range(k0, min(k0 + steps, k))
        xs = read(
            "a", base_a, {o + kk * a_k for o in a_rows for kk in chunk}, a_kind, a_el, a_align
        )
        for kk in chunk:
            ys = read("b", base_b, {o + kk * b_k for o in b_columns}, b_kind, b_el, b_align)
            for r, (a_off, b_off) in enumerate(offsets):
                x, y = xs[a_off + kk * a_k], ys[b_off + kk * b_k]
                totals[r] = multiply_add(x, y, totals[r])
    results = [
        total if acc.type == compute else b.fptrunc(total, acc.type)
        for acc, total in zip(accs, totals, strict=True)
    ]
    b.op(nvvm.Barrier0Op())
    rewriter.replace(op, [], [ctx.pack(rewriter, results, acc_t)])


def _thread_alignment(layout: LinearLayout, strides: Sequence[int]) -> int:
    """The largest power of two, up to `ACCESS_BYTES`, that divides every thread's
    offset `Σ_d thread_coord_d · strides[d]` (lane and warp bits only ever add
    multiples of their bases' offsets; the buffers start 16-byte aligned)."""
    align = ACCESS_BYTES
    for basis in (*layout.lanes, *layout.warps):
        for x, stride in zip(basis, strides, strict=True):
            while (x * stride) % align:
                align //= 2
    return align


def _float_bits(t: Attribute) -> int:
    return {
        Float8E4M3FNType: 8,
        Float8E5M2Type: 8,
        Float16Type: 16,
        BFloat16Type: 16,
        Float32Type: 32,
        Float64Type: 64,
    }[type(t)]
