"""Programmatic dependent launch: `nv_tileas.gdc_wait` and `gdc_launch_dependents`
(cuda_tile's `gdc_wait_tko` and `gdc_launch_dependents_tko`, 13.4).

`nvvm.griddepcontrol wait` (`griddepcontrol.wait`) blocks until the grids this one depends on have completed and
their memory is visible; `nvvm.griddepcontrol launch_dependents` lets the grids that depend
on this one start before it ends.  Both exist from sm_90 on.  Earlier GPUs have no
programmatic dependent launch: a dependent grid starts only after this one has ended, so
the wait is already satisfied and the early launch cannot happen, and both ops lower to
nothing."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.dialects import nvvm
from tileir.dialects.nv_tileas import ops as tas
from tileir.targets import compute_capability

#: The first compute capability with `griddepcontrol` (PTX ISA 7.8).
FIRST_ARCH_WITH_GRID_DEPENDENCY = 90


class LowerGridDependency(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: tas.GdcWaitOp | tas.GdcLaunchDependentsOp, rewriter: PatternRewriter
    ) -> None:
        if compute_capability(self.ctx.arch) >= FIRST_ARCH_WITH_GRID_DEPENDENCY:
            kind = "wait" if isinstance(op, tas.GdcWaitOp) else "launch_dependents"
            self.builder(rewriter, op).op(nvvm.GriddepcontrolOp(kind))
        rewriter.erase(op)
