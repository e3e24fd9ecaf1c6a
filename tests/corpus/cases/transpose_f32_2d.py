"""Inputs, numpy reference and tolerance of the ``transpose_f32_2d`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M, TILE_N = 32, 64
M, N = 128, 192
TOLERANCE = {"out": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-8.0, 8.0, (M, N)).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((N, M), np.float32)},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    # Exact: the kernel only moves elements.
    return {"out": np.ascontiguousarray(inputs["arrays"]["x"].T)}
