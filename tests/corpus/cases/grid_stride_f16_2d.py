"""Inputs, numpy reference and tolerance of the ``grid_stride_f16_2d`` corpus kernel
(no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["GRID_N", "TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M = 16
TILE_N = 64
M, N = 64, 1000
GRID_N = 4  # blocks along axis 1; the tile space has cdiv(N, TILE_N) = 16 columns
TOLERANCE = {"q": (0.0, 0.0), "frac": (0.0, 0.0), "pow2": (2e-3, 1e-4)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-4.0, 4.0, (M, N)).astype(np.float16)
    return make_kernel_inputs(
        params=("x", "q", "frac", "pow2", "scale"),
        arrays={
            "x": x,
            "q": empty_output((M, N), np.int32),
            "frac": empty_output((M, N), np.float16),
            "pow2": empty_output((M, N), np.float16),
        },
        scalars={"scale": 0.5},
        outputs=("q", "frac", "pow2"),
        grid=(cdiv(M, TILE_M), GRID_N, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    scale = np.float32(inputs["scalars"]["scale"])
    xf = x.astype(np.float32)
    q = (xf * np.float32(16.0)).astype(np.int32)  # numpy truncates toward zero, like ftoi
    frac = x - q.astype(np.float16) * np.float16(0.0625)
    pow2 = (np.exp2(xf) * scale).astype(np.float16)
    return {"q": q, "frac": frac.astype(np.float16), "pow2": pow2}
