"""Row sums and maxima of a 2-D float32 array, accumulated over column tiles in a loop.

Each block owns 16 rows and walks the 300 columns 64 at a time:
``acc += sum(tile, axis=1)``, ``top = maximum(top, max(tile, axis=1))``, carrying
two 1-D tiles (in the slice layout of the 2-D tile) through the ``for`` loop.

Coverage: ``reduce`` inside ``for``, loop-carried reduction results, ``num_tiles``,
zero padding of the last column tile, ragged rows (40 vs 16) and columns (300 vs 64).

Inputs, numpy reference and tolerance: ``cases/row_sum_loop_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.row_sum_loop_f32 import (
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
def row_sum_loop_f32(x, sums, maxes):
    """Per-row sum and max over all column tiles."""
    pid = ct.bid(0)
    acc = ct.zeros((TILE_M,), dtype=ct.float32)
    top = ct.full((TILE_M,), -3.0e38, dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(TILE_M, TILE_N))):
        t = ct.load(x, (pid, j), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
        acc = acc + ct.sum(t, axis=1)
        top = ct.maximum(top, ct.max(t, axis=1))
    ct.store(sums, (pid,), acc)
    ct.store(maxes, (pid,), top)


KERNEL = row_sum_loop_f32


def signatures() -> list[KernelSignature]:
    f2 = array_constraint(ct.float32, 2, base_addr_divisible_by=16)
    f1 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f2, f1, f1])]
