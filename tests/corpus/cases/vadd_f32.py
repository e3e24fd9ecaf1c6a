"""Inputs, numpy reference and tolerance of the ``vadd_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 1024
N = 10_000
TOLERANCE = {"c": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    return make_kernel_inputs(
        params=("a", "b", "c"),
        arrays={"a": a, "b": b, "c": empty_output((N,), np.float32)},
        outputs=("c",),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    return {"c": arrays["a"] + arrays["b"]}
