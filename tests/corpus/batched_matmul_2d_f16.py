"""Batched GEMM, one matrix per block: 1xMxK tiles reshaped to 2-D for the product.

``c[i] = a[i] @ b[i]``

Coverage: rank-3 loads of one batch entry (1x64x64 f16) reshaped to 64x64 for a 2-D
``ct.mma``, the 64x64 f32 result reshaped back to 1x64x64 and rounded to f16; the
reshapes only drop or add a unit dimension, so they must move no data (no shared memory).
Inputs, numpy reference and tolerance: ``cases/batched_matmul_2d_f16.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.batched_matmul_2d_f16 import (
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
def batched_matmul_2d_f16(a, b, c, k_tiles: int):
    """One TILE_M x TILE_N tile of one product c[i] per block."""
    i, j, n = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, j, k), (1, TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (i, k, n), (1, TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta.reshape((TILE_M, TILE_K)), tb.reshape((TILE_K, TILE_N)), acc)
    ct.store(c, (i, j, n), acc.reshape((1, TILE_M, TILE_N)).astype(ct.float16))


KERNEL = batched_matmul_2d_f16


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 3, base_addr_divisible_by=16, stride_divisible_by=[8, 8, 1])
    return [kernel_signature([f16, f16, f16, scalar_constraint(ct.int32)])]
