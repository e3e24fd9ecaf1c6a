"""A loop that breaks on a reduction: each block adds the tiles of its row into an
accumulator until the accumulator's total exceeds a limit.

``acc += x[row, tile j]``, ``count += 1``, ``if sum(acc) > limit: break``; then the
accumulator and the number of tiles added are stored.

Coverage: ``for`` with ``break`` (lifted to ``scf.while`` with an exit flag), a
loop-carried tile and scalar, a ``reduce`` to a scalar deciding a branch for the
whole block, a scalar stored through a one-element tile, a ragged row (1000 vs 128).

Inputs, numpy reference and tolerance: ``cases/break_on_sum_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.break_on_sum_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def break_on_sum_f32(x, acc, count, limit: float):
    """Accumulate the row's tiles until their total exceeds limit."""
    row = ct.bid(0)
    total = ct.zeros((1, TILE), dtype=ct.float32)
    n = 0
    for j in range(ct.num_tiles(x, axis=1, shape=(1, TILE))):
        total = total + ct.load(x, (row, j), (1, TILE), padding_mode=ct.PaddingMode.ZERO)
        n += 1
        if ct.sum(total) > limit:
            break
    ct.store(acc, (row, 0), total)
    ct.store(count, (row,), ct.full((1,), n, dtype=ct.int32))


KERNEL = break_on_sum_f32


def signatures() -> list[KernelSignature]:
    f2 = array_constraint(ct.float32, 2, base_addr_divisible_by=16)
    i1 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f2, f2, i1, scalar_constraint(ct.float32)])]
