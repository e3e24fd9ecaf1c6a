"""2-D f16 kernel with a square 32x32 tile.

``out = f16(f32(x) * 0.5 + 1)``

Coverage: a square tile, whose row and column indices are one ``iota`` after CSE
but must be distributed along different dimensions (tileir rematerializes the
index math per layout); 2-D grid; ragged in both dimensions (70x90 vs 32x32).
Inputs, numpy reference and tolerance: ``cases/square_tile_f16_2d.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.square_tile_f16_2d import TILE, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def square_tile_f16_2d(x, out):
    """One 32x32 tile per block, computed in f32."""
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.astype(ct.load(x, (i, j), (TILE, TILE), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    ct.store(out, (i, j), ct.astype(t * 0.5 + 1.0, ct.float16))


KERNEL = square_tile_f16_2d


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[2, 1])
    return [kernel_signature([f16, f16])]
