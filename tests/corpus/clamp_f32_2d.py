"""2-D float32 clamp between two runtime bounds: ``out = min(max(x, lo), hi)``.

Coverage: 2-D grid, f32 ``maxf``/``minf`` against broadcast runtime scalars,
two runtime ``float`` arguments, an input that is a strided view (45x130 inside
a 45x136 buffer: row stride 136 != row length, declared ``stride_divisible_by
= [4, 1]``) and a contiguous output whose row stride (130) is only 2-element
divisible, 16x32 tiles (ragged on both axes), negative-infinity padding.

The test inputs, numpy reference and tolerance live in
``cases/clamp_f32_2d.py``, which does not need cuTile; this module re-exports
them (see ``README.md``).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.clamp_f32_2d import (
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
def clamp_f32_2d(x, out, lo: float, hi: float):
    """out = min(max(x, lo), hi), one TILE_M x TILE_N tile per block."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    tx = ct.load(x, (bm, bn), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(out, (bm, bn), ct.minimum(ct.maximum(tx, lo), hi))


KERNEL = clamp_f32_2d


def signatures() -> list[KernelSignature]:
    x = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    out = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[2, 1])
    f32 = scalar_constraint(ct.float32)
    return [kernel_signature([x, out, f32, f32])]
