"""Inputs, numpy reference and tolerance of the ``mixed_tiles_inplace`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, flatten_args, make_kernel_inputs

__all__ = ["BIG", "SMALL", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

BIG = 512
SMALL = 64
BLOCKS = 3
TOLERANCE = {"x": (0.0, 0.0), "y": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-4.0, 4.0, BIG * BLOCKS).astype(np.float32)
    y = rng.uniform(-4.0, 4.0, SMALL * BLOCKS).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "y"),
        arrays={"x": x, "y": y},
        outputs=("x", "y"),
        grid=(BLOCKS, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    y = inputs["arrays"]["y"]
    return {"x": x * np.float32(2.0), "y": y + np.float32(1.0)}
