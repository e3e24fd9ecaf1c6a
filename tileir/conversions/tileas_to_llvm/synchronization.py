"""`nv_tileas.cta_barrier` (tileir/dialects/nv_tileas/ops/synchronization.py): one
`nvvm.barrier0` (`bar.sync 0`).  Where a barrier is needed was decided by
`tileas-insert-barriers`; this lowering only carries it out."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects import nvvm
from tileir.dialects.nv_tileas import ops as tas


class LowerCtaBarrier(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.CtaBarrierOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, [nvvm.Barrier0Op()], [])
