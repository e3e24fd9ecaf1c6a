"""More tile blocks than tiles: a grid of five blocks over a 48x64 array of three row
tiles, as kernels launched with a grid rounded up (cuTile's FFT sample) do.

Block ``b`` loads row tile ``b`` twice (zero and ``-inf`` padding), stores ``2 x + 1``
back to ``y`` and its row sums and maxima to ``sums``/``maxes``, which have a slot for
every row of every block.  Blocks 3 and 4 index tiles outside the view's index space:
every element is out of bounds, so they load only padding (sums 0, maxima ``-inf``)
and their stores to ``y`` write nothing.  The shapes are declared multiples of the
tile (``shape_divisible_by``), so no element needs a bounds mask: only the tile index
is checked against the index space.

Coverage: tile indices past the index space on loads (padding) and stores (dropped),
dimensions the tiles divide (one scalar check per access, no per-element mask),
``sum``/``max`` with ``axis=1``, zero and ``NEG_INF`` padding.

Inputs, numpy reference and tolerance: ``cases/spare_blocks_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.spare_blocks_f32 import (
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
def spare_blocks_f32(x, y, sums, maxes):
    """y = 2 x + 1 per row tile; row sums and maxima, padding past the last tile."""
    b = ct.bid(0)
    t = ct.load(x, (b, 0), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    u = ct.load(x, (b, 0), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(y, (b, 0), t * 2.0 + 1.0)
    ct.store(sums, (b,), ct.sum(t, axis=1))
    ct.store(maxes, (b,), ct.max(u, axis=1))


KERNEL = spare_blocks_f32


def signatures() -> list[KernelSignature]:
    f2 = array_constraint(
        ct.float32, 2, base_addr_divisible_by=16, shape_divisible_by=[TILE_M, TILE_N]
    )
    f1 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f2, f2, f1, f1])]
