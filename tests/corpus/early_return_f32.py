"""Early returns: blocks past the data leave at once, and a block whose tile holds an
outlier flags it and leaves before writing its output.

``if b * TILE >= n: return`` compares the block's first element with a runtime count;
``if max(t) > limit: store status 1; return`` decides on a reduction.  The other
blocks store status 0 and ``2 * t``.  What no block writes keeps its sentinel.

Coverage: ``return`` inside an ``if`` on a runtime scalar and inside one on a
reduction, with stores before the return; the whole tile block returns (the
condition is a scalar), lifted to structured exit flags; a one-element tile store of
an integer constant; ragged last tile.

Inputs, numpy reference and tolerance: ``cases/early_return_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature, scalar_constraint
from cases.early_return_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def early_return_f32(x, out, status, n: int, limit: float):
    """out[tile b] = 2 * x[tile b] unless the block starts past n or the tile exceeds limit."""
    b = ct.bid(0)
    if b * TILE >= n:
        return
    t = ct.load(x, (b,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    if ct.max(t) > limit:
        ct.store(status, (b,), ct.full((1,), 1, dtype=ct.int32))
        return
    ct.store(status, (b,), ct.full((1,), 0, dtype=ct.int32))
    ct.store(out, (b,), t * 2.0)


KERNEL = early_return_f32


def signatures() -> list[KernelSignature]:
    f1 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    i1 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [
        kernel_signature([f1, f1, i1, scalar_constraint(ct.int32), scalar_constraint(ct.float32)])
    ]
