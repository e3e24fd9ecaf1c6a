"""Inputs, numpy reference and tolerance of the ``break_on_sum_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["LIMIT", "TILE", "TOLERANCE", "M", "N", "flatten_args", "make_inputs", "reference"]

TILE = 128
M = 6
N = 1000
LIMIT = 150.0
# The break decision compares a tree sum with the limit; the inputs keep every row
# far from a tie, so the accumulated tiles and the counts are exact.
TOLERANCE = {"acc": (0.0, 0.0), "count": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    # Small integers: every partial sum is exact in f32, whatever the order.
    x = rng.integers(0, 4, (M, N)).astype(np.float32)
    x[0] = 0.0  # never reaches the limit: runs over every tile
    return make_kernel_inputs(
        params=("x", "acc", "count", "limit"),
        arrays={
            "x": x,
            "acc": empty_output((M, TILE), np.float32),
            "count": empty_output((M,), np.int32),
        },
        scalars={"limit": LIMIT},
        constants={},
        outputs=("acc", "count"),
        grid=(M, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    tiles = cdiv(N, TILE)
    padded = np.zeros((M, tiles * TILE), np.float32)
    padded[:, :N] = x
    acc = np.zeros((M, TILE), np.float32)
    count = np.zeros(M, np.int32)
    for row in range(M):
        for j in range(tiles):
            acc[row] += padded[row, j * TILE : (j + 1) * TILE]
            count[row] += 1
            if acc[row].sum() > LIMIT:
                break
    return {"acc": acc, "count": count}
