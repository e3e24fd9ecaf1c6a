"""Sum of squares and maximum of a 1-D float32 array: each block reduces its tile to
a scalar and adds it (``atomic_add``) / folds it (``atomic_max``) into one element.

Coverage: a 1-D ``reduce`` to a 0-d tile (across the block's four warps, through
shared memory), ``max`` of an int32 tile,
scalar ``atomic_rmw_tko`` (addf, max) performed once per block, zero padding, a
ragged length (3000 vs 512).

Inputs, numpy reference and tolerance: ``cases/sumsq_atomic_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.sumsq_atomic_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def sumsq_atomic_f32(x, total, peak):
    """total += sum(x^2), peak = max(peak, floor(|x| * 1000)) over the block's tile."""
    t = ct.load(x, (ct.bid(0),), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.atomic_add(total, 0, ct.sum(t * t))
    q = ct.astype(ct.floor(ct.abs(t) * 1000.0), ct.int32)
    ct.atomic_max(peak, 0, ct.max(q))


KERNEL = sumsq_atomic_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f32, f32, i32])]
