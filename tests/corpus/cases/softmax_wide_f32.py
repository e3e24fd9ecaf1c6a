"""Inputs, numpy reference and tolerance of the ``softmax_wide_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_N", "TOLERANCE", "M", "N", "flatten_args", "make_inputs", "reference"]

TILE_N = 1024
M = 5
N = 1000
# exp within 2 ulp; tree sum of 1000 terms against numpy's pairwise sum.
TOLERANCE = {"out": (2e-6, 1e-8)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-8.0, 8.0, (M, N)).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((M, N), np.float32)},
        scalars={},
        constants={},
        outputs=("out",),
        grid=(M, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"out": (e / e.sum(axis=1, keepdims=True, dtype=np.float32)).astype(np.float32)}
