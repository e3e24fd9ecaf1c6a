"""A mixture-of-experts style GEMM: the rows of A gathered through a token list.

``c[rows[s]] = a[rows[s]] @ b`` for each slot ``s`` whose row is in range.

Coverage: ``ct.gather`` of A with 2-D indices (row indices loaded from ``rows`` once,
before the K loop; column indices ``k * TILE_K + arange``: each row's K run is
contiguous) fed to ``ct.mma`` with a tiled load of B, and ``ct.scatter`` of the
accumulator to the same rows, as NVIDIA's fused MoE kernel does; slots whose row is
out of range (the sentinel ``A_ROWS``, and negative) gather zeros and scatter nothing;
ragged K (40 vs 32) and N (24 vs 16).
Inputs, numpy reference and tolerance: ``cases/moe_gather_gemm_bf16.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.moe_gather_gemm_bf16 import (
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
def moe_gather_gemm_bf16(a, b, c, rows):
    """One TILE_M x TILE_N tile of gathered rows per block."""
    i = ct.bid(0)
    j = ct.bid(1)
    row_ids = ct.gather(rows, i * TILE_M + ct.arange(TILE_M, dtype=ct.int32))
    acc = ct.full((TILE_M, TILE_N), 0.0, dtype=ct.float32)
    for k in range(ct.cdiv(a.shape[1], TILE_K)):
        cols = k * TILE_K + ct.arange(TILE_K, dtype=ct.int32)
        ta = ct.gather(a, (row_ids[:, None], cols[None, :]))
        tb = ct.load(b, (k, j), (TILE_K, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ta, tb, acc)
    out_cols = j * TILE_N + ct.arange(TILE_N, dtype=ct.int32)
    ct.scatter(c, (row_ids[:, None], out_cols[None, :]), acc)


KERNEL = moe_gather_gemm_bf16


def signatures() -> list[KernelSignature]:
    bf16 = array_constraint(
        ct.bfloat16,
        2,
        base_addr_divisible_by=16,
        stride_divisible_by=[8, 1],
        shape_divisible_by=[1, 8],
    )
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([bf16, bf16, f32, i32])]
