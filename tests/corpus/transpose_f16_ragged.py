"""2-D f16 transpose of arrays whose extents are multiples of 16 but not of the tile.

``out = x.T``

Coverage: ``ct.transpose`` on 64x64 f16 tiles over a 208x144 array: the last tiles of
each row and column are partial, so loads and stores are masked, but every extent is
declared a multiple of 16 (``shape_divisible_by``), so each 8-element (16-byte) vector
is wholly in bounds or wholly out: a load takes one predicate, no per-element fallback
(the mask's constancy from ``assume div_by<16>`` on the extents; docs/codegen.md,
"Memory accesses").  Strides multiples of 8 elements; 2-D grid.
Inputs, numpy reference and tolerance: ``cases/transpose_f16_ragged.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.transpose_f16_ragged import TILE, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def transpose_f16_ragged(x, out):
    """Tile (i, j) of x becomes tile (j, i) of out; edge tiles are partial."""
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, (i, j), (TILE, TILE), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (j, i), ct.transpose(t))


KERNEL = transpose_f16_ragged


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(
        ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1], shape_divisible_by=16
    )
    return [kernel_signature([f16, f16])]
