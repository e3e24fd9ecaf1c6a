"""Inputs, numpy reference and tolerance of the ``saxpy_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 256
N = 4099
# fma contraction: one rounding instead of numpy's two.
TOLERANCE = {"out": (1e-6, 1e-6)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-4.0, 4.0, N).astype(np.float32)
    y = rng.uniform(-4.0, 4.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "y", "out", "alpha", "tile"),
        arrays={"x": x, "y": y, "out": empty_output((N,), np.float32)},
        scalars={"alpha": 1.75},
        constants={"tile": TILE},
        outputs=("out",),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    alpha = np.float32(inputs["scalars"]["alpha"])
    return {"out": alpha * a["x"] + a["y"]}
