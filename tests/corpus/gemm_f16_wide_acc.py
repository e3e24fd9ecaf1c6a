"""GEMM with f16 inputs and f16 output through a 256x256 f32 accumulator.

``c = (a @ b).astype(float16)``

Coverage: ``ct.mma`` on 256x32 by 32x256 f16 tiles, the accumulator of NVIDIA's
256x256x64 matmul samples (256 registers a thread at 8 warps: more than a thread may
have), which tileir runs as two K loops of 256x128 (split-dot-accumulators), each with
its half of the ``astype`` (``ftof``) and the store; ragged M, N and K (200x48 by
48x296, 256x256x32 tiles).
Inputs, numpy reference and tolerance: ``cases/gemm_f16_wide_acc.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.gemm_f16_wide_acc import (
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
def gemm_f16_wide_acc(a, b, c, k_tiles: int):
    """One TILE_M x TILE_N tile of c per block."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, k), (TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (k, j), (TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, (i, j), acc.astype(ct.float16))


KERNEL = gemm_f16_wide_acc


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    return [kernel_signature([f16, f16, f16, scalar_constraint(ct.int32)])]
