"""GEMM of f32 matrices on tf32 tensor cores, with an f32 accumulator.

``c = tf32(a) @ tf32(b)``

Coverage: ``astype(ct.tfloat32)`` (cuda_tile ``ftof`` f32 -> tf32, rounding to
nearest even) on 64x32 and 32x64 f32 tiles, then ``ct.mma`` (``mmaf`` on tf32
operands: sm_80/sm_100a ``mma.sync`` m16n8k8 tf32, sm_90a ``wgmma`` m64n64k8 tf32)
with an f32 accumulator carried by a ``for`` over K tiles; ragged M, N and K.
Inputs, numpy reference and tolerance: ``cases/gemm_tf32.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.gemm_tf32 import TILE_K, TILE_M, TILE_N, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def gemm_tf32(a, b, c, k_tiles: int):
    """One TILE_M x TILE_N tile of c per block; the operands are rounded to tf32."""
    i = ct.bid(0)
    j = ct.bid(1)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, k), (TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (k, j), (TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta.astype(ct.tfloat32), tb.astype(ct.tfloat32), acc)
    ct.store(c, (i, j), acc)


KERNEL = gemm_tf32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([f32, f32, f32, scalar_constraint(ct.int32)])]
