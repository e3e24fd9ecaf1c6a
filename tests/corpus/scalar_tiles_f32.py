"""Rank-0 tiles: each block scales one row of ``x``, chosen through a table, by its own
scalar.

``s = scale[b]`` is loaded as a scalar (``ct.load(..., shape=())``); the row is
``order[b % GROUPS] + order[OFFSET_SLOT]``, two entries of a table tile picked with
``extract(...).item()`` (one at a runtime position, one at a constant one) and added
as scalars; the row, a rank-0 tile, is the index of the next load.  The block stores
the scaled row and, through a one-element tile, its scaled sum.

Coverage: reshape to rank 0 (``shape=()`` loads, ``.item()``), ``extract`` at a
runtime and a constant index, scalar arithmetic on rank-0 tiles, a rank-0 tile as a
view index, a row index past the end of ``x`` (the whole tile outside the view's index
space: zero padding), a scalar stored through a one-element tile, ragged columns.

Inputs, numpy reference and tolerance: ``cases/scalar_tiles_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.scalar_tiles_f32 import (
    GROUPS,
    OFFSET_SLOT,
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def scalar_tiles_f32(x, scale, order, out, total):
    """out[b] = x[row] * scale[b], total[b] = sum(x[row]) * scale[b]."""
    b = ct.bid(0)
    s = ct.load(scale, (b,), shape=())
    table = ct.load(order, (0,), (GROUPS,))
    row = table.extract((b % GROUPS,), (1,)).item() + table.extract((OFFSET_SLOT,), (1,)).item()
    t = ct.load(x, (row, 0), (1, TILE), padding_mode=ct.PaddingMode.ZERO)  # pyright: ignore[reportArgumentType]
    ct.store(out, (b, 0), t * s)
    ct.store(total, (b,), ct.sum(t) * s)


KERNEL = scalar_tiles_f32


def signatures() -> list[KernelSignature]:
    f1 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    f2 = array_constraint(ct.float32, 2, base_addr_divisible_by=16)
    i1 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f2, f1, i1, f2, f1])]
