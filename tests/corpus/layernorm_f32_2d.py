"""Layer normalization over the rows of a 2-D float32 array, 8 rows per block.

``out = (x - mean) * rsqrt(var + eps) * gamma + beta`` with the mean and the
variance of each row computed by two ``sum`` reductions.

Coverage: two dependent ``reduce`` (addf) along axis 1 with ``keepdims``, a 1-D
``gamma``/``beta`` broadcast over rows, ``rsqrt``, a runtime ``float``, ragged rows
(50 vs 8).

Inputs, numpy reference and tolerance: ``cases/layernorm_f32_2d.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.layernorm_f32_2d import (
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
def layernorm_f32_2d(x, gamma, beta, out, eps: float):
    """Normalize each row of x to zero mean and unit variance, then scale and shift."""
    pid = ct.bid(0)
    t = ct.load(x, (pid, 0), (TILE_M, TILE_N))
    mean = ct.sum(t, axis=1, keepdims=True) * (1.0 / TILE_N)
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) * (1.0 / TILE_N)
    g = ct.reshape(ct.load(gamma, (0,), (TILE_N,)), (1, TILE_N))
    b = ct.reshape(ct.load(beta, (0,), (TILE_N,)), (1, TILE_N))
    ct.store(out, (pid, 0), d * ct.rsqrt(var + eps) * g + b)


KERNEL = layernorm_f32_2d


def signatures() -> list[KernelSignature]:
    f2 = array_constraint(ct.float32, 2, base_addr_divisible_by=16)
    f1 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f2, f1, f1, f2, scalar_constraint(ct.float32)])]
