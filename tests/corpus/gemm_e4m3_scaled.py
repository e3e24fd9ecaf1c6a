"""GEMM on 8-bit floats (f8E4M3FN) with an f32 accumulator and a scaled bf16 epilogue.

``c = bf16(scale * (a @ b))``

Coverage: ``ct.mma`` (cuda_tile ``mmaf``) on 128x64 by 64x64 float8_e4m3fn tiles
(sm_90a: ``wgmma`` m64n64k32 e4m3, two 64-row slabs per warpgroup; sm_80: FMAs on
the operands widened exactly) with an f32 accumulator carried by a ``for`` over K
tiles; a runtime f32 scale; f32 -> bf16 ``astype``; ragged M and N.
Inputs, numpy reference and tolerance: ``cases/gemm_e4m3_scaled.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.gemm_e4m3_scaled import (
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
def gemm_e4m3_scaled(a, b, c, k_tiles: int, scale: float):
    """One TILE_M x TILE_N tile of c per block."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, k), (TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (k, j), (TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, (i, j), (acc * scale).astype(ct.bfloat16))


KERNEL = gemm_e4m3_scaled

#: cuTile 1.7 accepts 8-bit floats from sm_90 on (tileir compiles the bytecode for sm_80
#: too, on FMAs).
MIN_GPU = "sm_90"


def signatures() -> list[KernelSignature]:
    f8 = array_constraint(
        ct.float8_e4m3fn, 2, base_addr_divisible_by=16, stride_divisible_by=[16, 1]
    )
    bf16 = array_constraint(ct.bfloat16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    return [
        kernel_signature([f8, f8, bf16, scalar_constraint(ct.int32), scalar_constraint(ct.float32)])
    ]
