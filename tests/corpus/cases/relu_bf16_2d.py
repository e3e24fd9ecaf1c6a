"""Inputs, numpy reference and tolerance of the ``relu_bf16_2d`` corpus kernel (no cuTile)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M = 16
TILE_N = 64
M, N = 77, 150
BF16 = ml_dtypes.bfloat16
# max is exact; the leaky branch is one f32 multiply then one bf16 rounding,
# which the reference reproduces bit for bit.
TOLERANCE = {"relu": (0.0, 0.0), "leaky": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-8.0, 8.0, (M, N)).astype(BF16)
    return make_kernel_inputs(
        params=("x", "relu", "leaky", "slope"),
        arrays={"x": x, "relu": empty_output((M, N), BF16), "leaky": empty_output((M, N), BF16)},
        scalars={"slope": 0.125 + 1.0 / 3.0},
        outputs=("relu", "leaky"),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    slope = np.float32(inputs["scalars"]["slope"])
    relu = np.maximum(x, BF16(0.0))
    scaled = (x.astype(np.float32) * slope).astype(BF16)
    leaky = np.where(x > BF16(0.0), x, scaled)
    return {"relu": relu.astype(BF16), "leaky": leaky.astype(BF16)}
