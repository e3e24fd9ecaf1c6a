"""Inputs, numpy reference and tolerance of the ``row_sum_loop_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "M", "N", "flatten_args", "make_inputs", "reference"]

TILE_M = 16
TILE_N = 64
M = 40
N = 300
# Tree sums per column tile, accumulated tile by tile, against numpy's pairwise sum.
TOLERANCE = {"sums": (1e-5, 1e-5), "maxes": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-2.0, 2.0, (M, N)).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "sums", "maxes"),
        arrays={
            "x": x,
            "sums": empty_output((M,), np.float32),
            "maxes": empty_output((M,), np.float32),
        },
        scalars={},
        constants={},
        outputs=("sums", "maxes"),
        grid=(cdiv(M, TILE_M), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    # The last column tile is padded with zeros: they count in the max of a row
    # whose elements are all negative there, so the reference pads the same way.
    padded = np.zeros((M, cdiv(N, TILE_N) * TILE_N), np.float32)
    padded[:, :N] = x
    return {"sums": x.sum(axis=1, dtype=np.float32), "maxes": padded.max(axis=1)}
