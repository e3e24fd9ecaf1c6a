"""`nv_tileas.cta_barrier` (tileir/dialects/nv_tileas/ops/synchronization.py): one
`nvvm.barrier0` (`bar.sync 0`).  Where a barrier is needed was decided by
`tileas-insert-barriers`; this lowering only carries it out.  A barrier that waits for
`wgmma` groups first (`nv_tileas.wgmma_pending`, `tileas-overlap-attention-dots`) is
`wgmma.wait_group N` then `bar.sync 0`."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects import nvvm
from tileir.dialects.nv_tileas import ops as tas
from tileir.transforms.tileas.overlap_attention_dots import wgmma_pending


class LowerCtaBarrier(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.CtaBarrierOp, rewriter: PatternRewriter) -> None:
        pending = wgmma_pending(op)
        waits = [] if pending is None else [nvvm.WgmmaWaitGroupSyncOp(pending)]
        rewriter.replace(op, [*waits, nvvm.Barrier0Op()], [])
