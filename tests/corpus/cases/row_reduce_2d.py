"""Inputs, numpy reference and tolerance of the ``row_reduce_2d`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "M", "N", "flatten_args", "make_inputs", "reference"]

TILE_M = 8
TILE_N = 128
M = 37
N = 128
# Integer results are exact; the f32 row sum is a tree sum (numpy's pairwise sum
# adds in another order); max, min and argmax are exact.
TOLERANCE = {
    "fsum": (1e-5, 1e-5),
    "fmax": (0.0, 0.0),
    "argmax": (0.0, 0.0),
    "imin": (0.0, 0.0),
    "ixor": (0.0, 0.0),
    "iprod": (0.0, 0.0),
}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-4.0, 4.0, (M, N)).astype(np.float32)
    # Ties for argmax: the first index must win.
    x[3, 100] = x[3, 7] = 9.0
    y = rng.integers(-1000, 1000, (M, N), dtype=np.int32)
    return make_kernel_inputs(
        params=("x", "y", "fsum", "fmax", "argmax", "imin", "ixor", "iprod"),
        arrays={
            "x": x,
            "y": y,
            "fsum": empty_output((M,), np.float32),
            "fmax": empty_output((M,), np.float32),
            "argmax": empty_output((M,), np.int32),
            "imin": empty_output((M,), np.int32),
            "ixor": empty_output((M,), np.int32),
            "iprod": empty_output((M,), np.int32),
        },
        scalars={},
        constants={},
        outputs=("fsum", "fmax", "argmax", "imin", "ixor", "iprod"),
        grid=(cdiv(M, TILE_M), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    x, y = a["x"], a["y"]
    xor = np.bitwise_xor.reduce(y, axis=1)
    with np.errstate(over="ignore"):
        prod = np.multiply.reduce(y | 1, axis=1, dtype=np.int32)  # wraps like i32
    return {
        "fsum": x.sum(axis=1, dtype=np.float32),
        "fmax": x.max(axis=1),
        "argmax": x.argmax(axis=1).astype(np.int32),
        "imin": y.min(axis=1),
        "ixor": xor.astype(np.int32),
        "iprod": prod.astype(np.int32),
    }
