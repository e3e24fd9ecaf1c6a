"""A persistent GEMM: each block walks the output tiles ``bid(0), bid(0) +
num_blocks(0), ...``, a K loop per tile.

``c = a @ b``

Coverage: a grid smaller than the tile space, a ``for`` with a runtime step around a
``for`` of ``ct.mma`` (64x32 by 32x64 f16 tiles, an f32 accumulator: one warpgroup's
``wgmma``), the tile's coordinates from the loop's variable (``//``, ``%`` by
``ct.num_tiles``), so that the operands' pointers, extents and strides are the same in
every tile and only the tile's coordinates change; no dimension a multiple of its tile
(136x88 by 88x72): zero-padded loads, masked stores.
Inputs, numpy reference and tolerance: ``cases/persistent_gemm_f16.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.persistent_gemm_f16 import (
    TILE_K,
    TILE_M,
    TILE_N,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def persistent_gemm_f16(a, b, c, k_tiles: int):
    """TILE_M x TILE_N tiles of c, every num_blocks(0)-th from bid(0)."""
    tiles_n = ct.num_tiles(c, axis=1, shape=(TILE_M, TILE_N))
    tiles = ct.num_tiles(c, axis=0, shape=(TILE_M, TILE_N)) * tiles_n
    for t in range(ct.bid(0), tiles, ct.num_blocks(0)):
        i = t // tiles_n
        j = t % tiles_n
        acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
        for k in range(k_tiles):
            ta = ct.load(a, (i, k), (TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
            tb = ct.load(b, (k, j), (TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
            acc = ct.mma(ta, tb, acc)
        ct.store(c, (i, j), acc)


KERNEL = persistent_gemm_f16


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([f16, f16, f32, scalar_constraint(ct.int32)])]
