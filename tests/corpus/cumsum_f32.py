"""Per-tile prefix sums of a 1-D array: a forward f32 ``cumsum`` and a reverse i32 one.

Each block scans its 256-element tile: ``out = cumsum(x)``, ``rev = cumsum(k,
reverse=True)`` (suffix sums).  The last tile is ragged (1000 vs 256), padded
with zeros.

Coverage: ``scan`` with addf and addi, ``reverse=true``, a 1-D scan over two warps.

Inputs, numpy reference and tolerance: ``cases/cumsum_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.cumsum_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def cumsum_f32(x, k, out, rev):
    """Prefix sums of x and suffix sums of k within each tile."""
    pid = ct.bid(0)
    tx = ct.load(x, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    tk = ct.load(k, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (pid,), ct.cumsum(tx, axis=0))
    ct.store(rev, (pid,), ct.cumsum(tk, axis=0, reverse=True))


KERNEL = cumsum_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f32, i32, f32, i32])]
