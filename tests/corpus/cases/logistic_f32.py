"""Inputs, numpy reference and tolerance of the ``logistic_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 128
N = 1000
TOLERANCE = {"sig": (1e-5, 1e-6), "logsig": (1e-5, 1e-5), "steps": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-12.0, 12.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "sig", "logsig", "steps", "temperature"),
        arrays={
            "x": x,
            "sig": empty_output((N,), np.float32),
            "logsig": empty_output((N,), np.float32),
            "steps": empty_output((N,), np.float32),
        },
        scalars={"temperature": 1.5},
        outputs=("sig", "logsig", "steps"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    one = np.float32(1.0)
    z = x / np.float32(inputs["scalars"]["temperature"])
    sig = one / (one + np.exp(-z))
    softplus = np.maximum(z, np.float32(0.0)) + np.log(one + np.exp(-np.abs(z)))
    steps = np.floor(x * np.float32(4.0)) * np.float32(0.25)
    return {"sig": sig, "logsig": (z - softplus).astype(np.float32), "steps": steps}
