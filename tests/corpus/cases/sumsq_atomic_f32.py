"""Inputs, numpy reference and tolerance of the ``sumsq_atomic_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 512
N = 3000
# Each block's sum is a tree sum; the blocks' partial sums reach memory in an
# unspecified order (atomics).
TOLERANCE = {"total": (1e-5, 1e-5), "peak": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-1.0, 1.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "total", "peak"),
        arrays={"x": x, "total": np.zeros(1, np.float32), "peak": np.zeros(1, np.int32)},
        scalars={},
        constants={},
        outputs=("total", "peak"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    q = np.floor(np.abs(x) * np.float32(1000.0)).astype(np.int32)
    return {
        "total": np.asarray([np.sum(x.astype(np.float64) ** 2)], np.float32),
        "peak": np.asarray([q.max()], np.int32),
    }
