"""Ops of nv_tileas (seed 003 roster), one module per family, all re-exported here.

| family | module |
|---|---|
| async pipeline | `pipeline` |
| async tokens | `tokens` |
| tiled memops | `memory` |
| tensor slices | `slices` |
| layout | `layout` |
| TMA | `tma` |
| compute | `compute` |
| control and metadata | `control` |
| synchronization (tileir's, not in the seed) | `synchronization` |
| shape (tileir's, not in the seed) | `shape` |
| pointer (tileir's, not in the seed) | `pointer` |
| debug (tileir's, not in the seed) | `debug` |
| globals (tileir's, not in the seed) | `globals` |
| tensor memory (tileir's, not in the seed) | `tmem` |
"""

from tileir.dialects.nv_tileas.ops.base import TileASOp, bool_array
from tileir.dialects.nv_tileas.ops.compute import (
    COMPUTE_OPS,
    AsyncDotOp,
    AxisRegionOp,
    DotOp,
    ReduceOp,
    ScanOp,
)
from tileir.dialects.nv_tileas.ops.control import (
    CONTROL_OPS,
    AsyncCancelNextProgramIdOp,
    CancelNextProgramIdOp,
    PragmaOp,
    YieldOp,
)
from tileir.dialects.nv_tileas.ops.debug import DEBUG_OPS, AssertOp, PrintOp
from tileir.dialects.nv_tileas.ops.globals import GLOBAL_OPS, GetGlobalOp, GlobalOp
from tileir.dialects.nv_tileas.ops.layout import (
    LAYOUT_OPS,
    ConvertLayoutOp,
    ExpandDimsOp,
    GenerateOp,
    ReinterpretOp,
    ShuffleOp,
    ViewOp,
)
from tileir.dialects.nv_tileas.ops.memory import (
    MEMORY_OPS,
    AsyncCopyOp,
    AsyncLoadOp,
    AsyncStoreOp,
    AsyncTiledLoadOp,
    AtomicCasOp,
    AtomicRmwOp,
    CopyOp,
    GatherLoadOp,
    LoadOp,
    MemoryAccessOp,
    ScatterStoreOp,
    StoreOp,
    TiledAtomicRmwOp,
    TiledLoadOp,
    TiledMemoryOp,
    TiledStoreOp,
)
from tileir.dialects.nv_tileas.ops.pipeline import (
    PIPELINE_OPS,
    AgentSwitchOp,
    ConsumeOneAsyncOp,
    ConsumeOneOp,
    ConsumerReadOp,
    ConsumerReleaseOp,
    ConsumerWaitOp,
    CreateIteratorOp,
    CreatePipelineOp,
    IncIterOp,
    PipelineRegionOp,
    PipelineYieldOp,
    ProduceOneAsyncOp,
    ProduceOneOp,
    ProducerAcquireOp,
    ProducerCommitOp,
    ProducerWriteOp,
)
from tileir.dialects.nv_tileas.ops.pointer import POINTER_OPS, AddPtrOp, AssumeOp
from tileir.dialects.nv_tileas.ops.shape import SHAPE_OPS, BroadcastOp, SplatOp
from tileir.dialects.nv_tileas.ops.slices import (
    SLICE_OPS,
    AllocTensorOp,
    AsyncExtractSliceOp,
    AsyncInsertSliceOp,
    ExtractSliceOp,
    InsertSliceOp,
)
from tileir.dialects.nv_tileas.ops.synchronization import (
    SYNCHRONIZATION_OPS,
    AgentBarrierOp,
    CtaBarrierOp,
    GdcLaunchDependentsOp,
    GdcWaitOp,
)
from tileir.dialects.nv_tileas.ops.tma import (
    TMA_OPS,
    AsyncGatherTmaLoadOp,
    AsyncScatterTmaStoreOp,
    AsyncTiledTmaLoadOp,
    AsyncTiledTmaStoreOp,
    MakeGlobalViewOp,
    MakeTiledTmaDescOp,
)
from tileir.dialects.nv_tileas.ops.tmem import (
    TMEM_OPS,
    ReadTmemAccumulatorOp,
    ScaleTmemAccumulatorOp,
    WriteTmemAccumulatorOp,
)
from tileir.dialects.nv_tileas.ops.tokens import (
    TOKEN_OPS,
    AsyncWaitOp,
    CreateNoneOp,
    FutureWaitOp,
    ToAsyncOp,
    TokenToAsyncOp,
)

