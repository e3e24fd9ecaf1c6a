"""2-D f32 transpose through a register tile.

``out = x.T``

Coverage: ``ct.transpose`` (cuda_tile ``permute``), whose result layout is the
source's layout with its dimensions swapped, so storing it needs a layout
conversion through shared memory; a rectangular 32x64 tile; 2-D grid; shapes a
multiple of the tile (128x192).
Inputs, numpy reference and tolerance: ``cases/transpose_f32_2d.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.transpose_f32_2d import TILE_M, TILE_N, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def transpose_f32_2d(x, out):
    """Tile (i, j) of x becomes tile (j, i) of out."""
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, (i, j), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (j, i), ct.transpose(t))


KERNEL = transpose_f32_2d


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    return [kernel_signature([f32, f32])]
