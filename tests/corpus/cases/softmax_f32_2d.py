"""Inputs, numpy reference and tolerance of the ``softmax_f32_2d`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "M", "N", "flatten_args", "make_inputs", "reference"]

TILE_M = 16
TILE_N = 64
M = 100
N = 50
# exp is within 2 ulp; the row sum is added in a tree, numpy adds pairwise in
# another order.
TOLERANCE = {"out": (2e-6, 1e-7)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-8.0, 8.0, (M, N)).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((M, N), np.float32)},
        scalars={},
        constants={},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"out": (e / e.sum(axis=1, keepdims=True, dtype=np.float32)).astype(np.float32)}
