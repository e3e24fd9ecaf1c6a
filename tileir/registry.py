"""What tileir registers with xDSL: dialects, passes, targets, frontends.

`tileir-opt`, stock `xdsl-opt` (through the `xdsl.universe` entry point) and the Python
API all read these tables, so a dialect or pass added here is visible everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect
from xdsl.passes import ModulePass


def _cuda_tile() -> Dialect:
    from tileir.dialects.cuda_tile import CudaTile

    return CudaTile


def _nv_tileaa() -> Dialect:
    from tileir.dialects.nv_tileaa import NvTileAA

    return NvTileAA


def _nv_tileas() -> Dialect:
    from tileir.dialects.nv_tileas import NvTileAS

    return NvTileAS


def _async() -> Dialect:
    from tileir.dialects.nv_tileas.foreign import Async

    return Async


def _cute_nvgpu() -> Dialect:
    from tileir.dialects.nv_tileas.foreign import CuteNvgpu

    return CuteNvgpu


def _nvvm() -> Dialect:
    from tileir.dialects.nvvm import NVVM

    return NVVM


DIALECTS: dict[str, Callable[[], Dialect]] = {
    "cuda_tile": _cuda_tile,
    "nv_tileaa": _nv_tileaa,
    "nv_tileas": _nv_tileas,
    # The two foreign types nv_tileas seeds write (tileir/dialects/nv_tileas/foreign.py).
    "async": _async,
    "cute_nvgpu": _cute_nvgpu,
    "nvvm": _nvvm,
}


def _pass(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        import importlib

        return getattr(importlib.import_module(module), cls)

    return load


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "convert-cuda-tile-to-tileaa": _pass(
        "tileir.conversions.cuda_tile_to_tileaa", "ConvertCudaTileToTileAAPass"
    ),
    "tileaa-canonicalize": _pass("tileir.transforms.tileaa.canonicalize", "TileAACanonicalizePass"),
    "tileaa-drop-unit-dims": _pass(
        "tileir.transforms.tileaa.drop_unit_dims", "TileAADropUnitDimsPass"
    ),
    "convert-tileaa-to-tileas": _pass(
        "tileir.conversions.tileaa_to_tileas", "ConvertTileAAToTileASPass"
    ),
    "tileas-assign-layouts": _pass("tileir.transforms.tileas.assign_layouts", "AssignLayoutsPass"),
    "tileas-select-dot-atoms": _pass(
        "tileir.transforms.tileas.select_dot_atoms", "SelectDotAtomsPass"
    ),
    "tileas-canonicalize": _pass("tileir.transforms.tileas.canonicalize", "TileASCanonicalizePass"),
    "tileas-widen-stores": _pass("tileir.transforms.tileas.widen_stores", "WidenStoresPass"),
    "tileas-propagate-iterators": _pass(
        "tileir.transforms.tileas.propagate_iterators", "PropagateIteratorsPass"
    ),
    "tileas-remove-layout-conversions": _pass(
        "tileir.transforms.tileas.remove_layout_conversions", "RemoveLayoutConversionsPass"
    ),
    "tileas-sink-loads": _pass("tileir.transforms.tileas.sink_loads", "SinkLoadsPass"),
    "tileas-insert-barriers": _pass(
        "tileir.transforms.tileas.insert_barriers", "InsertBarriersPass"
    ),
    "tileas-materialize-schedule": _pass(
        "tileir.transforms.tileas.materialize_schedule", "MaterializeSchedulePass"
    ),
    "tileas-unspecialized-pipeline": _pass(
        "tileir.transforms.tileas.unspecialized_pipeline", "UnspecializedPipelinePass"
    ),
    "tileas-pipeline-dot-operands": _pass(
        "tileir.transforms.tileas.pipeline_dot_operands", "PipelineDotOperandsPass"
    ),
    "tileas-overlap-attention-dots": _pass(
        "tileir.transforms.tileas.overlap_attention_dots", "OverlapAttentionDotsPass"
    ),
    "tileas-specialize-agents": _pass(
        "tileir.transforms.tileas.specialize_agents", "SpecializeAgentsPass"
    ),
    "tileas-tma-feeds": _pass("tileir.transforms.tileas.tma_feeds", "TmaFeedsPass"),
    "tileas-tmem-accumulators": _pass(
        "tileir.transforms.tileas.tmem_accumulators", "TmemAccumulatorsPass"
    ),
    "tileas-tcgen05-agents": _pass("tileir.transforms.tileas.tcgen05_agents", "Tcgen05AgentsPass"),
    "convert-tileas-to-llvm": _pass("tileir.conversions.tileas_to_llvm", "ConvertTileASToLLVMPass"),
    "llvm-hoist-copy-invariants": _pass(
        "tileir.transforms.llvm.hoist_copy_invariants", "HoistCopyInvariantsPass"
    ),
    "llvm-remat-after-loops": _pass(
        "tileir.transforms.llvm.remat_after_loops", "RematAfterLoopsPass"
    ),
    "llvm-sink-tmem-loads": _pass("tileir.transforms.llvm.sink_tmem_loads", "SinkTmemLoadsPass"),
    "llvm-defer-read-barriers": _pass(
        "tileir.transforms.llvm.defer_read_barriers", "DeferReadBarriersPass"
    ),
    "cuda-tile-to-ptx": _pass("tileir.pipelines", "CudaTileToPtxPipeline"),
    # cuda_tile -> cuda_tile (tileir/transforms/cuda_tile/).
    "fuse-fma": _pass("tileir.transforms.cuda_tile.fuse_fma", "FuseFmaPass"),
    "loop-split": _pass("tileir.transforms.cuda_tile.loop_split", "LoopSplitPass"),
    "split-dot-accumulators": _pass(
        "tileir.transforms.cuda_tile.split_accumulators", "SplitAccumulatorsPass"
    ),
    "split-dot-k-steps": _pass("tileir.transforms.cuda_tile.split_k_steps", "SplitKStepsPass"),
    "split-large-reductions": _pass(
        "tileir.transforms.cuda_tile.split_reductions", "SplitReductionsPass"
    ),
    "synthesize-debug-info-scopes": _pass(
        "tileir.transforms.cuda_tile.synthesize_debug_info_scopes",
        "SynthesizeDebugInfoScopesPass",
    ),
    "test-debuginfo-update-symbol-name": _pass(
        "tileir.transforms.cuda_tile.update_symbol_name", "TestDebugInfoUpdateSymbolNamePass"
    ),
}


def _ptx_target() -> type:
    from tileir.backend.ptx.target import PtxTarget

    return PtxTarget


def _tileirbc_target() -> type:
    from tileir.bytecode.target import TileirbcTarget

    return TileirbcTarget


TARGETS: dict[str, Callable[[], type]] = {"ptx": _ptx_target, "tileirbc": _tileirbc_target}


def make_context() -> Context:
    """A context with xDSL's dialects (lazily) and tileir's.

    The two tables are read directly rather than through xDSL's `Universe.get_multiverse()`,
    which finds the same two (the `xdsl.universe` entry points of xdsl and of tileir
    itself) by scanning the metadata of every installed distribution: 20-50 ms, a tenth
    of a `tileir-as` run, before anything is compiled."""
    from xdsl.dialects import get_all_dialects

    ctx = Context(allow_unregistered=False)
    for table in (get_all_dialects(), DIALECTS):
        for name, factory in table.items():
            if name not in ctx.registered_dialect_names:
                ctx.register_dialect(name, factory)
    return ctx
