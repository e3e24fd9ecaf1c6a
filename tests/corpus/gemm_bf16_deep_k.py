"""GEMM with bf16 inputs and an f32 accumulator (tensor cores), a long ragged K loop.

``c = a @ b``

Coverage: ``ct.mma`` (cuda_tile ``mmaf``) on 64x32 by 32x64 bf16 tiles (one warpgroup's
``wgmma``) with an f32 accumulator carried by a ``for`` over ten K tiles, more than a
pipeline has stages; a 2-D grid; no dimension a multiple of its tile (72x296 by
296x40): zero-padded loads, masked stores.
Inputs, numpy reference and tolerance: ``cases/gemm_bf16_deep_k.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.gemm_bf16_deep_k import (
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
def gemm_bf16_deep_k(a, b, c, k_tiles: int):
    """One TILE_M x TILE_N tile of c per block."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, k), (TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (k, j), (TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, (i, j), acc)


KERNEL = gemm_bf16_deep_k


def signatures() -> list[KernelSignature]:
    bf16 = array_constraint(ct.bfloat16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([bf16, bf16, f32, scalar_constraint(ct.int32)])]
