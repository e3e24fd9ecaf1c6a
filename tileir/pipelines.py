"""Named pipelines.

`cuda-tile-to-ptx{arch=sm_90a num-warps=4}` runs the whole lowering: every stage is
an ordinary pass, so `tileir-opt -p` can run any prefix and print what it produced.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileir.conversions.cuda_tile_to_tileaa import ConvertCudaTileToTileAAPass
from tileir.conversions.tileaa_to_tileas import ConvertTileAAToTileASPass
from tileir.conversions.tileas_to_llvm import ConvertTileASToLLVMPass
from tileir.diagnostics import CompileError, location_of
from tileir.targets import resolve_gpu_name
from tileir.transforms.cse import CommonSubexpressionElimination
from tileir.transforms.cuda_tile.split_accumulators import SplitAccumulatorsPass
from tileir.transforms.cuda_tile.split_k_steps import SplitKStepsPass
from tileir.transforms.cuda_tile.split_reductions import SplitReductionsPass
from tileir.transforms.dce import DeadCodeElimination
from tileir.transforms.llvm.defer_read_barriers import DeferReadBarriersPass
from tileir.transforms.llvm.hoist_copy_invariants import HoistCopyInvariantsPass
from tileir.transforms.llvm.remat_after_loops import RematAfterLoopsPass
from tileir.transforms.llvm.sink_tmem_loads import SinkTmemLoadsPass
from tileir.transforms.tileaa.canonicalize import TileAACanonicalizePass
from tileir.transforms.tileaa.drop_unit_dims import TileAADropUnitDimsPass
from tileir.transforms.tileas.assign_layouts import AssignLayoutsPass
from tileir.transforms.tileas.canonicalize import TileASCanonicalizePass
from tileir.transforms.tileas.insert_barriers import InsertBarriersPass
from tileir.transforms.tileas.overlap_attention_dots import OverlapAttentionDotsPass
from tileir.transforms.tileas.pipeline_dot_operands import PipelineDotOperandsPass
from tileir.transforms.tileas.select_dot_atoms import SelectDotAtomsPass
from tileir.transforms.tileas.sink_loads import SinkLoadsPass
from tileir.transforms.tileas.specialize_agents import SpecializeAgentsPass
from tileir.transforms.tileas.tcgen05_agents import Tcgen05AgentsPass
from tileir.transforms.tileas.tma_feeds import TmaFeedsPass
from tileir.transforms.tileas.tmem_accumulators import TmemAccumulatorsPass
from tileir.transforms.tileas.widen_stores import WidenStoresPass

#: The stages `tileir-as --emit` can stop after, in order.
STAGES = ("cuda_tile", "tileaa", "tileas", "llvm", "ptx")


def stage_passes(
    arch: str, num_warps: int, warp_specialize: bool = True, tma_feeds: bool = False
) -> list[tuple[str, list[ModulePass]]]:
    """The passes that produce each stage after `cuda_tile` (`warp_specialize=False`
    keeps every K loop in one agent; `tma_feeds=True` feeds warp-specialized producers
    by TMA where `tileas-tma-feeds` can, off until a GPU has run it)."""
    return [
        (
            "tileaa",
            [
                SplitAccumulatorsPass(arch=arch, num_warps=num_warps),
                SplitKStepsPass(arch=arch),
                SplitReductionsPass(arch=arch, num_warps=num_warps),
                ConvertCudaTileToTileAAPass(arch=arch, num_warps=num_warps),
                TileAACanonicalizePass(),
                TileAADropUnitDimsPass(),
                CommonSubexpressionElimination(),
                DeadCodeElimination(),
            ],
        ),
        (
            "tileas",
            [
                ConvertTileAAToTileASPass(arch=arch),
                AssignLayoutsPass(num_warps=num_warps, arch=arch),
                SelectDotAtomsPass(arch=arch),
                WidenStoresPass(arch=arch),
                TileASCanonicalizePass(),
                DeadCodeElimination(),
                SinkLoadsPass(),
                InsertBarriersPass(),
                PipelineDotOperandsPass(arch=arch, warp_specialize=warp_specialize),
                OverlapAttentionDotsPass(arch=arch),
                SpecializeAgentsPass(),
                *([TmaFeedsPass(arch=arch)] if tma_feeds else []),
                TmemAccumulatorsPass(),
                Tcgen05AgentsPass(),
            ],
        ),
        (
            "llvm",
            [
                ConvertTileASToLLVMPass(arch=arch),
                CommonSubexpressionElimination(),
                DeadCodeElimination(),
                HoistCopyInvariantsPass(),
                RematAfterLoopsPass(),
                SinkTmemLoadsPass(),
                DeferReadBarriersPass(),
            ],
        ),
    ]


def run_stages(
    ctx: Context,
    module: ModuleOp,
    arch: str,
    num_warps: int = 4,
    stop_after: str = "llvm",
    on_pass: Callable[[str, ModulePass, ModuleOp], None] | None = None,
) -> None:
    """Lower `module` in place up to and including `stop_after`."""
    for stage, passes in stage_passes(arch, num_warps):
        for p in passes:
            p.apply(ctx, module)
            if on_pass is not None:
                on_pass(stage, p, module)
        if stage == stop_after:
            return


@dataclass(frozen=True)
class CudaTileToPtxPipeline(ModulePass):
    """cuda_tile -> nv_tileaa -> nv_tileas -> llvm + nvvm; print PTX with `-t ptx`."""

    name = "cuda-tile-to-ptx"

    arch: str = "sm_90a"
    num_warps: int = 4
    #: Whether `wgmma` K loops become producer and consumer agents (sm_90a).
    warp_specialize: bool = True
    #: Whether `tileas-tma-feeds` runs (off: no GPU has run its PTX yet).
    tma_feeds: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for _, p in self.steps(op):
            p.apply(ctx, op)

    def steps(self, op: ModuleOp) -> list[tuple[str, ModulePass]]:
        """The passes this pipeline runs on `op`, each with the stage it produces (its
        options checked first): what `--print-ir-after-all` and `--time-passes` show."""
        arch = resolve_gpu_name(self.arch, "cuda-tile-to-ptx target")
        check_num_warps(self.num_warps, op)
        stages = stage_passes(arch, self.num_warps, self.warp_specialize, self.tma_feeds)
        return [(stage, p) for stage, passes in stages for p in passes]


def expand(p: ModulePass, op: ModuleOp) -> list[tuple[str, ModulePass]] | None:
    """The (stage, pass) steps a named pipeline stands for on `op`; None for a pass that
    is not a pipeline."""
    return p.steps(op) if isinstance(p, CudaTileToPtxPipeline) else None


#: The warps per CTA the layouts support.
NUM_WARPS = (1, 2, 4, 8, 16, 32)


def check_num_warps(num_warps: int, module: ModuleOp) -> None:
    """`num-warps` must be a power of two up to 32; the error is located at the first
    kernel of `module` (the code that would be laid out over those warps)."""
    if num_warps in NUM_WARPS:
        return
    where = next((location_of(o) for o in module.walk() if location_of(o) is not None), None)
    raise CompileError(
        f"num-warps must be one of {', '.join(map(str, NUM_WARPS))}, got {num_warps}", where
    )
