"""2-D float32 elementwise normalisation with ``rsqrt`` and ``sqrt``.

``unit = x * rsqrt(x*x + eps)`` (a smooth sign function) and ``root = sqrt(|x|)``.

Coverage: 2-D grid, f32 ``rsqrt``, ``sqrt``, ``abs``, ``x*x + eps`` contracted to
``fma`` with a runtime ``float`` eps, two outputs, a 64x384 array tiled by
8x128 (shape a multiple of the tile, but not declared so), and no alignment
assumption on any array (``base_addr_divisible_by=1``, no stride divisibility).

The test inputs, numpy reference and tolerance live in
``cases/rsqrt_norm_f32_2d.py``, which does not need cuTile, so tests that only
check the compiled kernel's numbers run without it; this module
re-exports them (see ``README.md``).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.rsqrt_norm_f32_2d import (
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
def rsqrt_norm_f32_2d(x, unit, root, eps: float):
    """unit = x * rsqrt(x*x + eps); root = sqrt(|x|)."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    tx = ct.load(x, (bm, bn), (TILE_M, TILE_N))
    ct.store(unit, (bm, bn), tx * ct.rsqrt(tx * tx + eps))
    ct.store(root, (bm, bn), ct.sqrt(ct.abs(tx)))


KERNEL = rsqrt_norm_f32_2d


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=1)
    return [kernel_signature([f32, f32, f32, scalar_constraint(ct.float32)])]