#: Every op, family by family in seed 003's order.
FAMILIES: dict[str, list[type[TileASOp]]] = {
    "async pipeline": PIPELINE_OPS,
    "async tokens": TOKEN_OPS,
    "tiled memops": MEMORY_OPS,
    "tensor slices": SLICE_OPS,
    "layout": LAYOUT_OPS,
    "TMA": TMA_OPS,
    "compute": COMPUTE_OPS,
    "control and metadata": CONTROL_OPS,
    "synchronization": SYNCHRONIZATION_OPS,
    "shape": SHAPE_OPS,
    "pointer": POINTER_OPS,
    "debug": DEBUG_OPS,
    "globals": GLOBAL_OPS,
    "tensor memory": TMEM_OPS,
}

OPS: list[type[TileASOp]] = [op for family in FAMILIES.values() for op in family]

__all__ = [
    "FAMILIES",
    "OPS",
    "AddPtrOp",
    "AgentBarrierOp",
    "AgentSwitchOp",
    "AllocTensorOp",
    "AssertOp",
    "AssumeOp",
    "AsyncCancelNextProgramIdOp",
    "AsyncCopyOp",
    "AsyncDotOp",
    "AsyncExtractSliceOp",
    "AsyncGatherTmaLoadOp",
    "AsyncInsertSliceOp",
    "AsyncLoadOp",
    "AsyncScatterTmaStoreOp",
    "AsyncStoreOp",
    "AsyncTiledLoadOp",
    "AsyncTiledTmaLoadOp",
    "AsyncTiledTmaStoreOp",
    "AsyncWaitOp",
    "AtomicCasOp",
    "AtomicRmwOp",
    "AxisRegionOp",
    "BroadcastOp",
    "CancelNextProgramIdOp",
    "ConsumeOneAsyncOp",
    "ConsumeOneOp",
    "ConsumerReadOp",
    "ConsumerReleaseOp",
    "ConsumerWaitOp",
    "ConvertLayoutOp",
    "CopyOp",
    "CreateIteratorOp",
    "CreateNoneOp",
    "CreatePipelineOp",
    "CtaBarrierOp",
    "DotOp",
    "ExpandDimsOp",
    "ExtractSliceOp",
    "FutureWaitOp",
    "GatherLoadOp",
    "GdcLaunchDependentsOp",
    "GdcWaitOp",
    "GenerateOp",
    "GetGlobalOp",
    "GlobalOp",
    "IncIterOp",
    "InsertSliceOp",
    "LoadOp",
    "MakeGlobalViewOp",
    "MakeTiledTmaDescOp",
    "MemoryAccessOp",
    "PipelineRegionOp",
    "PipelineYieldOp",
    "PragmaOp",
    "PrintOp",
    "ProduceOneAsyncOp",
    "ProduceOneOp",
    "ProducerAcquireOp",
    "ProducerCommitOp",
    "ProducerWriteOp",
    "ReadTmemAccumulatorOp",
    "ReduceOp",
    "ReinterpretOp",
    "ScaleTmemAccumulatorOp",
    "ScanOp",
    "ScatterStoreOp",
    "ShuffleOp",
    "SplatOp",
    "StoreOp",
    "TileASOp",
    "TiledAtomicRmwOp",
    "TiledLoadOp",
    "TiledMemoryOp",
    "TiledStoreOp",
    "ToAsyncOp",
    "TokenToAsyncOp",
    "ViewOp",
    "WriteTmemAccumulatorOp",
    "YieldOp",
    "bool_array",
]
