"""Inputs, numpy reference and tolerance of the ``residual_cast_f16`` corpus kernel
(no cuTile)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 256
N = 2500
BF16 = ml_dtypes.bfloat16
# fma contraction in f32; the bf16 copy may then round the other way (1 bf16 ulp).
TOLERANCE = {"out": (1e-6, 1e-6), "out_bf16": (8e-3, 1e-6)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.standard_normal(N).astype(np.float16)
    residual = rng.standard_normal(N).astype(np.float16)
    return make_kernel_inputs(
        params=("x", "residual", "out", "out_bf16", "beta"),
        arrays={
            "x": x,
            "residual": residual,
            "out": empty_output((N,), np.float32),
            "out_bf16": empty_output((N,), BF16),
        },
        scalars={"beta": 0.3},
        outputs=("out", "out_bf16"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"].astype(np.float32)
    r = inputs["arrays"]["residual"].astype(np.float32)
    beta = np.float32(inputs["scalars"]["beta"])
    y = x + beta * r
    return {"out": y, "out_bf16": y.astype(BF16)}
