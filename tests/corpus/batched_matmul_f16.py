"""Batched GEMM: f16 inputs, f32 accumulator, two matrices per tile.

``c[i] = a[i] @ b[i]``

Coverage: ``ct.mma`` on rank-3 tiles (2x32x32 by 2x32x32, cuda_tile ``mmaf`` with a
leading batch dimension) with the accumulator carried by a ``for`` over K tiles; a
3-D grid; shapes a multiple of the tile (4x64x64 by 4x64x96).
Inputs, numpy reference and tolerance: ``cases/batched_matmul_f16.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.batched_matmul_f16 import (
    TILE_B,
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
def batched_matmul_f16(a, b, c, k_tiles: int):
    """One TILE_B x TILE_M x TILE_N tile of c per block."""
    i, j, n = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.full((TILE_B, TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, j, k), (TILE_B, TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (i, k, n), (TILE_B, TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, (i, j, n), acc)


KERNEL = batched_matmul_f16


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 3, base_addr_divisible_by=16, stride_divisible_by=[8, 8, 1])
    f32 = array_constraint(ct.float32, 3, base_addr_divisible_by=16, stride_divisible_by=[4, 4, 1])
    return [kernel_signature([f16, f16, f32, scalar_constraint(ct.int32)])]
