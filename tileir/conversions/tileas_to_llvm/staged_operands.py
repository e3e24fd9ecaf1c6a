"""Dot operands a loop does not change, written to shared memory once, before the loop
(`nv_tileas.staged_once`: attention's Q, which `tileas-pipeline-dot-operands` marks on
`wgmma` dots and `tileas-tmem-accumulators` on `tcgen05` ones).

Without it a dot in a loop writes every operand it reads from shared memory each
iteration, so a loop-invariant operand is held in registers across the whole loop (Q of
a 128x128 bf16 attention tile: 32 registers a thread of 256) and written again each
time.  Staged once, it is written right after the ops that compute it, into a buffer of
its own that lives for the whole kernel (`shared_arena.allocate_persistent`), and its
registers die there; the dot reads the buffer.  The dot's CTA barrier before its tensor
core instructions orders every thread's writes, as it does for the writes in the loop,
and `fence.proxy.async` after the writes makes them visible to `wgmma` and `tcgen05`
(the async proxy)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import FunctionState
from tileir.conversions.tileas_to_llvm.exchange import ElementKind, Exchange
from tileir.conversions.tileas_to_llvm.shared_arena import allocate_persistent
from tileir.dialects import nvvm
from tileir.dialects.nv_tileas.core_matrices import BufferView


def stage_once(
    state: FunctionState,
    rewriter: PatternRewriter,
    ex: Exchange,
    vals: Sequence[SSAValue],
    view: BufferView,
    size: int,
    kind: ElementKind,
) -> SSAValue | None:
    """The shared address of a persistent buffer of `size` bytes holding `vals` laid
    out as `view` says (the operand buffer's layout and byte strides), written once
    right after the last op that computes them.  The same registers in the same layout
    are written once for every dot that reads them.  None, and the dot writes them
    itself, where they are not all defined in one block."""
    owners = [v.owner for v in vals if isinstance(v.owner, Operation)]
    block = owners[0].parent_block() if owners else None
    if block is None or len(owners) != len(vals) or any(o.parent is not block for o in owners):
        return None
    layout, strides, swizzle = view
    key = (tuple(id(v) for v in vals), size, layout, tuple(strides), swizzle)
    known = state.staged_operands.get(key)
    if known is not None:
        return known
    last = max(owners, key=block.get_operation_index)
    smem = allocate_persistent(state, rewriter, size, alignment=view.alignment)
    b = LLBuilder(rewriter, InsertPoint.after(last))
    ex.write(b, rewriter, state, list(vals), layout, strides, smem, kind, swizzle=swizzle)
    b.op(nvvm.FenceProxyOp())
    state.staged_operands[key] = smem
    return smem
