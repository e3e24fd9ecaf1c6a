"""Inputs, numpy reference and tolerance of the ``square_tile_f16_2d`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE = 32
M, N = 70, 90
TOLERANCE = {"out": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-8.0, 8.0, (M, N)).astype(np.float16)
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((M, N), np.float16)},
        outputs=("out",),
        grid=(cdiv(M, TILE), cdiv(N, TILE), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"].astype(np.float32)
    # Computed in f32 and rounded once to f16, as the kernel does.
    return {"out": (x * np.float32(0.5) + np.float32(1.0)).astype(np.float16)}
