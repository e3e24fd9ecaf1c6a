"""NVFP4-style block-scaled GEMM: f4E2M1FN operands unpacked from bytes, one f8E4M3FN
scale per 16 K elements.

``c[i, j] = sum_k a[i, k] * a_scale[i, k // 16] * b[k, j] * b_scale[k // 16, j]``
where ``a`` (M x K) and ``b`` (K x N) are f4E2M1FN values stored two to a byte, element
``2i`` of a row in the low nibble of byte ``i``.

Coverage: ``ct.unpack_from_bytes(..., ct.float4_e2m1fn)`` (cuda_tile ``unpack``
``tile<512xi8> -> tile<1024xf4E2M1FN>``) between ``reshape``s, and ``ct.mma_scaled``
(``mmaf_scaled``) on 16x64 by 64x16 f4E2M1FN tiles with 16x4 and 4x16 float8_e4m3fn
scale tiles: the shapes of cuTile's own ``test_mma_scaled_general_f4``, with an f32
accumulator carried by a ``for`` over K tiles; ragged M and N (byte tiles zero-padded).
Inputs, numpy reference and tolerance: ``cases/mma_scaled_f4.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.mma_scaled_f4 import (
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
def mma_scaled_f4(a, a_scale, b, b_scale, c, k_tiles: int):
    """One TILE_M x TILE_N tile of c per block."""
    i, j = ct.bid(0), ct.bid(1)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ab = ct.load(a, (i, k), (TILE_M, TILE_K // 2), padding_mode=ct.PaddingMode.ZERO)
        ta = ct.unpack_from_bytes(ab.reshape((-1,)), ct.float4_e2m1fn).reshape((TILE_M, TILE_K))
        sa = ct.load(a_scale, (i, k), (TILE_M, TILE_K // SCALE_BLOCK))
        bb = ct.load(b, (k, j), (TILE_K, TILE_N // 2), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.unpack_from_bytes(bb.reshape((-1,)), ct.float4_e2m1fn).reshape((TILE_K, TILE_N))
        sb = ct.load(b_scale, (k, j), (TILE_K // SCALE_BLOCK, TILE_N))
        acc = ct.mma_scaled(ta, sa, tb, sb, acc)
    ct.store(c, (i, j), acc)


KERNEL = mma_scaled_f4

#: NVIDIA's tileiras compiles ``mma_scaled`` for sm_100 only (tileir for every target,
#: on bf16 tensor-core dots).
MIN_GPU = "sm_100"


def signatures() -> list[KernelSignature]:
    u8 = array_constraint(ct.uint8, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    scale = array_constraint(
        ct.float8_e4m3fn, 2, base_addr_divisible_by=4, stride_divisible_by=[TILE_K // 16, 1]
    )
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([u8, scale, u8, scale, f32, scalar_constraint(ct.int32)])]
