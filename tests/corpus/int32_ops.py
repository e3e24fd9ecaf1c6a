"""1-D int32 elementwise integer arithmetic, bit operations, comparisons and selects.

``arith = (((a + b) * 3 - (a << 2)) ^ (b >> shift)) | (~a & 0xF0)``
``select = where(a > b, a // 7, b % 5) + min(a, b) + |a - b| + max(-a, k) + (a >= k)``

(Python semantics: ``//`` floors, ``%`` takes the divisor's sign, ``>>`` on
int32 is arithmetic.)

Coverage: 1-D grid, int32 (``addi``, ``subi``, ``muli``, ``shli``, ``shri``,
``xori``, ``ori``, ``andi``, bitwise not, ``divi`` rounding to -inf, ``remi``
with sign fix-up, ``mini``/``maxi``, ``absi``, ``negi``, ``cmpi``, ``select``,
bool -> int32 ``exti``), runtime ``int`` scalars, a ragged length (3000 vs
512), bases only 4-byte aligned.

Inputs, numpy reference and tolerance: ``cases/int32_ops.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.int32_ops import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def int32_ops(a, b, arith, select, shift: int, k: int):
    """Integer arithmetic/bitwise mix into ``arith``; compare-and-select mix into ``select``."""
    pid = ct.bid(0)
    ta = ct.load(a, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    tb = ct.load(b, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    mixed = (((ta + tb) * 3 - (ta << 2)) ^ (tb >> shift)) | (~ta & 0xF0)
    ct.store(arith, (pid,), mixed)
    picked = ct.where(ta > tb, ta // 7, tb % 5)
    picked = picked + ct.minimum(ta, tb) + ct.abs(ta - tb)
    picked = picked + ct.maximum(-ta, k) + ct.astype(ta >= k, ct.int32)
    ct.store(select, (pid,), picked)


KERNEL = int32_ops


def signatures() -> list[KernelSignature]:
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=4)
    i32_scalar = scalar_constraint(ct.int32)
    return [kernel_signature([i32, i32, i32, i32, i32_scalar, i32_scalar])]
