"""Row softmax of a 2-D float32 array, one 16x64 tile of rows per block.

``out = exp(x - max(x)) / sum(exp(x - max(x)))`` along each row; the 50 columns
are loaded into a 64-wide tile padded with ``-inf`` (so the padding drops out of
the max and contributes ``exp(-inf) = 0`` to the sum).

Coverage: ``max`` and ``sum`` along axis 1 with ``keepdims`` → ``reduce`` (maxf,
addf) + ``reshape``/``broadcast``, ``exp``, ``divf``; ``NEG_INF`` padding; ragged
rows (100 vs 16) and columns (50 vs 64).

Inputs, numpy reference and tolerance: ``cases/softmax_f32_2d.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.softmax_f32_2d import (
    TILE_M,
    TILE_N,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = [
    "KERNEL",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
    "signatures",
]


@ct.kernel
def softmax_f32_2d(x, out):
    """Softmax along each row of x."""
    pid = ct.bid(0)
    t = ct.load(x, (pid, 0), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(out, (pid, 0), e / ct.sum(e, axis=1, keepdims=True))


KERNEL = softmax_f32_2d


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16)
    return [kernel_signature([f32, f32])]
