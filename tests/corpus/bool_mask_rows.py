"""Bool arrays in and out of 32x64 tiles: a select by a loaded mask, a comparison
stored as bools, and the running count of a mask's trues along each row.

``out = where(keep, x, -x)``, ``positive = x > 0``, ``count = cumsum(keep, axis=1)``
per tile.

Coverage: ``ct.load``/``ct.store`` of ``ct.bool_`` arrays (one byte an element),
which move in vectors of bytes where the axis analysis proves the rows aligned and
contiguous (16 bytes a thread here, ``ldg_128b``/``stg_128b``), unpacked and
compared with zero as loaded, packed as stored; ``exti`` of a bool tile into a
``scan`` (the shape of cuTile's own ``cumsum`` of a bool array).  Extents multiples of
16, rows and columns ragged against the tile; strides multiples of 16; 2-D grid.
Inputs, numpy reference and tolerance: ``cases/bool_mask_rows.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.bool_mask_rows import TILE_M, TILE_N, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def bool_mask_rows(x, keep, out, positive, count):
    """Tile (i, j): select by the mask, compare, count the mask's trues."""
    i = ct.bid(0)
    j = ct.bid(1)
    tx = ct.load(x, (i, j), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    tk = ct.load(keep, (i, j), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (i, j), ct.where(tk, tx, -tx))
    ct.store(positive, (i, j), tx > 0)
    ct.store(count, (i, j), ct.cumsum(ct.astype(tk, ct.int32), axis=1))


KERNEL = bool_mask_rows


def signatures() -> list[KernelSignature]:
    def array(dtype: object) -> object:
        return array_constraint(
            dtype, 2, base_addr_divisible_by=16, stride_divisible_by=[16, 1], shape_divisible_by=16
        )

    f32, b8, i32 = array(ct.float32), array(ct.bool_), array(ct.int32)
    return [kernel_signature([f32, b8, f32, b8, i32])]
