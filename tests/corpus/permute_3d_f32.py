"""3-D f32 permutation of a register tile.

``out = x.transpose(2, 0, 1)``

Coverage: ``ct.permute`` on a rank-3 tile (cuda_tile ``permute [2, 0, 1]``), an
exchange through shared memory; 3-D grid; shapes a multiple of the tile
(8x16x48 vs 4x8x16).
Inputs, numpy reference and tolerance: ``cases/permute_3d_f32.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.permute_3d_f32 import TILE, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def permute_3d_f32(x, out):
    """Tile (i, j, k) of x becomes tile (k, i, j) of out."""
    i = ct.bid(0)
    j = ct.bid(1)
    k = ct.bid(2)
    t = ct.load(x, (i, j, k), TILE, padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (k, i, j), ct.permute(t, (2, 0, 1)))


KERNEL = permute_3d_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 3, base_addr_divisible_by=16, stride_divisible_by=[4, 4, 1])
    return [kernel_signature([f32, f32])]
