"""MX block-scaled GEMM on 128-row tiles, B given K-contiguous: f8E4M3FN operands with
one f8E8M0FNU scale per 32 K elements.

``c[i, j] = sum_k a[i, k] * a_scale[i, k // 32] * bt[j, k] * b_scale[k // 32, j]``

Coverage: ``ct.mma_scaled`` (cuda_tile ``mmaf_scaled``) on 128x64 by 64x32
float8_e4m3fn tiles (B read from an N x K array with ``order=(1, 0)``) with 128x2 and 2x32
float8_e8m0fnu scale tiles, an f32 accumulator carried by a ``for`` over two K tiles:
the shape sm_100a's block-scaled ``tcgen05.mma`` (``kind::mxf8f6f4``, M = 128) takes, so
tileir runs it natively there (scales copied to tensor memory by ``tcgen05.cp``) and on
bf16 dots of the dequantized operands elsewhere; ragged M and N.
Inputs, numpy reference and tolerance: ``cases/block_scaled_mm_e4m3_m128.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.block_scaled_mm_e4m3_m128 import (
    SCALE_BLOCK,
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
def block_scaled_mm_e4m3_m128(a, a_scale, bt, b_scale, c, k_tiles: int):
    """One TILE_M x TILE_N tile of c per block."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, k), (TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        sa = ct.load(a_scale, (i, k), (TILE_M, TILE_K // SCALE_BLOCK))
        tb = ct.load(bt, (k, j), (TILE_K, TILE_N), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
        sb = ct.load(b_scale, (k, j), (TILE_K // SCALE_BLOCK, TILE_N))
        acc = ct.mma_scaled(ta, sa, tb, sb, acc)
    ct.store(c, (i, j), acc)


KERNEL = block_scaled_mm_e4m3_m128

#: cuTile 1.7 writes ``mmaf_scaled`` for any GPU, but NVIDIA's tileiras compiles it only
#: for sm_100.
MIN_GPU = "sm_100"


def signatures() -> list[KernelSignature]:
    f8 = array_constraint(
        ct.float8_e4m3fn, 2, base_addr_divisible_by=16, stride_divisible_by=[16, 1]
    )
    scale = array_constraint(
        ct.float8_e8m0fnu, 2, base_addr_divisible_by=4, stride_divisible_by=[TILE_K // 32, 1]
    )
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([f8, scale, f8, scale, f32, scalar_constraint(ct.int32)])]
