"""Inputs, numpy reference and tolerance of the ``rsqrt_norm_f32_2d`` corpus kernel
(no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M = 8
TILE_N = 128
M, N = 64, 384
# rsqrt is not correctly rounded on the GPU; sqrt is (IEEE round-to-nearest).
TOLERANCE = {"unit": (1e-5, 1e-6), "root": (1e-6, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-10.0, 10.0, (M, N)).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "unit", "root", "eps"),
        arrays={
            "x": x,
            "unit": empty_output((M, N), np.float32),
            "root": empty_output((M, N), np.float32),
        },
        scalars={"eps": 1e-3},
        outputs=("unit", "root"),
        grid=(M // TILE_M, N // TILE_N, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    eps = np.float32(inputs["scalars"]["eps"])
    unit = x * (np.float32(1.0) / np.sqrt(x * x + eps))
    return {"unit": unit.astype(np.float32), "root": np.sqrt(np.abs(x))}
