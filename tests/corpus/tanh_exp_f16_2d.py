"""2-D float16 activation computed in float32: ``out = f16(scale * tanh(x) + exp(-|x|))``.

Coverage: 2-D grid (``ct.bid(0)`` rows, ``ct.bid(1)`` columns), f16 storage with
f32 compute (``ftof`` both ways), ``tanh``, ``exp``, ``abs``, negation, a runtime
``float`` scale, a 100x200 array tiled by 32x64 (ragged on both axes), 16-byte
aligned base and row stride (``stride_divisible_by=[8, 1]`` f16 elements).

Inputs, numpy reference and tolerance: ``cases/tanh_exp_f16_2d.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.tanh_exp_f16_2d import (
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
def tanh_exp_f16_2d(x, out, scale: float):
    """out = f16(scale * tanh(f32(x)) + exp(-|f32(x)|)), one TILE_M x TILE_N tile per block."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    tx = ct.load(x, (bm, bn), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    xf = ct.astype(tx, ct.float32)
    y = scale * ct.tanh(xf) + ct.exp(-ct.abs(xf))
    ct.store(out, (bm, bn), ct.astype(y, ct.float16))


KERNEL = tanh_exp_f16_2d


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    return [kernel_signature([f16, f16, scalar_constraint(ct.float32)])]
