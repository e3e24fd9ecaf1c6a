"""`cuda_tile.ftof` f32 -> tf32 marked `nv_tileas.rounded_in_shared`: the stage of a
ring that holds an f32 operand tile is rounded to tf32 where it landed
(`transforms/tileas/tf32_operands.py` says why it must be rounded, and where).

The future's wait (`async_copy.LowerFutureWait`) has just made the thread's own copies
of the stage visible to it (`cp.async.wait_group`; PTX ISA: the writes of the completed
copies are visible to the executing thread; in a ring under mbarriers, sm_90a in one
agent, `mbarrier.try_wait.parity` on the slot's *full* mbarrier, whose phase completes
once every thread's copies have landed and which acquires them).  Each thread then
reads back exactly the words it copied (the tile's layout, seen through the dot's
buffer as the copies saw it: `OperandPlacement.view_of`), rounds them with
`tf32.round_for_tensor_cores` in the op's mode (from sm_90 one `cvt.rn.tf32.f32` a word),
and stores them in place; the dot's CTA barrier
(after `fence.proxy.async`, whose reads go through the async proxy: for `wgmma` the
thread's own, after the last rounding in front of the dot, since the dot fences only
what it writes itself; for `tcgen05` the dot's, with the barrier between the
`tcgen05.fence`s before its one thread issues the MMAs) orders every thread's rounded
words before the tensor cores read the slot, as it orders the copies.  (Under mbarriers the dot keeps that barrier for them:
`AsyncFeeds.ordered_by_mbarriers`.)  No barrier is added:

    cp.async.wait_group 2;                              // (or the full mbarrier's wait)
    ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%r9];      // the thread's 16 copied bytes
    cvt.rn.tf32.f32 %r5, %r1; ...                      // (sm_80: add 0xfff + lowest kept
                                                        //  bit, clear the low 13 bits)
    st.shared.v4.u32 [%r9], {%r5, %r6, %r7, %r8};
    fence.proxy.async.shared::cta;                      // (wgmma, tcgen05) as before
    bar.sync 0;                                         // (tcgen05: between its fences)

In a warp-specialized consumer (the stage of an mbarrier pipeline, `agents.py`) the
producer's threads copied the words, and the consumer's *full* mbarrier wait made them
visible to the consumer's threads: each rounds its words of the tile (the tile's
layout over the consumer's warps), then `fence.proxy.async` (for `wgmma`) and a CTA
barrier, which becomes the consumer's named barrier (`bar.sync 2, 128`), before any of
them issues the tensor-core instructions: one barrier after the last rounding in front
of the dot.

A tile that several threads hold (a replicated layout) is not rounded this way: only one
copy of each element was copied, and the others would read it before it lands
(`tileas-pipeline-dot-operands` keeps such an operand synchronous).
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.conversions.tileas_to_llvm.async_copy import RingPattern
from tileir.conversions.tileas_to_llvm.context import linear_layout
from tileir.conversions.tileas_to_llvm.exchange import element_kind
from tileir.conversions.tileas_to_llvm.tf32 import round_for_tensor_cores
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.nv_tileas import ops as tas
from tileir.transforms.tileas.tf32_operands import ROUNDED_IN_SHARED_ATTR


class LowerRoundInRing(RingPattern):
    """The rounding of a ring's stage in shared memory (module doc)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.FToFOp, rewriter: PatternRewriter) -> None:
        if ROUNDED_IN_SHARED_ATTR not in op.attributes:
            return
        uses = list(op.result.uses)
        dot = uses[0].operation if len(uses) == 1 else None
        if not isinstance(dot, tas.DotOp) or uses[0].index not in (0, 1):
            raise not_supported(op, "a tf32 rounding in shared memory that feeds no dot operand")
        ring = self.feeds.by_dot.get((id(dot), uses[0].index))
        if ring is None or ring.current is None:
            raise not_supported(op, "a tf32 rounding in shared memory of a tile no ring holds")
        state = self.ctx.function_state(op)
        source = op.args[0].type
        layout = linear_layout(op, source)
        if state.owner_predicate(rewriter, layout) is not None:
            raise not_supported(op, "a tf32 rounding in shared memory of a replicated tile")
        view, strides, swizzle = self.feeds.ring_placement(ring).view_of(ring.index, layout)
        kind = element_kind(op, source)
        b = self.builder(rewriter, op)
        ex = self.exchange
        words = ex.read(b, rewriter, state, view, strides, ring.current, kind, swizzle=swizzle)
        mode = op.rounding_mode.data
        tf32 = [round_for_tensor_cores(b, w, mode, self.ctx.arch) for w in words]
        ex.write(b, rewriter, state, tf32, view, strides, ring.current, kind, swizzle=swizzle)
        if _last_rounding(op, dot):
            # The rounded words (generic proxy) are made visible to wgmma (the async
            # proxy) by each thread that stored them; the dot's CTA barrier, or here a
            # consumer's own, orders them before any tensor core reads the slot.
            if dot.atom.info.engine == "wgmma":
                b.op(nvvm.FenceProxyOp())
            if ring.stages:
                # A consumer's stage: its words came from the producer, so the consumer's
                # threads must all be done with them before any tensor core reads the
                # stage (the agent's own named barrier, `agents.name_barriers`).
                b.op(nvvm.Barrier0Op())
        # The dot reads the rounded tile from its slot: no registers stand for it.
        rewriter.replace(op, UnrealizedConversionCastOp.get([], [op.result.type]))


def _last_rounding(op: ct.FToFOp, dot: tas.DotOp) -> bool:
    """Whether `op` is the last stage rounding in front of `dot` (one barrier after all
    of them)."""
    later = op.next_op
    while later is not None and later is not dot:
        if isinstance(later, ct.FToFOp) and ROUNDED_IN_SHARED_ATTR in later.attributes:
            return False
        later = later.next_op
    return True
