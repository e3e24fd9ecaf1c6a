"""Inputs, numpy reference and tolerance of the ``clamp_f32_2d`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import (
    KernelInputs,
    cdiv,
    empty_output,
    flatten_args,
    make_kernel_inputs,
    strided_view,
)

__all__ = ["LDX", "TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M = 16
TILE_N = 32
M, N = 45, 130
LDX = 136  # row stride of the input buffer, in elements
TOLERANCE = {"out": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    buf = rng.uniform(-3.0, 3.0, (M, LDX)).astype(np.float32)
    x = strided_view(buf, (M, N))
    return make_kernel_inputs(
        params=("x", "out", "lo", "hi"),
        arrays={"x": x, "out": empty_output((M, N), np.float32)},
        scalars={"lo": -1.5, "hi": 0.75},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    lo = np.float32(inputs["scalars"]["lo"])
    hi = np.float32(inputs["scalars"]["hi"])
    return {"out": np.minimum(np.maximum(x, lo), hi)}
