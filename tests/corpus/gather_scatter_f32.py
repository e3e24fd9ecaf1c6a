"""Gather through an index array and scatter through a permutation, with masks.

``v = 2 * x[idx]`` (indices outside ``x`` give the padding value 7.0), then
``out[perm] = v`` where ``v > 0`` (``perm`` is a permutation, so no two elements
land on one address).

Coverage: ``gather`` (``load_ptr_tko`` with bounds mask and padding), ``scatter``
(``store_ptr_tko`` with the bounds mask and a user mask), indices loaded from
memory, a ragged length (700 vs 128).

Inputs, numpy reference and tolerance: ``cases/gather_scatter_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.gather_scatter_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def gather_scatter_f32(x, idx, perm, out):
    """out[perm[i]] = 2 * x[idx[i]] where positive."""
    pid = ct.bid(0)
    i = ct.load(idx, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    p = ct.load(perm, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    live = pid * TILE + ct.arange(TILE, dtype=ct.int32) < idx.shape[0]
    v = ct.gather(x, i, padding_value=7.0) * 2.0
    ct.scatter(out, p, v, mask=(v > 0.0) & live)


KERNEL = gather_scatter_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f32, i32, i32, f32])]
