"""`tileas-widen-stores{arch=sm_90a}`: stage a global store through shared memory when
that lets every thread store full 16-byte vectors.

Why.  `tileas-assign-layouts` gives a dot's accumulator the MMA layout
(`#nv_tileas.mma`), in which each thread holds runs of only two consecutive columns,
and keeps it up to the final store so that the K loop needs no data movement.  Stored
from those registers, a GEMM's result tile leaves every thread with 8-byte f32 (or
4-byte f16) vectors, plus one scalar `st.global` per element wherever the ragged-edge
mask differs within a run: `gemm_f16` on sm_90a stored with 8 `st.global.v2.b32` and
16 `st.global.b32` per thread.  tileiras stages such an epilogue through shared memory
and stores wide; this pass makes tileir do the same, and decides it here, where
`--emit=tileas` shows it, rather than in the LLVM lowering.

What.  For each weak `nv_tileas.tiled_store` through a view of global pointers whose
value's layout moves at most `NARROW_BYTES` per access while its atom and the axis
analysis allow `WIDE_BYTES` along the pointers' contiguous dimension, the stored value
gets an `nv_tileas.convert_layout` to the coalesced blocked layout
`tileas-assign-layouts` would give such a store (`default_blocked`: 16 bytes a thread
along that dimension, lanes then warps), and the pointers and the mask are recomputed
in that layout (`Rematerializer`: iotas, splats, broadcasts, comparisons, `addptr`; a
tile of pointers or a mask is never exchanged).  The store then moves whole 16-byte
vectors (`st.global.v4.b32`).  `convert-tileas-to-llvm` lowers the conversion as
every `convert_layout`: one exchange through the kernel's shared-memory arena
(`exchange.py`), a write, a barrier, a read and a barrier.

Why it is legal.  The conversion moves each element to another thread and nothing
else; the recomputed pointers and mask are the same functions of the tile coordinate
as before (the same ops, only distributed differently), so the store writes the same
values to the same addresses under the same mask, ragged edges included.  The
exchange touches shared memory only, and brackets itself with barriers like every
other use of the arena.

When it pays, and only then.  The exchange costs a shared-memory round trip and two
barriers; it is made only for elements of at least 2 bytes (the exchange moves bytes
one at a time, an `st.shared` and an `ld.shared` per element), where the vector grows
from at most 8 to 16 bytes a thread,
where the tile has at least a 16-byte vector for every thread of the CTA (the new
layout holds no copies of elements, and gives a thread no more registers than the old
one: a 16-element row sum over 128 threads stays as it is), where a thread's share of
the tile is at most `MAX_STAGED_WORDS` registers (larger accumulators come with kernels
at the register limit, where the exchange's extra registers spill), where the pointers and mask can
be recomputed (a pointer chain of at most `MAX_REMATERIALIZED_OPS` cheap ops), and
where the exchange's buffer (the tile row-major, rows padded by one word) fits the
static shared memory ptxas accepts on the target (`targets.GpuArch.static_shared`: 48
KiB before sm_90), so that it never turns a kernel's arena into dynamic shared memory.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.analysis.axis_info import AxisInfoAnalysis, element_bytes
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileas import ops as tas
from tileir.dialects.nv_tileas.attributes import MemSemantic
from tileir.dialects.nv_tileas.canonicalize import constant_int
from tileir.dialects.nv_tileas.layouts import (
    WARP_SIZE,
    BlockedLayoutAttr,
    DistributedLayout,
    LinearLayout,
    default_blocked,
)
from tileir.targets import ARCHS, resolve_gpu_name
from tileir.transforms.tileas.assign_layouts import NUM_WARPS_ATTR, Rematerializer, tile_words

#: Bytes a thread's store moves per access at most for the exchange to be worth it.
NARROW_BYTES = 8
#: Bytes per access a thread moves after it: one `st.global.v4.b32`.
WIDE_BYTES = 16
#: The most 32-bit registers of the stored tile a thread may hold for the exchange to
#: be made.  `gemm_bf16_big_tile` (a 128x64 f32 accumulator over 128 threads, 64 a
#: thread, 255 registers in its K loop) spilled with it: 0 -> 4 bytes on sm_90a, 8 ->
#: 12 on sm_80; its 32-register peers (`gemm_tf32`, `block_scaled_mm_e4m3`) do not.
MAX_STAGED_WORDS = 32


def access_elements(layout: LinearLayout, limit: int) -> int:
    """Elements one access of the LLVM lowering moves for a tile in `layout`: the
    registers stepping by one element along the dimension of its first register basis
    (`tiled_memory.vector_groups`), at most `limit`."""
    first = layout.registers[0] if layout.registers else None
    if first is None or sum(1 for x in first if x) != 1:
        return 1
    dim = next(i for i, x in enumerate(first) if x)
    return min(limit, layout.contiguous_registers(dim))


def exchange_bytes(shape: tuple[int, ...], size: int) -> int:
    """Bytes of the buffer a `convert_layout` of a tile of `shape` goes through: the
    tile row-major, each row padded by one 32-bit word (one element if wider)."""
    if len(shape) < 2:
        return math.prod(shape) * size
    rows = math.prod(shape[:-1])
    return rows * (shape[-1] * size + max(size, 4))


@dataclass(frozen=True)
class WideStore:
    """A store this pass rewrites: its view and the layout it stores in."""

    store: tas.TiledStoreOp
    view: tas.ViewOp
    layout: BlockedLayoutAttr


def wide_layout(
    store: tas.TiledStoreOp,
    analysis: AxisInfoAnalysis,
    num_warps: int,
    static_shared: int,
) -> WideStore | None:
    """The blocked layout in which `store` moves `WIDE_BYTES` a thread, or None where
    the rule of the module docstring says the exchange does not pay."""
    view = store.view.owner
    t = store.value.type
    if not isinstance(view, tas.ViewOp) or view.is_value_view or not isinstance(t, TensorType):
        return None
    if store.semantic() is not MemSemantic.WEAK:
        return None  # the lowering vectorizes weak accesses only
    if any(constant_int(v) != 0 for v in (*store.coords, *store.offsets)):
        return None
    layout = t.encoding
    shape = tuple(shape_of(t))
    if not isinstance(layout, DistributedLayout) or not shape:
        return None
    size = element_bytes(element_type(t))
    if size < 2:
        # The exchange moves bytes one at a time (`exchange.vector_width`): staging a
        # 16x32 i8 scan result (one warp, 4-byte vectors) cost 16 `st.shared.b8`,
        # 16 `ld.shared.b8` and two barriers a thread to save 3 global stores.
        return None
    atom_elements = store.atom.info.bits // (8 * size)
    if atom_elements * size < WIDE_BYTES:
        return None
    old = layout.linear(list(shape))
    if access_elements(old, atom_elements) * size > NARROW_BYTES:
        return None
    contiguity = analysis.get(view.src).contiguity
    order = tuple(sorted(range(len(shape)), key=lambda d: (-contiguity[d], -d)))
    wide = min(
        atom_elements,
        analysis.vector_elements(view.src, order[0], WIDE_BYTES),
        shape[order[0]],
    )
    if wide * size < WIDE_BYTES or math.prod(shape) < num_warps * WARP_SIZE * wide:
        return None  # too narrow, or a tile smaller than the CTA's vectors (copies)
    new_layout = default_blocked(shape, num_warps, wide, order)
    new = new_layout.linear(list(shape))
    if new.num_registers > old.num_registers or access_elements(new, wide) != wide:
        return None
    if tile_words(t) > MAX_STAGED_WORDS * num_warps * WARP_SIZE:
        return None  # a share of the tile this large leaves no registers to spare
    if exchange_bytes(shape, size) > static_shared:
        return None
    return WideStore(store, view, new_layout)


def widen(candidate: WideStore, remat: Rematerializer) -> bool:
    """Store `candidate` in its wide layout: the value converted (or recomputed),
    pointers and mask recomputed.  False, changing nothing, where the pointers or the
    mask cannot be recomputed."""
    store, view, layout = candidate.store, candidate.view, candidate.layout
    recomputed = [view.src] + ([store.mask] if store.mask is not None else [])
    if not all(remat.recomputes(v, layout) for v in recomputed):
        return False
    at = InsertPoint.before(store)
    pointers = remat.value_in(view.src, layout, at, store.location)
    new_view = tas.ViewOp(pointers, view.result.type)
    new_view.location = view.location
    Rewriter.insert_op(new_view, at)
    store.operands[0] = new_view.result
    store.operands[1] = remat.value_in(store.value, layout, at, store.location)
    if store.mask is not None:
        store.operands[len(store.operands) - 1] = remat.value_in(
            store.mask, layout, at, store.location
        )
    return True


@dataclass(frozen=True)
class WidenStoresPass(ModulePass):
    """Narrow global stores staged through shared memory for 16-byte vectors (module
    docstring); follow with `dce` for the pointer and mask tiles left unused."""

    name = "tileas-widen-stores"

    arch: str = "sm_90a"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        arch = resolve_gpu_name(self.arch, "tileas-widen-stores target")
        static_shared = min(ARCHS[arch].static_shared, ARCHS[arch].shared_per_block)
        for fn in op.walk():
            if not isinstance(fn, func.FuncOp):
                continue
            warps = fn.attributes.get(NUM_WARPS_ATTR)
            if not isinstance(warps, IntegerAttr):
                continue  # layouts not assigned: nothing to widen
            analysis = AxisInfoAnalysis()
            remat = Rematerializer()
            stores = [s for s in fn.walk() if isinstance(s, tas.TiledStoreOp)]
            for store in stores:
                candidate = wide_layout(store, analysis, warps.value.data, static_shared)
                if candidate is not None:
                    widen(candidate, remat)
