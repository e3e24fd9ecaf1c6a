"""Tiled memory ops: `nv_tileas.tiled_load` and `nv_tileas.tiled_store`.  Groups of
contiguous registers move with one vector instruction of the atom's width (PTX from
`backend/ptx/memory_asm.py`); masked groups fall back to per-element predicated
accesses at the edges; the memory semantic and scope become `ld`/`st` qualifiers.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    IntegerAttr,
    IntegerType,
    i8,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.analysis.axis_info import AxisInfoAnalysis
from tileir.backend.ptx.memory_asm import (
    Qualifiers,
    load_group,
    packs_bytes,
    store_group,
    unpack_word,
)
from tileir.conversions.tileas_to_llvm.affine_addresses import group_addresses
from tileir.conversions.tileas_to_llvm.context import (
    element_bits,
    is_representative,
    linear_layout,
    llvm_scalar_type,
    representative,
)
from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.diagnostics import not_supported
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import MemScope, MemSemantic
from tileir.dialects.nv_tileas.canonicalize import constant_int
from tileir.dialects.nv_tileas.layouts import LinearLayout, uniform_groups
from tileir.utils.numeric import numpy_bits

PTX_SCOPE = {
    MemScope.TL_BLK: "cta",
    MemScope.CLUSTER: "cluster",
    MemScope.GPU: "gpu",
    MemScope.SYS: "sys",
}


def qualifiers(op: tas.TiledMemoryOp) -> Qualifiers:
    sem = op.semantic()
    if sem is MemSemantic.WEAK:
        return Qualifiers()
    scope = op.properties.get("mem_scope")
    ptx_scope = PTX_SCOPE[scope.data] if scope is not None else "gpu"  # pyright: ignore[reportAttributeAccessIssue]
    name = {MemSemantic.ACQUIRE_RELEASE: "acq_rel"}.get(sem, sem.value)
    return Qualifiers(name, ptx_scope)


def vector_groups(
    layout: LinearLayout, atom_bits: int, bits: int, vector_ok: bool
) -> tuple[int, list[int]]:
    """(elements per access, first register of each distinct group)."""
    vec = layout.vector_elements(max(1, atom_bits // bits) if vector_ok else 1)
    # Registers that only repeat another register (zero bases) are not accessed twice.
    distinct = [r for r in range(0, layout.num_registers, vec) if is_representative(layout, r)]
    return vec, distinct


#: The most 32-bit words of a stored tile a thread may hold for its groups to take one
#: predicate each where the mask allows (`uniform_groups`; `LowerTiledStore`), in a
#: kernel with a dot (`stores_beside_dots`): without one, any share does.
UNIFORM_STORE_WORDS = 32


def stores_beside_dots(module: Operation) -> set[int]:
    """The `tiled_store`s (by id) of the kernels of `module` that have a dot: there the
    accumulators hold most of the registers, and the per-element fallback of a large
    masked store kept ptxas from spilling (`UNIFORM_STORE_WORDS`).  Elsewhere nothing
    competes with the stored tile, and the fallback cost registers and code alone (the
    held-out `t_copy_2d_f32_permuted`, 128 words a thread: 192 registers, 128 scalar
    stores that the vector ones make dead)."""
    out: set[int] = set()
    for fn in module.walk():
        if not isinstance(fn, llvm.FuncOp):
            continue
        ops = list(fn.walk())
        if any(isinstance(o, tas.DotOp | tas.AsyncDotOp) for o in ops):
            out.update(id(o) for o in ops if isinstance(o, tas.TiledStoreOp))
    return out


def mask_runs(module: Operation) -> dict[int, tuple[int, ...]]:
    """Per masked `tiled_load`, `async.tiled_load` and `tiled_store` of `module` (by id):
    the runs its mask is constant in, per dimension (`AxisInfo.constancy`), read before
    the mask's ops are lowered to registers (`uniform_groups` then knows a vector's
    elements share one predicate without comparing register values)."""
    analysis = AxisInfoAnalysis()
    return {
        id(o): analysis.get(o.mask).constancy
        for o in module.walk()
        if isinstance(o, tas.TiledLoadOp | tas.AsyncTiledLoadOp | tas.TiledStoreOp)
        and o.mask is not None
    }


def padding_bits(op: tas.TiledLoadOp | tas.AsyncTiledLoadOp) -> int:
    pad = op.properties.get("padding_value")
    if pad is None:
        return 0
    from xdsl.dialects.builtin import FloatAttr

    t = op.loaded_type() if isinstance(op, tas.AsyncTiledLoadOp) else op.result.type
    el = element_type(t)
    if isinstance(pad, FloatAttr):
        return numpy_bits(pad.value.data, el)
    if isinstance(pad, IntegerAttr):
        return pad.value.data
    return 0


def one_predicate(preds: Sequence[SSAValue]) -> bool:
    """Whether a group's element predicates are one value (then the group moves all or
    nothing with one guarded vector access, `memory_asm`)."""
    return bool(preds) and all(p is preds[0] for p in preds)


def pointer_view(
    op: tas.TiledLoadOp | tas.AsyncTiledLoadOp | tas.TiledStoreOp, what: str
) -> tas.ViewOp:
    """The view of global pointers `op` accesses.  Such a view addresses one element per
    pointer, so the access is the whole view: its coordinates and offsets must be
    constant zeros.  Anything else (another kind of view, or a tile further along, as a
    pipelining pass would index) is refused rather than silently read at the origin."""
    view = op.view.owner
    if not isinstance(view, tas.ViewOp):
        raise not_supported(op, f"tiled {what} views other than global pointer tiles")
    for v in (*op.coords, *op.offsets):
        if constant_int(v) != 0:
            raise not_supported(
                op, "a tiled access of a pointer view at a coordinate or offset other than 0"
            )
    return view


class LowerTiledLoad(TilePattern):
    """Groups of contiguous registers move with one vector instruction of the atom's
    width; masked groups fall back to per-element predicated loads at the edges."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.TiledLoadOp, rewriter: PatternRewriter) -> None:
        view = pointer_view(op, "loads from")
        t = op.result.type
        el = element_type(t)
        is_bool = isinstance(el, IntegerType) and el.width.data == 1
        storage = i8 if is_bool else llvm_scalar_type(el)
        bits = element_bits(t)
        ptrs = self.ctx.registers_of(op, view.src)
        masks = self.ctx.registers_of(op, op.mask) if op.mask is not None else None
        quals = qualifiers(op)
        layout = linear_layout(op, t) if shape_of(t) else None
        if layout is not None:
            vec, groups = vector_groups(layout, op.atom.info.bits, bits, quals.semantic == "weak")
        else:
            # A scalar: every thread loads it (every thread holds the value).
            vec, groups = 1, [0]
        b = self.builder(rewriter, op)
        ptrs = group_addresses(self.ctx, op, b, view.src, ptrs, groups)
        values: dict[int, SSAValue] = {}
        pad = padding_bits(op)
        aligned = layout is not None and uniform_groups(layout, vec, self.ctx.mask_runs.get(id(op)))
        for g in groups:
            regs = list(range(g, g + vec))
            preds = [masks[r] for r in regs] if masks is not None else []
            uniform = aligned or one_predicate(preds)
            if uniform:
                preds = preds[:1]
            # Bytes stay packed in their words until `llvm-sink-tmem-loads` unpacks each
            # word where its bytes are first used (`memory_asm.unpack_word`).
            packed = packs_bytes(bits, vec, len(preds))
            group = load_group(storage, bits, vec, ptrs[g], preds, pad, quals, packed)
            outs = b.asm(group, side_effects=quals.semantic != "weak")
            if packed:
                outs = [v for w in outs for v in b.asm(unpack_word(w, storage), False)]
            for r, v in zip(regs, outs, strict=True):
                values[r] = b.icmp("ne", v, b.const(0, i8)) if is_bool else v
        if layout is None:
            result = [values[0]]
        else:
            result = [values[representative(layout, r)] for r in range(layout.num_registers)]
        rewriter.replace(op, [], [self.ctx.pack(rewriter, result, t)])


