"""`mmaf_scaled` (MX block scaling) as bf16 `mmaf`s.

`mmaf_scaled %a, %b, %acc, %sa, %sb` is `acc + (a * sa') @ (b * sb')` where `sa'`
repeats each scale of `sa` over its group of K columns of `a` (and `sb'` over K rows
of `b`), as `tileir.interpreter` computes it.  Before the lift to nv_tileaa it is
rewritten, one K group `g` (K/G wide) at a time, into cuda_tile ops every later
stage already compiles:

    %ag  = extract %a[0, g]   -> [.., M, K/G]      %sag = extract %sa[0, g] -> [.., M, 1]
    %agf = ftof %ag -> f32                         %saf = ftof %sag -> f32  (2^(e-127))
    %as  = ftof (mulf %agf, (broadcast %saf -> [.., M, K/G])) -> bf16  (likewise for b)
    %acc = mmaf %as, %bs, %acc                     -> nv_tileaa.dot, bf16 x bf16 -> f32

The dots are bf16 ones, which every target runs on tensor cores (`mma.sync`, or
`wgmma` on sm_90a), where f32 operands would run on FMAs (NVIDIA's block-scaled
sample on sm_100a was 65,536 `fma.rn.f32` per thread and took minutes to assemble).

bf16 holds the dequantized values exactly: an f8E4M3FN/f8E5M2 value has at most 4
significant bits, bf16 has 8 and f32's exponent range, so a value times a power of
two 2^-127..2^127 is a bf16 value unless it overflows (as in f32) or falls below
2^-126 with bits under 2^-133 (bf16's smallest subnormal; f32 would keep them down to
2^-149) — only with scales near 2^-127.  Each product of two such values is exact in
the tensor cores' f32 accumulation, and the chained dots add the K groups in order;
the result equals the interpreter's f64 sum up to the f32 roundings of the partial
sums (the tensor cores add in an unspecified order within a step, as for any dot).

f4E2M1FN operands (unpacked from bytes: `reinterpret`, `tileas_to_llvm/slices.py`)
take the same path.  Their values (0, +-0.5 .. +-6) have at most 2 significant bits:
times an f8E8M0FNU scale they are exact in bf16 under the same argument; times an
f8E4M3FN scale (at most 4 significant bits, magnitudes 2^-9 .. 448, or NaN) the
product has at most 6 significant bits and lies in 2^-10 .. 2688, a normal bf16
value, so it is exact too (NaN scales give NaN, as in the interpreter).  sm_100a's
block-scaled `tcgen05.mma` (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`, scales
copied to tensor memory by `tcgen05.cp`) does better, and on sm_100a / sm_103a an
`mmaf_scaled` that one takes (`tcgen05_plan.block_scaled_form`: 8-bit floats, one
f8E8M0FNU factor per 32 elements of K, M a multiple of 128, ...) is kept whole here and
lifted to an `nv_tileaa.dot` with scales, which `convert-tileas-to-llvm` runs on
`tcgen05.mma ... .kind::mxf8f6f4.block_scale` (`tileas_to_llvm/tcgen05.py`).  The others
take the path above, the reason on their last dot (`BLOCK_SCALED_ATTR`, the
`BlockScaledNotNative` remark).

A plain `mmaf` on f8E4M3FN/f8E5M2 operands is not rewritten: it becomes an
`nv_tileaa.dot` on 8-bit floats, which sm_90a computes with `wgmma`, sm_89 on with
8-bit float `mma.sync`, and sm_80 with f16 `mma.sync` on the operands widened
exactly (`tileas_to_llvm/mma.py`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    ModuleOp,
    StringAttr,
    bf16,
    f32,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.diagnostics import not_supported
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import TileType
from tileir.targets import ARCHS
from tileir.transforms.tileas.tcgen05_plan import BlockScaledForm, block_scaled_form

#: On a tcgen05 target, the last `mmaf` of a decomposed `mmaf_scaled` carries why it is
#: not one block-scaled `tcgen05.mma` (a string; carried to its `nv_tileas.dot`).
BLOCK_SCALED_ATTR = "tileir.block_scaled"
#: `wgmma`'s names of the element types `block_scaled_form` takes.
_KINDS = {
    Float8E4M3FNType: "e4m3",
    Float8E5M2Type: "e5m2",
    Float4E2M1FNType: "e2m1",
    Float8E8M0FNUType: "e8m0",
}


def _insert(ops: list[Operation], op: Operation) -> SSAValue:
    ops.append(op)
    return op.results[0]


def _index(ops: list[Operation], value: int) -> SSAValue:
    return _insert(ops, ct.ConstantOp.splat(value, TileType([], i32)))


def _block(ops: list[Operation], x: SSAValue, axis: int, g: int, width: int) -> SSAValue:
    """Block `g` (`width` wide) of `x` along `axis`."""
    shape = list(shape_of(x.type))
    shape[axis] = width
    indices = [_index(ops, g if d == axis else 0) for d in range(len(shape))]
    t = x.type
    assert isinstance(t, TileType)
    return _insert(
        ops,
        ct.ExtractOp.create(operands=[x, *indices], result_types=[TileType(shape, t.element_type)]),
    )


def _converted(ops: list[Operation], x: SSAValue, to: Attribute) -> SSAValue:
    return _insert(
        ops,
        ct.FToFOp.create(
            operands=[x],
            result_types=[TileType(shape_of(x.type), to)],
            properties=ct.FToFOp.default_properties(),
        ),
    )


def _scaled_block(
    ops: list[Operation], x: SSAValue, scale: SSAValue, axis: int, g: int, width: int
) -> SSAValue:
    """K block `g` of `x` times its scale, computed in f32 and held in bf16 (exactly,
    see the module docstring)."""
    xg = _converted(ops, _block(ops, x, axis, g, width), f32)
    sg = _converted(ops, _block(ops, scale, axis, g, 1), f32)
    shape = list(shape_of(xg.type))
    if width > 1:
        sg = _insert(ops, ct.BroadcastOp.create(operands=[sg], result_types=[TileType(shape, f32)]))
    scaled = _insert(
        ops,
        ct.MulFOp.create(
            operands=[xg, sg],
            result_types=[TileType(shape, f32)],
            properties=ct.MulFOp.default_properties(),
        ),
    )
    return _converted(ops, scaled, bf16)


def native_form(
    op: ct.MmaFScaledOp, arch: str, num_warps: int, n_parts: int = 1
) -> BlockScaledForm | str:
    """The block-scaled `tcgen05.mma` that computes `op` (or each of its `n_parts`
    slices along N, as `split-dot-accumulators` would cut it) on `arch` with
    `num_warps` warps, or why none does."""
    kinds = [_KINDS.get(type(element_type(v.type)), str(element_type(v.type))) for v in
             (op.lhs, op.rhs, op.lhs_scale)]  # fmt: skip
    a_shape, b_shape = shape_of(op.lhs.type), shape_of(op.rhs.type)
    m, k = a_shape[-2:]
    groups = shape_of(op.lhs_scale.type)[-1]
    mnk = (m, b_shape[-1] // n_parts, k)
    return block_scaled_form(
        arch, kinds[0], kinds[1], kinds[2], k // groups, mnk, len(a_shape), num_warps
    )


def decompose_scaled_mma(module: ModuleOp, arch: str = "", num_warps: int = 4) -> None:
    """Rewrite every `mmaf_scaled` in `module` as described in the module docstring,
    but those a block-scaled `tcgen05.mma` of `arch` takes (none without an `arch`)."""
    target = ARCHS.get(arch)
    for op in list(module.walk()):
        if not isinstance(op, ct.MmaFScaledOp):
            continue
        why: str | None = None
        if target is not None and target.tcgen05:
            form = native_form(op, arch, num_warps)
            if isinstance(form, BlockScaledForm):
                continue
            why = form
        for operand in (op.lhs, op.rhs):
            el = element_type(operand.type)
            if not isinstance(el, Float8E4M3FNType | Float8E5M2Type | Float4E2M1FNType):
                raise not_supported(
                    op,
                    f"mmaf_scaled on {el} operands",
                    instead="use float8_e4m3fn, float8_e5m2 or float4_e2m1fn operands",
                )
        ops: list[Operation] = []
        rank = len(shape_of(op.lhs.type))
        k = shape_of(op.lhs.type)[-1]
        groups = shape_of(op.lhs_scale.type)[-1]
        width = k // groups
        acc: SSAValue = op.acc
        for g in range(groups):
            a = _scaled_block(ops, op.lhs, op.lhs_scale, rank - 1, g, width)
            b = _scaled_block(ops, op.rhs, op.rhs_scale, rank - 2, g, width)
            # The last dot, whose result is the accumulator's, keeps the discardable
            # attributes (split-dot-accumulators' decision).
            kept = dict(op.attributes) if g == groups - 1 else {}
            if g == groups - 1 and why is not None:
                kept[BLOCK_SCALED_ATTR] = StringAttr(why)
            acc = _insert(
                ops,
                ct.MmaFOp.create(
                    operands=[a, b, acc], result_types=[op.result.type], attributes=kept
                ),
            )
        Rewriter.insert_op(ops, InsertPoint.before(op))
        op.result.replace_all_uses_with(acc)
        op.detach()
        op.erase()
