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
"""

from __future__ import annotations

import cuda.tile as ct
import numpy as np
from _common import (
    KernelInputs,
    array_constraint,
    cdiv,
    empty_output,
    flatten_args,
    kernel_signature,
    make_kernel_inputs,
    scalar_constraint,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]

TILE = 512
N = 3000


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
TOLERANCE = {"arith": (0.0, 0.0), "select": (0.0, 0.0)}


def signatures() -> list[KernelSignature]:
    i32 = array_constraint(ct.int32, 1, base_addr_divisible_by=4)
    i32_scalar = scalar_constraint(ct.int32)
    return [kernel_signature([i32, i32, i32, i32, i32_scalar, i32_scalar])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    # |values| < 2^20 keeps every intermediate far from int32 overflow.
    a = rng.integers(-(1 << 20), 1 << 20, N, dtype=np.int32)
    b = rng.integers(-(1 << 20), 1 << 20, N, dtype=np.int32)
    return make_kernel_inputs(
        params=("a", "b", "arith", "select", "shift", "k"),
        arrays={
            "a": a,
            "b": b,
            "arith": empty_output((N,), np.int32),
            "select": empty_output((N,), np.int32),
        },
        scalars={"shift": 3, "k": -1000},
        outputs=("arith", "select"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]["a"]
    b = inputs["arrays"]["b"]
    shift = np.int32(inputs["scalars"]["shift"])
    k = np.int32(inputs["scalars"]["k"])
    i32 = np.int32
    arith = (((a + b) * i32(3) - (a << i32(2))) ^ (b >> shift)) | (~a & i32(0xF0))
    picked = np.where(a > b, a // i32(7), b % i32(5))
    picked = picked + np.minimum(a, b) + np.abs(a - b)
    picked = picked + np.maximum(-a, k) + (a >= k).astype(np.int32)
    return {"arith": arith.astype(np.int32), "select": picked.astype(np.int32)}
