"""Suffix products down the columns of each 16x32 i8 tile.

``out[i, j] = prod(x[i:end_of_tile, j])``, wrapping modulo 256

Coverage: ``ct.cumprod(axis=0, reverse=True)`` on i8 → ``scan`` muli along the
tile's rows, across the contiguous dimension (the shape of cuTile's own
``cumprod_axis0`` test at i8): the layout gives the scanned dimension a thread's
registers before lanes (docs/codegen.md, "Reductions and scans").  Extents
multiples of 16, columns ragged against the tile; strides multiples of 16; 2-D grid.
Inputs, numpy reference and tolerance: ``cases/cumprod_cols_i8.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.cumprod_cols_i8 import TILE_M, TILE_N, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def cumprod_cols_i8(x, out):
    """Each column of tile (i, j) multiplied from its last row up."""
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, (i, j), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (i, j), ct.cumprod(t, axis=0, reverse=True))


KERNEL = cumprod_cols_i8


def signatures() -> list[KernelSignature]:
    i8 = array_constraint(
        ct.int8, 2, base_addr_divisible_by=16, stride_divisible_by=[16, 1], shape_divisible_by=16
    )
    return [kernel_signature([i8, i8])]
