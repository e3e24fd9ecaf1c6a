"""Ops of nv_tileaa, the alias-aware tile dialect (seed 004).

At this level a tile is a builtin `tensor<...>` (a rank-0 tile is its bare element
type), memory is addressed by tensors of `!cuda_tile.ptr<T>` built with `addptr`, and
memory effects are ordered by `!nv_tileaa.mem_token` values.  The elementwise
arithmetic stays in cuda_tile ops, which accept these builtin carriers.

One module per family: `tokens`, `shape`, `pointer`, `memory`, `compute`, `queues`,
`regions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from tileir.dialects.nv_tileaa.ops import compute, memory, pointer, queues, regions, shape, tokens
from tileir.dialects.nv_tileaa.ops.base import TileAAOp
from tileir.dialects.nv_tileaa.ops.compute import COMPUTE_OPS, DOT_ELEMENTS, PACKED_F4_ATTR, DotOp
from tileir.dialects.nv_tileaa.ops.memory import (
    MEMORY_OPS,
    AtomicCasOp,
    AtomicRmwOp,
    LoadOp,
    MemoryOrderedOp,
    StoreOp,
)
from tileir.dialects.nv_tileaa.ops.pointer import POINTER_OPS, AddPtrOp, AssumeOp, SelectOp
from tileir.dialects.nv_tileaa.ops.queues import (
    QUEUE_OPS,
    QueueCreateOp,
    QueueGetOp,
    QueuePutOp,
    QueueYieldOp,
)
from tileir.dialects.nv_tileaa.ops.regions import (
    INHERIT_REGISTERS,
    REGION_OPS,
    ExecuteOp,
    PragmaOp,
    YieldOp,
    directive_results,
)
from tileir.dialects.nv_tileaa.ops.shape import (
    SHAPE_OPS,
    BroadcastOp,
    ExpandDimsOp,
    ExtractOp,
    SplatOp,
    ViewOp,
)
from tileir.dialects.nv_tileaa.ops.tokens import (
    TOKEN_OPS,
    CreateMemTokenOp,
    JoinMemTokenOp,
    MemTokenTypeCache,
    cache_for,
    infer_mem_token_type,
    token_scope,
)


@dataclass(frozen=True)
class Family:
    """A group of ops documented together."""

    title: str
    module: ModuleType
    ops: list[type[TileAAOp]]


FAMILIES: list[Family] = [
    Family("tokens", tokens, TOKEN_OPS),
    Family("shape", shape, SHAPE_OPS),
    Family("pointer", pointer, POINTER_OPS),
    Family("memory", memory, MEMORY_OPS),
    Family("compute", compute, COMPUTE_OPS),
    Family("queues", queues, QUEUE_OPS),
    Family("regions", regions, REGION_OPS),
]

OPS: list[type[TileAAOp]] = [op for family in FAMILIES for op in family.ops]

__all__ = [
    "DOT_ELEMENTS",
    "FAMILIES",
    "INHERIT_REGISTERS",
    "OPS",
    "PACKED_F4_ATTR",
    "AddPtrOp",
    "AssumeOp",
    "AtomicCasOp",
    "AtomicRmwOp",
    "BroadcastOp",
    "CreateMemTokenOp",
    "DotOp",
    "ExecuteOp",
    "ExpandDimsOp",
    "ExtractOp",
    "Family",
    "JoinMemTokenOp",
    "LoadOp",
    "MemTokenTypeCache",
    "MemoryOrderedOp",
    "PragmaOp",
    "QueueCreateOp",
    "QueueGetOp",
    "QueuePutOp",
    "QueueYieldOp",
    "SelectOp",
    "SplatOp",
    "StoreOp",
    "TileAAOp",
    "ViewOp",
    "YieldOp",
    "cache_for",
    "directive_results",
    "infer_mem_token_type",
    "token_scope",
]
