"""Inputs, numpy reference and tolerance of the ``int8_mix`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 1024
N = 5000
TOLERANCE = {"mixed": (0.0, 0.0), "widened": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.integers(-128, 128, N, dtype=np.int8)
    b = rng.integers(-128, 128, N, dtype=np.int8)
    a[:4] = [-128, 127, -1, 0]
    b[:4] = [-128, 127, 1, -128]
    return make_kernel_inputs(
        params=("a", "b", "mixed", "widened"),
        arrays={
            "a": a,
            "b": b,
            "mixed": empty_output((N,), np.int8),
            "widened": empty_output((N,), np.int32),
        },
        outputs=("mixed", "widened"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]["a"]
    b = inputs["arrays"]["b"]
    i8 = np.int8
    # int8 arithmetic wraps; >> on int8 is arithmetic.
    with np.errstate(over="ignore"):
        mixed = np.where(a > b, (a + b) >> i8(1), np.maximum(a, b) - i8(3))
    widened = a.astype(np.int32) * b.astype(np.int32) + (a < i8(0)).astype(np.int32)
    return {"mixed": mixed.astype(np.int8), "widened": widened.astype(np.int32)}
