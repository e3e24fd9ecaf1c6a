"""What the user wrote, for an op a diagnostic is about.

A "not supported by tileir yet" error is raised where tileir finds out, which is often
deep in the lowering: on an `nv_tileas.reduce`, an `llvm.load`, a ring of an
`nv_tileas.async.tiled_load`.  The error is located at the user's line (locations are
carried through every stage), but the op it names is tileir's, not the user's.
`written_as` names the op the user wrote: the cuda_tile op an internal op was lowered
from, and the cuTile Python functions that export that cuda_tile op (`ct.sum`, ...,
for `cuda_tile.reduce`), so that an error reads in the user's terms whether the input
was cuda_tile text or a cuTile kernel.

The tables name the ops whose errors a user can meet; an op in neither (an `scf.for`,
an `llvm.*` op that no single cuda_tile op made) is named as it is.
"""

from __future__ import annotations

from xdsl.ir import Operation

#: The cuda_tile op each nv_tileaa / nv_tileas op (or family, by prefix) comes from.
CUDA_TILE_ORIGIN: dict[str, str] = {
    "nv_tileaa.dot": "cuda_tile.mmaf",
    "nv_tileas.dot": "cuda_tile.mmaf",
    "nv_tileas.async.dot": "cuda_tile.mmaf",
    "nv_tileas.read_tmem_accumulator": "cuda_tile.mmaf",
    "nv_tileas.reduce": "cuda_tile.reduce",
    "nv_tileas.scan": "cuda_tile.scan",
    "nv_tileas.shuffle": "cuda_tile.permute",
    "nv_tileaa.view": "cuda_tile.reshape",
    "nv_tileas.view": "cuda_tile.reshape",
    "nv_tileas.reinterpret": "cuda_tile.bitcast",
    "nv_tileaa.extract": "cuda_tile.extract",
    "nv_tileas.extract_slice": "cuda_tile.extract",
    "nv_tileas.insert_slice": "cuda_tile.cat",
    "nv_tileaa.load": "cuda_tile.load_view_tko",
    "nv_tileas.load": "cuda_tile.load_view_tko",
    "nv_tileas.tiled_load": "cuda_tile.load_view_tko",
    "nv_tileas.async.tiled_load": "cuda_tile.load_view_tko",
    "nv_tileas.gather_load": "cuda_tile.load_view_tko",
    "nv_tileaa.store": "cuda_tile.store_view_tko",
    "nv_tileas.store": "cuda_tile.store_view_tko",
    "nv_tileas.tiled_store": "cuda_tile.store_view_tko",
    "nv_tileas.scatter_store": "cuda_tile.store_view_tko",
    "nv_tileaa.atomic_rmw": "cuda_tile.atomic_rmw_tko",
    "nv_tileas.atomic_rmw": "cuda_tile.atomic_rmw_tko",
    "nv_tileas.tiled_atomic_rmw": "cuda_tile.atomic_rmw_tko",
    "nv_tileaa.atomic_cas": "cuda_tile.atomic_cas_tko",
    "nv_tileas.atomic_cas": "cuda_tile.atomic_cas_tko",
    "nv_tileas.print": "cuda_tile.print_tko",
    "nv_tileas.assert": "cuda_tile.assert",
    "nv_tileas.get_global": "cuda_tile.get_global",
    "nv_tileas.global": "cuda_tile.global",
}

#: The cuTile Python functions that export each cuda_tile op (cuTile 1.x).
CUTILE_SPELLING: dict[str, str] = {
    "cuda_tile.mmaf": "ct.mma / ct.matmul",
    "cuda_tile.mmai": "ct.mma / ct.matmul",
    "cuda_tile.mmaf_scaled": "ct.mma_scaled",
    "cuda_tile.reduce": "ct.sum / ct.max / ct.min / ct.prod / ct.argmax / ct.reduce",
    "cuda_tile.scan": "ct.cumsum / ct.cumprod / ct.scan",
    "cuda_tile.permute": "ct.transpose / ct.permute",
    "cuda_tile.reshape": "ct.reshape / ct.expand_dims",
    "cuda_tile.bitcast": "ct.bitcast",
    "cuda_tile.extract": "ct.extract",
    "cuda_tile.cat": "ct.cat",
    "cuda_tile.load_view_tko": "ct.load",
    "cuda_tile.load_ptr_tko": "ct.gather",
    "cuda_tile.store_view_tko": "ct.store",
    "cuda_tile.store_ptr_tko": "ct.scatter",
    "cuda_tile.atomic_rmw_tko": "ct.atomic_add / ct.atomic_max / ... / ct.atomic_xchg",
    "cuda_tile.atomic_cas_tko": "ct.atomic_cas",
    "cuda_tile.print_tko": "ct.printf / ct.print",
    "cuda_tile.assert": "ct.assert_",
    "cuda_tile.ftof": "ct.astype",
    "cuda_tile.ftoi": "ct.astype",
    "cuda_tile.itof": "ct.astype",
    "cuda_tile.exti": "ct.astype",
    "cuda_tile.trunci": "ct.astype",
    "cuda_tile.sqrt": "ct.sqrt",
    "cuda_tile.rsqrt": "ct.rsqrt",
    "cuda_tile.divf": "a / b (ct.truediv)",
    "cuda_tile.addf": "a + b (ct.add)",
    "cuda_tile.subf": "a - b (ct.sub)",
    "cuda_tile.mulf": "a * b (ct.mul)",
    "cuda_tile.fma": "a * b + c",
    "cuda_tile.mulhii": "the high half of an integer *",
    "cuda_tile.cmpi": "a comparison (==, <, ...)",
    "cuda_tile.cmpf": "a comparison (==, <, ...)",
}


def cuda_tile_origin(op: Operation) -> str | None:
    """The cuda_tile op `op` is (itself) or was lowered from, if known."""
    if op.name.startswith("cuda_tile."):
        return op.name
    return CUDA_TILE_ORIGIN.get(op.name)


def written_as(op: Operation) -> str:
    """`op` as the user wrote it, for a diagnostic that names `op` already: "" for a
    cuda_tile op cuTile has no spelling for (or an op of neither table), else e.g.
    " (written as ct.sum / ... in cuTile: cuda_tile.reduce)"."""
    origin = cuda_tile_origin(op)
    if origin is None:
        return ""
    spelling = CUTILE_SPELLING.get(origin)
    if origin == op.name:
        return f" (written as {spelling} in cuTile)" if spelling else ""
    if spelling:
        return f" (written as {spelling} in cuTile: {origin})"
    return f" (written as {origin})"
