"""Softmax of long rows: one block per row, the whole row in one 1x1024 tile.

The row has no second dimension to spread warps over, so the four warps split the
row and both reductions (``max``, ``sum``) combine across warps through shared
memory; 1000 columns are padded with ``-inf`` to the tile.

Coverage: ``reduce`` across warps, ``keepdims`` broadcasts back over the row,
``exp``, ``divf``, ``NEG_INF`` padding, a ragged row (1000 vs 1024).

Inputs, numpy reference and tolerance: ``cases/softmax_wide_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.softmax_wide_f32 import (
    TILE_N,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = [
    "KERNEL",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
    "signatures",
]


@ct.kernel
def softmax_wide_f32(x, out):
    """Softmax of row bid(0) of x."""
    row = ct.bid(0)
    t = ct.load(x, (row, 0), (1, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(out, (row, 0), e / ct.sum(e, axis=1, keepdims=True))


KERNEL = softmax_wide_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16)
    return [kernel_signature([f32, f32])]
