"""NVFP4 block-scaled GEMM on 128-row tiles: f4E2M1FN operands unpacked from bytes (A
M x K, B given N x K, both K-contiguous), one f8E4M3FN scale per 16 K elements.

``c[i, j] = sum_k a[i, k] * a_scale[i, k // 16] * bt[j, k] * b_scale[k // 16, j]``

Coverage: ``ct.unpack_from_bytes(..., ct.float4_e2m1fn)`` of 128x64 and 32x64 byte
tiles, ``ct.transpose`` of B's unpacked tile and ``ct.mma_scaled`` on 128x128 by 128x32
f4E2M1FN tiles with 128x8 and 8x32 float8_e4m3fn scale tiles, an f32 accumulator carried
by a ``for`` over two K tiles: the shape sm_100a's ``tcgen05.mma ... kind::mxf4nvf4
.block_scale.scale_vec::4X`` takes (M = 128, K-major packed operands); ragged M and N.
Inputs, numpy reference and tolerance: ``cases/block_scaled_mm_nvf4_m128.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.block_scaled_mm_nvf4_m128 import (
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
def block_scaled_mm_nvf4_m128(a, a_scale, bt, b_scale, c, k_tiles: int):
    """One TILE_M x TILE_N tile of c per block."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ab = ct.load(a, (i, k), (TILE_M, TILE_K // 2), padding_mode=ct.PaddingMode.ZERO)
        ta = ct.unpack_from_bytes(ab.reshape((-1,)), ct.float4_e2m1fn).reshape((TILE_M, TILE_K))
        sa = ct.load(a_scale, (i, k), (TILE_M, TILE_K // SCALE_BLOCK))
        bb = ct.load(bt, (j, k), (TILE_N, TILE_K // 2), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.unpack_from_bytes(bb.reshape((-1,)), ct.float4_e2m1fn).reshape((TILE_N, TILE_K))
        sb = ct.load(b_scale, (k, j), (TILE_K // SCALE_BLOCK, TILE_N))
        acc = ct.mma_scaled(ta, sa, ct.transpose(tb), sb, acc)
    ct.store(c, (i, j), acc)


KERNEL = block_scaled_mm_nvf4_m128

#: NVIDIA's tileiras compiles ``mma_scaled`` for sm_100 only.
MIN_GPU = "sm_100"


def signatures() -> list[KernelSignature]:
    u8 = array_constraint(ct.uint8, 2, base_addr_divisible_by=16, stride_divisible_by=[16, 1])
    scale = array_constraint(
        ct.float8_e4m3fn, 2, base_addr_divisible_by=4, stride_divisible_by=[TILE_K // 16, 1]
    )
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([u8, scale, u8, scale, f32, scalar_constraint(ct.int32)])]
