"""Sum of a 1-D int32 array in one launch, CUDA's "threadfence reduction": each block
stores its tile's sum in ``partial[bid]``, publishes it by setting ``ready[bid]`` with a
release ``atomic_xchg`` whose old value nobody reads (a flag publish, the lock-release
pattern), then takes a ticket from ``count`` (``atomic_add``, acq_rel); the block that
takes the last ticket sums every partial and every flag into ``total``.

Coverage: the unused-result release exchange (PTX has no ``red...exch``: an ``atom``
whose result register nobody reads), a scalar ``atomic_rmw_tko`` add whose old value
decides an ``if`` (``get_num_tile_blocks``), ``scatter`` of a scalar, loads inside the
``if`` of data other blocks stored, a 1-D ``reduce`` to a scalar, zero padding, a
ragged length (2000 vs 256).

Inputs, numpy reference and tolerance: ``cases/last_block_sum_i32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.last_block_sum_i32 import (
    BLOCKS,
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def last_block_sum_i32(x, partial, ready, count, total):
    """partial[b] = sum of block b's tile; the last block: total = (sum, flags set)."""
    b = ct.bid(0)
    t = ct.load(x, (b,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.scatter(partial, b, ct.sum(t))
    ct.atomic_xchg(ready, b, 1, memory_order=ct.MemoryOrder.RELEASE)
    ticket = ct.atomic_add(count, 0, 1)
    if ticket == ct.num_blocks(0) - 1:
        sums = ct.load(partial, (0,), (BLOCKS,))
        flags = ct.load(ready, (0,), (BLOCKS,))
        ct.scatter(total, 0, ct.sum(sums))
        ct.scatter(total, 1, ct.sum(flags))


KERNEL = last_block_sum_i32


def signatures() -> list[KernelSignature]:
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([i32, i32, i32, i32, i32])]
