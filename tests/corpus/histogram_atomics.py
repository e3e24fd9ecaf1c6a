"""Histogram of a 1-D int32 array with atomics into global memory.

Each block gathers its 256 bin numbers (``-1`` past the end, which the atomics'
bounds check skips) and weights, then ``hist[b] += 1`` (relaxed: a ``red``),
``wsum[b] += w`` (f32, acq_rel) and ``last[b] = max(last[b], i)`` (the last index
seen per bin) with atomics; no result is read.

Coverage: ``gather`` (``load_ptr_tko`` with a mask and padding), ``atomic_rmw_tko``
add (i32, relaxed), addf (f32, acq_rel) and max (i32), masks from bounds checks,
many threads hitting one address, a ragged length (1000 vs 256).

Inputs, numpy reference and tolerance: ``cases/histogram_atomics.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.histogram_atomics import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def histogram_atomics(x, w, hist, wsum, last):
    """Per-bin counts, weight sums and last index, with atomics."""
    idx = ct.bid(0) * TILE + ct.arange(TILE, dtype=ct.int32)
    bins = ct.gather(x, idx, padding_value=-1)
    weights = ct.gather(w, idx, padding_value=0.0)
    ct.atomic_add(hist, bins, 1, memory_order=ct.MemoryOrder.RELAXED)
    ct.atomic_add(wsum, bins, weights)
    ct.atomic_max(last, bins, idx)


KERNEL = histogram_atomics


def signatures() -> list[KernelSignature]:
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    return [kernel_signature([i32, f32, i32, f32, i32])]
