"""2-D float16 kernel with a grid-stride loop over column tiles.

Each block owns one row of tiles (``bid(0)``) and walks its column tiles
``bid(1), bid(1) + num_blocks(1), ...`` up to ``num_tiles(x, 1, ...)``:

* ``q = int32(f32(x) * 16)`` (truncation toward zero),
* ``frac = x - f16(q) * 0.0625`` (native f16, exact),
* ``pow2 = f16(exp2(f32(x)) * scale)``.

Coverage: 2-D grid smaller than the tile space, ``ct.num_blocks``,
``ct.num_tiles``, a ``for`` loop with a runtime step, f16 <-> f32, f32 -> i32
(``ftoi``) and i32 -> f16 (``itof``) conversions, ``exp2`` (with
``flush_to_zero``), native f16 arithmetic, a runtime ``float``, a 64x1000 array
tiled by 16x64 (ragged columns), 16-byte aligned bases and row strides.

The test inputs, numpy reference and tolerance live in ``cases/grid_stride_f16_2d.py``,
which does not need cuTile.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.grid_stride_f16_2d import (
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
def grid_stride_f16_2d(x, q, frac, pow2, scale: float):
    """Quantise x to 1/16 steps (q, frac) and compute f16(2^x * scale), grid-stride over columns."""
    bm = ct.bid(0)
    col_tiles = ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))
    for bn in range(ct.bid(1), col_tiles, ct.num_blocks(1)):
        tx = ct.load(x, (bm, bn), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        xf = ct.astype(tx, ct.float32)
        tq = ct.astype(xf * 16.0, ct.int32)
        ct.store(q, (bm, bn), tq)
        ct.store(frac, (bm, bn), tx - ct.astype(tq, ct.float16) * 0.0625)
        ct.store(pow2, (bm, bn), ct.astype(ct.exp2(xf, flush_to_zero=True) * scale, ct.float16))


KERNEL = grid_stride_f16_2d


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    i32 = array_constraint(ct.int32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([f16, i32, f16, f16, scalar_constraint(ct.float32)])]
