"""Dots on the CUDA cores: `nv_tileaa.dot`s the tensor-core path (`mma.py`) does not
take, computed with FMAs for floats and 32-bit multiply-adds for integers.

The operands go through shared memory and each thread computes the accumulator
elements it holds, one multiply-add per K step, in the accumulator's type (f32 for
half accumulators, rounded once at the end).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    IntegerType,
    TensorType,
    i32,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import LoweringContext, linear_layout
from tileir.conversions.tileas_to_llvm.fp8 import decode_to_f32, is_fp8
from tileir.conversions.tileas_to_llvm.shared_memory import (
    ElementKind,
    Exchange,
    check_exchangeable,
    element_kind,
    padded_strides,
)
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile.attributes import Signedness
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa import ops as aa

_FLOATS = (
    Float8E4M3FNType,
    Float8E5M2Type,
    Float16Type,
    BFloat16Type,
    FloatTF32Type,
    Float32Type,
    Float64Type,
)


def fma_dot_supported(op: aa.DotOp) -> bool:
    """Dots the tensor-core path does not take (f32 and f64 operands, tiles that are not
    multiples of the `mma.sync` shape, 8-bit floats without `wgmma`, i8 tiles like
    cuTile's 2x1 by 1x2 `mmai`): computed on the CUDA cores, with FMAs for floats and
    32-bit multiply-adds for integers."""
    types = [element_type(v.type) for v in (op.lhs, op.rhs, op.acc)]
    if len(shape_of(op.acc.type)) not in (2, 3):
        return False
    if all(isinstance(t, _FLOATS) for t in types):
        return True
    a, b, acc = types
    return (
        isinstance(a, IntegerType)
        and isinstance(b, IntegerType)
        and a.width.data == b.width.data == 8
        and isinstance(acc, IntegerType)
        and acc.width.data == 32
    )


def lower_fma_dot(
    op: aa.DotOp, rewriter: PatternRewriter, ctx: LoweringContext, ex: Exchange
) -> None:
    """`acc + a · b` on the CUDA cores: `a` and `b` go into shared memory, and each
    thread computes the accumulator elements it holds, one FMA per K step, in the
    accumulator's type (f32 for half accumulators, rounded once at the end).  8-bit
    float operands are widened to f32 as they are read (exactly: `fp8.decode_to_f32`),
    so each product is exact."""
    a_t, b_t, acc_t = op.lhs.type, op.rhs.type, op.acc.type
    assert isinstance(a_t, TensorType) and isinstance(b_t, TensorType)
    assert isinstance(acc_t, TensorType)
    layouts = [linear_layout(op, t) for t in (a_t, b_t, acc_t)]
    for layout in layouts:
        check_exchangeable(op, layout)
    a_kind, b_kind = element_kind(op, a_t), element_kind(op, b_t)
    a_el, b_el = element_type(a_t), element_type(b_t)
    acc_el = element_type(acc_t)
    integer = isinstance(acc_el, IntegerType)
    if integer:  # i8 x i8 -> i32 (`mmai`): products and sums modulo 2^32
        compute: Attribute = acc_el
        signs = op.signedness() or (Signedness.SIGNED, Signedness.SIGNED)
    else:
        compute = acc_el if isinstance(acc_el, Float32Type | Float64Type) else Float32Type()
        signs = (Signedness.SIGNED, Signedness.SIGNED)
    signed = {"a": signs[0] == Signedness.SIGNED, "b": signs[1] == Signedness.SIGNED}
    a_strides, a_size = padded_strides(a_t.get_shape(), a_kind.bits)
    b_strides, b_size = padded_strides(b_t.get_shape(), b_kind.bits)
    state = ctx.function_state(op)
    smem_a, smem_b = ex.allocator.allocate(op, state, rewriter, [a_size, b_size])
    b = LLBuilder(rewriter, InsertPoint.before(op))
    ex.write(
        b, rewriter, state, ctx.registers_of(op, op.lhs), layouts[0], a_strides, smem_a, a_kind
    )
    ex.write(
        b, rewriter, state, ctx.registers_of(op, op.rhs), layouts[1], b_strides, smem_b, b_kind
    )
    b.op(nvvm.Barrier0Op())

    acc_layout = layouts[2]
    batched = len(acc_t.get_shape()) == 3
    k = a_t.get_shape()[-1]
    # Where the accumulator's coordinates (batch, i, j) move the A and B addresses.
    a_by_acc = [a_strides[0], a_strides[1], 0] if batched else [a_strides[0], 0]
    b_by_acc = [b_strides[0], 0, b_strides[2]] if batched else [0, b_strides[1]]
    a_k, b_k = a_strides[-1], b_strides[-2]
    base_a = ex._thread_offset(b, state, rewriter, acc_layout, a_by_acc, smem_a)  # pyright: ignore[reportPrivateUsage]
    base_b = ex._thread_offset(b, state, rewriter, acc_layout, b_by_acc, smem_b)  # pyright: ignore[reportPrivateUsage]
    loaded: dict[tuple[str, int], SSAValue] = {}

    def load(name: str, base: SSAValue, offset: int, kind: ElementKind, el: Attribute) -> SSAValue:
        key = (name, offset)
        if key not in loaded:
            address = b.add(base, b.const(offset, i32)) if offset else base
            suffix = f"b{kind.bits}"
            (value,) = b.inline_asm(
                f"ld.shared.{suffix} $0, [$1];",
                f"={'h' if kind.bits <= 16 else 'r' if kind.bits == 32 else 'l'},r",
                [address],
                [kind.register_type],
                side_effects=True,
            )
            if is_fp8(el):
                value = decode_to_f32(b, value, el)
            if integer:
                value = b.sext(value, compute) if signed[name] else b.zext(value, compute)
            elif value.type != compute:
                value = (
                    b.fpext(value, compute)
                    if _float_bits(value.type) < _float_bits(compute)
                    else b.fptrunc(value, compute)
                )
            loaded[key] = value
        return loaded[key]

    accs = ctx.registers_of(op, op.acc)
    offsets = []
    for r in range(len(accs)):
        coord = acc_layout.register_coord(r)
        a_off = sum(x * s for x, s in zip(coord, a_by_acc, strict=True))
        b_off = sum(x * s for x, s in zip(coord, b_by_acc, strict=True))
        offsets.append((a_off, b_off))
    totals = [acc if acc.type == compute else b.fpext(acc, compute) for acc in accs]

    def multiply_add(x: SSAValue, y: SSAValue, total: SSAValue) -> SSAValue:
        return b.add(b.mul(x, y), total) if integer else b.fma(x, y, total)

    # K outermost: only one K step's operand values are live at a time (each element
    # still sums its products in K order).
    for kk in range(k):
        loaded.clear()
        for r, (a_off, b_off) in enumerate(offsets):
            x = load("a", base_a, a_off + kk * a_k, a_kind, a_el)
            y = load("b", base_b, b_off + kk * b_k, b_kind, b_el)
            totals[r] = multiply_add(x, y, totals[r])
    results = [
        total if acc.type == compute else b.fptrunc(total, acc.type)
        for acc, total in zip(accs, totals, strict=True)
    ]
    b.op(nvvm.Barrier0Op())
    rewriter.replace(op, [], [ctx.pack(rewriter, results, acc_t)])


def _float_bits(t: Attribute) -> int:
    return {
        Float8E4M3FNType: 8,
        Float8E5M2Type: 8,
        Float16Type: 16,
        BFloat16Type: 16,
        Float32Type: 32,
        Float64Type: 64,
    }[type(t)]
