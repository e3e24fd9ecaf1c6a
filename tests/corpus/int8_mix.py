"""1-D int8 arithmetic in 8 bits and widened to int32.

``mixed = where(a > b, (a + b) >> 1, max(a, b) - 3)`` in int8 (wrapping);
``widened = int32(a) * int32(b) + (a < 0)``.

Coverage: i8 loads and stores (sixteen bytes per thread: packed words),
wrapping i8 ``addi``/``subi``, arithmetic ``shri`` on i8, ``maxi``, ``cmpi``,
``select``, i8 -> i32 ``exti``, a ragged length (5000 vs 1024).
Inputs, numpy reference and tolerance: ``cases/int8_mix.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.int8_mix import TILE, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def int8_mix(a, b, mixed, widened):
    """Wrapping int8 arithmetic into ``mixed``; an int32 product into ``widened``."""
    pid = ct.bid(0)
    ta = ct.load(a, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    m = ct.where(ta > tb, (ta + tb) >> 1, ct.maximum(ta, tb) - 3)
    ct.store(mixed, (pid,), ct.astype(m, ct.int8))
    wa = ct.astype(ta, ct.int32)
    wb = ct.astype(tb, ct.int32)
    ct.store(widened, (pid,), wa * wb + ct.astype(ta < 0, ct.int32))


KERNEL = int8_mix


def signatures() -> list[KernelSignature]:
    i8 = array_constraint(ct.int8, 1, base_addr_divisible_by=16)
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=16)
    return [kernel_signature([i8, i8, i8, i32])]
