"""`tileas-unspecialized-pipeline{num-stages=3}`: software-pipeline the loops of kernels
that are not warp-specialized.

A kernel whose producer and consumer run in the same warps (no
`nv_tileas.async.pipeline.agent_switch`, no `create_pipeline`) has no explicit pipeline
whose `numStages` fixes its stage count; this pass gives every loop of such a function
`num-stages` stages and materializes them exactly as `tileas-materialize-schedule` does
(resident loads hoisted, pending tiled loads stage-expanded through loop-carried
replicas, the partition recorded as `nv_tileas.schedule`).  It shares that pass's
analysis, legality and expansion (seed 001's pass table: the unspecialized pipeline is
the schedule materializer with its own stage-count option).  The option overrides any
`nv_tileas.num_stages` hint on a loop.  Warp-specialized functions are left unchanged:
their stages are the pipelines' own.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileir.dialects.nv_tileas.ops import AgentSwitchOp, CreatePipelineOp
from tileir.transforms.tileas.materialize_schedule import check_num_stages, materialize_schedules


def is_warp_specialized(fn: func.FuncOp) -> bool:
    return any(isinstance(op, AgentSwitchOp | CreatePipelineOp) for op in fn.walk())


@dataclass(frozen=True)
class UnspecializedPipelinePass(ModulePass):
    """Pipelines every loop of the functions without warp specialization with
    `num-stages` stages (the `tileas-materialize-schedule` machinery)."""

    name = "tileas-unspecialized-pipeline"

    num_stages: int = 3

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_num_stages(self.name, self.num_stages)
        for fn in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
            if is_warp_specialized(fn):
                continue
            materialize_schedules(fn, lambda _: self.num_stages, lambda _: False)
