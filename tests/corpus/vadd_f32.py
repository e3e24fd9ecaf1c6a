"""1-D float32 vector add: ``c = a + b``.

Coverage: 1-D grid (``ct.bid(0)``), f32, ``addf``, zero padding on loads, a
length (10000) that is not a multiple of the tile (1024), 16-byte aligned bases.

Inputs, numpy reference and tolerance: ``cases/vadd_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
)
from cases.vadd_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def vadd_f32(a, b, c):
    """c[i] = a[i] + b[i]; block ``bid(0)`` handles elements [bid*TILE, (bid+1)*TILE)."""
    pid = ct.bid(0)
    x = ct.load(a, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(pid,), tile=x + y)


KERNEL = vadd_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f32, f32, f32])]
