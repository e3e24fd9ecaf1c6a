"""Strength-reduced addresses of tiled loads and stores.

A tile of pointers is lowered register by register: cuTile's `splat(base) + row *
stride + col` becomes, for each of a thread's registers, its own 64-bit chain of
conversions, multiplies and adds.  ptxas hoists those chains above the loads they feed,
so all of a thread's addresses are live at once (a 128x64 f32 tile read in 16-byte
vectors: 16 addresses, 32 registers, NVIDIA's x_permute_2d_f32 at 92 registers against
tileiras's 86).

Where the pointer tile is affine in its coordinates, `ptr(c) = P + sum_d c_d * K_d`
(P and every K_d the same for the whole tile; K_d a constant, or a constant times a
runtime value such as a row stride), and the layout's register bits never overlap its
lane and warp bits in a coordinate (then a register's coordinate is the thread's plus
the register's own offset, `c(r) = c(0) + R(r)`), each access group's address is the
thread's first address plus `sum_d R_d(r) * K_d` bytes: a constant, or one `mul.wide`
of a 32-bit stride by a constant plus one add (ptxas's `IMAD.WIDE.U32`, as tileiras
computes them).  The affine form is read from the nv_tileas ops before they are
lowered (`plan_affine_addresses`); the runtime factors it needs are held by an operand-
only `unrealized_conversion_cast` placed before the access, whose operands follow the
lowering's replacements, and which the access's lowering erases.  Everything else keeps
the pointer tile's own registers.  The arithmetic is exact: the offsets are the same
sums modulo 2^64 as the per-register chains, and a narrow offset counts only where
its values are known to fit before it is extended.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp, i8, i64
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.analysis.affine_forms import AffineAccess, AffineForms
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
    disjoint_bits,
    linear_layout,
)
from tileir.dialects.cuda_tile.carriers import shape_of
from tileir.dialects.nv_tileas import ops as tas

#: The accesses whose groups are addressed from the thread's first address: synchronous
#: loads and stores, and the `cp.async` copies of the operand rings (`async_copy.py`).
TiledAccess = tas.TiledLoadOp | tas.TiledStoreOp | tas.AsyncTiledLoadOp


def plan_affine_addresses(
    module: ModuleOp, ring_unit_views: bool = True
) -> dict[int, AffineAccess]:
    """Per `tiled_load`, `tiled_store` and `async.tiled_load` whose pointer tile is
    affine and not uniform (by id): its form, with the runtime scales anchored before it
    (see the module's docstring)."""
    forms = AffineForms()
    # Ring copies see through unit-dimension views (a batched or attention operand's
    # `1 x M x K` pointers seen as `M x K`) where `ring_unit_views`: not on the tcgen05
    # targets, where it cost registers and spills (ptxas 13, sm_100a: s_bmm_f16 0 -> 52
    # bytes at its 152 registers, s_moe_fused_w1_bf16 128 -> 167 registers).  On sm_90a
    # and sm_80 no kernel spills more with it (t_attention_bf16_d128_causal, which spilled
    # more when it spilled at all, 688 -> 700 bytes, now fits either way), and NVIDIA's
    # attention samples' K and V copies no longer recompute a 64-bit chain per 16-byte
    # group in every iteration (docs/codegen.md, "Attention: where the instructions go").
    ring_forms = forms if ring_unit_views else AffineForms(unit_views=False)
    plans: dict[int, AffineAccess] = {}
    for op in list(module.walk()):
        if not isinstance(op, TiledAccess):
            continue
        view = op.view.owner
        if not isinstance(view, tas.ViewOp) or not shape_of(view.src.type):
            continue
        form = (ring_forms if isinstance(op, tas.AsyncTiledLoadOp) else forms).get(view.src)
        if form is None or form.uniform:
            continue
        scales: list[SSAValue] = []
        for ts in form.terms:
            for t in ts:
                if t.scale is not None and all(t.scale is not s for s in scales):
                    scales.append(t.scale)
        anchor = None
        if scales:
            anchor = UnrealizedConversionCastOp.get(scales, [])
            Rewriter.insert_op(anchor, InsertPoint.before(op))
        plans[id(op)] = AffineAccess(form, scales, anchor)
    return plans


def group_addresses(
    ctx: LoweringContext,
    op: TiledAccess,
    b: LLBuilder,
    pointers: SSAValue,
    registers: Sequence[SSAValue],
    groups: Sequence[int],
) -> list[SSAValue]:
    """The address of each register of `pointers` that starts a group, as the thread's
    first address plus the group's offset where the plan allows, else the pointer
    tile's own registers (the other entries are left as they are)."""
    plan = ctx.affine_addresses.pop(id(op), None)
    result = list(registers)
    if plan is None:
        return result
    scales: list[SSAValue] = []
    if plan.anchor is not None:
        scales = [ctx.registers_of(op, v)[0] for v in plan.anchor.operands]
        plan.anchor.detach()
        plan.anchor.erase()
    layout = linear_layout(op, pointers.type)
    if len(registers) != layout.num_registers or not disjoint_bits(layout):
        return result
    first = registers[0]
    for g in groups:
        coord = layout.register_coord(g)
        constant = 0
        by_scale = [0] * len(scales)
        for c, ts in zip(coord, plan.form.terms, strict=True):
            for t in ts:
                if t.scale is None:
                    constant += c * t.factor
                else:
                    i = next(i for i, s in enumerate(plan.scales) if s is t.scale)
                    by_scale[i] += c * t.factor
        result[g] = _offset(b, first, constant, scales, by_scale)
    return result


def _offset(
    b: LLBuilder, first: SSAValue, constant: int, scales: Sequence[SSAValue], factors: list[int]
) -> SSAValue:
    """`first + constant + sum(factor * scale)` bytes; a factor times a zero-extended
    32-bit scale prints as one `mul.wide.u32` (`backend/ptx/instructions.py`)."""
    total: SSAValue | None = None
    for s, k in zip(scales, factors, strict=True):
        if k == 0:
            continue
        term = b.mul(s, b.const(k, i64))
        total = term if total is None else b.add(total, term)
    if total is None:
        if constant == 0:
            return first
        return b.v(
            llvm.GEPOp.from_mixed_indices(first, [constant], i8, result_type=first.type)  # pyright: ignore[reportArgumentType]
        )
    if constant:
        total = b.add(total, b.const(constant, i64))
    return b.gep(first, total, i8)
