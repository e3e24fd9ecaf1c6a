"""Batched GEMM on 8-bit floats (f8E5M2) with an f32 accumulator, one matrix per block.

``c[i] = a[i] @ b[i]``

Coverage: rank-3 loads of one batch entry (1x64x32 and 1x32x64 float8_e5m2) reshaped to
2-D for ``ct.mma`` → ``mmaf`` on 8-bit floats (sm_90a: ``wgmma`` e5m2; sm_89 on: 8-bit
float ``mma.sync``; sm_80: f16 ``mma.sync`` on the operands widened exactly) with an f32
accumulator carried by a ``for`` over K tiles, reshaped back to 1x64x64 for the store;
ragged in N (80 vs 64). The reshapes only drop or add a unit dimension: no layout
conversion (no ``convert_layout``, no shared-memory exchange).
Inputs, numpy reference and tolerance: ``cases/batched_matmul_e5m2.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.batched_matmul_e5m2 import (
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
def batched_matmul_e5m2(a, b, c, k_tiles: int):
    """One TILE_M x TILE_N tile of one product c[i] per block."""
    i, j, n = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(k_tiles):
        ta = ct.load(a, (i, j, k), (1, TILE_M, TILE_K), padding_mode=ct.PaddingMode.ZERO)
        tb = ct.load(b, (i, k, n), (1, TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta.reshape((TILE_M, TILE_K)), tb.reshape((TILE_K, TILE_N)), acc)
    ct.store(c, (i, j, n), acc.reshape((1, TILE_M, TILE_N)))


KERNEL = batched_matmul_e5m2

#: cuTile 1.7 accepts 8-bit floats from sm_90 on (tileir compiles the bytecode for sm_80
#: too, on f16 tensor cores).
MIN_GPU = "sm_90"


def signatures() -> list[KernelSignature]:
    f8 = array_constraint(
        ct.float8_e5m2, 3, base_addr_divisible_by=16, stride_divisible_by=[16, 16, 1]
    )
    f32 = array_constraint(ct.float32, 3, base_addr_divisible_by=16, stride_divisible_by=[4, 4, 1])
    return [kernel_signature([f8, f8, f32, scalar_constraint(ct.int32)])]
