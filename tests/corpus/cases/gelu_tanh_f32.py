"""Inputs, numpy reference and tolerance of the ``gelu_tanh_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, empty_output, flatten_args, make_kernel_inputs

__all__ = [
    "GELU_C",
    "SQRT_2_OVER_PI",
    "TILE",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
]

TILE = 1024
N = 8 * TILE
SQRT_2_OVER_PI = 0.7978845608028654
GELU_C = 0.044715
# tanh.approx has a relative error around 2^-11; 1 + tanh cancels for x << 0.
TOLERANCE = {"out": (2e-3, 2e-3)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-5.0, 5.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((N,), np.float32)},
        outputs=("out",),
        grid=(N // TILE, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    t = inputs["arrays"]["x"]
    c0 = np.float32(SQRT_2_OVER_PI)
    c1 = np.float32(GELU_C)
    inner = c0 * (t + c1 * t * t * t)
    y = np.float32(0.5) * t * (np.float32(1.0) + np.tanh(inner))
    return {"out": y.astype(np.float32)}
