"""GEMM with f16 inputs whose extents are multiples of 16 but not of the tile.

``c = a @ b``

Coverage: ``ct.mma`` on 64x32 by 32x32 f16 tiles, f32 accumulator, ``for`` over K;
112x80 by 80x48: every extent a multiple of 16 (``shape_divisible_by``), none of its
tile, so the last tiles in M, N and K are partial.  Each 8-element operand vector is
wholly in or out, so on sm_90a and sm_100a a ring copy is one zero-filling ``cp.async``
(``src-size`` 0 out of bounds) with no per-element path.
Inputs, numpy reference and tolerance: ``cases/gemm_f16_aligned_edges.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.gemm_f16_aligned_edges import (
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
def gemm_f16_aligned_edges(a, b, c, k_tiles: int):
    """One TILE_M x TILE_N tile of c per block; edge tiles are partial."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, k), (TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (k, j), (TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    ct.store(c, (i, j), acc)


KERNEL = gemm_f16_aligned_edges


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(
        ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1], shape_divisible_by=16
    )
    f32 = array_constraint(
        ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1], shape_divisible_by=16
    )
    return [kernel_signature([f16, f16, f32, scalar_constraint(ct.int32)])]
