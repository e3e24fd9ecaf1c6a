"""Inputs, numpy reference and tolerance of the ``spare_blocks_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M = 16
TILE_N = 64
M = 48  # rows: three tiles, declared a multiple of TILE_M
N = 64  # columns: one tile, declared a multiple of TILE_N
BLOCKS = 5  # two more than there are tiles
# Small integers: every row sum is exact in f32, whatever the order.
TOLERANCE = {"y": (0.0, 0.0), "sums": (0.0, 0.0), "maxes": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.integers(-20, 21, (M, N)).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "y", "sums", "maxes"),
        arrays={
            "x": x,
            "y": empty_output((M, N), np.float32),
            "sums": empty_output((BLOCKS * TILE_M,), np.float32),
            "maxes": empty_output((BLOCKS * TILE_M,), np.float32),
        },
        outputs=("y", "sums", "maxes"),
        grid=(BLOCKS, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    spare = (BLOCKS * TILE_M - M,)
    # Blocks past the last tile load padding: zero for the sums, -inf for the maxes.
    sums = np.concatenate([x.sum(axis=1, dtype=np.float32), np.zeros(spare, np.float32)])
    maxes = np.concatenate([x.max(axis=1), np.full(spare, -np.inf, np.float32)])
    return {"y": x * np.float32(2.0) + np.float32(1.0), "sums": sums, "maxes": maxes}
