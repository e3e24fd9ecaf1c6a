"""Row reductions of a 2-D float32 and a 2-D int32 array, one 8x128 tile per block.

Per row: f32 ``sum``, ``max`` and ``argmax`` (first index on ties) of ``x``;
i32 ``min``, xor (``ct.reduce`` with a ``bitwise_xor`` body and identity 0) and
wrapping product of ``y | 1`` (``prod``) of ``y``.

Coverage: ``reduce`` with addf, maxf, the two-operand argmax body, mini, xori,
muli; identities; ragged rows (37 vs 8).

Inputs, numpy reference and tolerance: ``cases/row_reduce_2d.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.row_reduce_2d import (
    TILE_M,
    TILE_N,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = [
    "KERNEL",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
    "signatures",
]


@ct.kernel
def row_reduce_2d(x, y, fsum, fmax, argmax, imin, ixor, iprod):
    """Per-row f32 sum/max/argmax and i32 min/xor/product."""
    pid = ct.bid(0)
    tx = ct.load(x, (pid, 0), (TILE_M, TILE_N))
    ty = ct.load(y, (pid, 0), (TILE_M, TILE_N))
    ct.store(fsum, (pid,), ct.sum(tx, axis=1))
    ct.store(fmax, (pid,), ct.max(tx, axis=1))
    ct.store(argmax, (pid,), ct.astype(ct.argmax(tx, axis=1), ct.int32))
    ct.store(imin, (pid,), ct.min(ty, axis=1))
    ct.store(ixor, (pid,), ct.reduce(ty, 1, lambda a, b: a ^ b, 0))
    ct.store(iprod, (pid,), ct.prod(ty | 1, axis=1))


KERNEL = row_reduce_2d


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=16)
    i32 = array_constraint(ct.int32, 2, base_addr_divisible_by=16)
    f1 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    i1 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f32, i32, f1, f1, i1, i1, i1, i1])]