class LowerTiledStore(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.TiledStoreOp, rewriter: PatternRewriter) -> None:
        view = pointer_view(op, "stores to")
        t = op.value.type
        el = element_type(t)
        is_bool = isinstance(el, IntegerType) and el.width.data == 1
        bits = element_bits(t)
        ptrs = self.ctx.registers_of(op, view.src)
        values = self.ctx.registers_of(op, op.value)
        masks = self.ctx.registers_of(op, op.mask) if op.mask is not None else None
        quals = qualifiers(op)
        layout: LinearLayout | None = None
        if shape_of(t):
            layout = linear_layout(op, t)
            vec, groups = vector_groups(layout, op.atom.info.bits, bits, quals.semantic == "weak")
            owner = self.ctx.function_state(op).owner_predicate(rewriter, layout)
        else:
            # A scalar: every thread holds the same value; one thread stores it.
            vec, groups = 1, [0]
            owner = self.ctx.function_state(op).owner_predicate_all(rewriter)
        b = self.builder(rewriter, op)
        ptrs = group_addresses(self.ctx, op, b, view.src, ptrs, groups)
        # Groups inside one run of the mask store all or nothing (`uniform_groups`), for
        # a thread's share of at most `UNIFORM_STORE_WORDS` words: larger ones keep the
        # per-element fallback, without which ptxas spilled in GEMM epilogues that spilled
        # nothing with it (NVIDIA's cuTile 128x256 f16 matmul sample on sm_90a, 64 words
        # a thread: 0 -> 372 bytes).
        aligned = (
            masks is not None
            and layout is not None
            and (
                (len(values) * bits + 31) // 32 <= UNIFORM_STORE_WORDS
                or id(op) not in self.ctx.stores_beside_dots
            )
            and uniform_groups(layout, vec, self.ctx.mask_runs.get(id(op)))
        )
        for g in groups:
            regs = list(range(g, g + vec))
            preds = [masks[r] for r in regs] if masks is not None else []
            uniform = not preds or aligned or one_predicate(preds)
            if preds and uniform:
                preds = preds[:1]
            if owner is not None:
                preds = [b.and_(p, owner) for p in preds] if preds else [owner]
            data = [values[r] for r in regs]
            if is_bool:
                data = [b.zext(v, i8) for v in data]
            b.asm(store_group(bits, data, ptrs[g], preds, quals))
        rewriter.erase(op)
