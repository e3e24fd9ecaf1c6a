"""Inputs, numpy reference and tolerance of the ``last_block_sum_i32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, flatten_args, make_kernel_inputs

__all__ = ["BLOCKS", "TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 256
N = 2000
#: The grid: one partial sum and one flag per block (a power of two: the last block
#: loads them as one tile).
BLOCKS = cdiv(N, TILE)
# Integer sums, flags and counts: exact, whichever block comes last.
TOLERANCE = {
    "partial": (0.0, 0.0),
    "ready": (0.0, 0.0),
    "count": (0.0, 0.0),
    "total": (0.0, 0.0),
}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.integers(-1000, 1000, N, dtype=np.int32)
    return make_kernel_inputs(
        params=("x", "partial", "ready", "count", "total"),
        arrays={
            "x": x,
            "partial": np.full(BLOCKS, np.iinfo(np.int32).min, np.int32),
            "ready": np.zeros(BLOCKS, np.int32),
            "count": np.zeros(1, np.int32),
            "total": np.full(2, np.iinfo(np.int32).min, np.int32),
        },
        scalars={},
        constants={},
        outputs=("partial", "ready", "count", "total"),
        grid=(BLOCKS, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    padded = np.zeros(BLOCKS * TILE, np.int64)
    padded[: len(x)] = x
    partial = padded.reshape(BLOCKS, TILE).sum(axis=1).astype(np.int32)
    return {
        "partial": partial,
        "ready": np.ones(BLOCKS, np.int32),
        "count": np.asarray([BLOCKS], np.int32),
        "total": np.asarray([partial.sum(), BLOCKS], np.int32),
    }
