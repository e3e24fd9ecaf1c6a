"""2-D bfloat16 ReLU and leaky ReLU.

``relu = max(x, 0)`` in native bf16; ``leaky = where(x > 0, x, bf16(f32(x) * slope))``
with a runtime ``slope``.

Coverage: 2-D grid, bf16 (native ``maxf`` on bf16, bf16 -> f32 -> bf16
conversions), ``where``/``select`` with a float comparison, a runtime ``float``,
a 77x150 array tiled by 16x64 (ragged on both axes), a row stride (150
elements, 300 bytes) that is not 16-byte divisible and is declared with no
``stride_divisible_by``, 16-byte aligned bases.

The test inputs, numpy reference and tolerance live in
``cases/relu_bf16_2d.py``, which does not need cuTile; this module re-exports
them (see ``README.md``).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.relu_bf16_2d import (
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
def relu_bf16_2d(x, relu, leaky, slope: float):
    """relu = max(x, 0) in bf16; leaky = x where x > 0 else bf16(f32(x) * slope)."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    tx = ct.load(x, (bm, bn), (TILE_M, TILE_N))
    ct.store(relu, (bm, bn), ct.maximum(tx, 0.0))
    scaled = ct.astype(ct.astype(tx, ct.float32) * slope, ct.bfloat16)
    ct.store(leaky, (bm, bn), ct.where(tx > 0.0, tx, scaled))


KERNEL = relu_bf16_2d


def signatures() -> list[KernelSignature]:
    bf16 = array_constraint(ct.bfloat16, 2, base_addr_divisible_by=16)
    return [kernel_signature([bf16, bf16, bf16, scalar_constraint(ct.float32)])]
