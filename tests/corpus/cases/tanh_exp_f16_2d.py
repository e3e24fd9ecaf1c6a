"""Inputs, numpy reference and tolerance of the ``tanh_exp_f16_2d`` corpus kernel
(no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M = 32
TILE_N = 64
M, N = 100, 200
# One f16 rounding of a value computed in f32 (within a few f32 ulps).
TOLERANCE = {"out": (2e-3, 1e-3)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-3.0, 3.0, (M, N)).astype(np.float16)
    return make_kernel_inputs(
        params=("x", "out", "scale"),
        arrays={"x": x, "out": empty_output((M, N), np.float16)},
        scalars={"scale": 0.8},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    xf = inputs["arrays"]["x"].astype(np.float32)
    scale = np.float32(inputs["scalars"]["scale"])
    y = scale * np.tanh(xf) + np.exp(-np.abs(xf))
    return {"out": y.astype(np.float16)}
