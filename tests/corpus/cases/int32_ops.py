"""Inputs, numpy reference and tolerance of the ``int32_ops`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 512
N = 3000
TOLERANCE = {"arith": (0.0, 0.0), "select": (0.0, 0.0)}


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
