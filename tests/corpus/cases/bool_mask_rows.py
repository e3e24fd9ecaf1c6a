"""Inputs, numpy reference and tolerance of the ``bool_mask_rows`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M = 32
TILE_N = 64
# Extents multiples of 16 (as the signature declares) but not of the tile (48 vs 32,
# 80 vs 64): the last tiles along both dimensions are partial, in whole 16-byte vectors
# of the bool arrays.
M, N = 48, 80
# Exact: a select of the input or its negation, a comparison, a count of booleans.
TOLERANCE = {"out": (0.0, 0.0), "positive": (0.0, 0.0), "count": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.standard_normal((M, N)).astype(np.float32)
    keep = rng.random((M, N)) < 0.5
    return make_kernel_inputs(
        params=("x", "keep", "out", "positive", "count"),
        arrays={
            "x": x,
            "keep": keep,
            "out": empty_output((M, N), np.float32),
            # Every element wrong until the kernel writes it (a bool has no sentinel).
            "positive": x <= 0,
            "count": empty_output((M, N), np.int32),
        },
        outputs=("out", "positive", "count"),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    x, keep = a["x"], a["keep"]
    count = np.empty((M, N), dtype=np.int32)
    for start in range(0, N, TILE_N):
        part = keep[:, start : start + TILE_N].astype(np.int32)
        count[:, start : start + TILE_N] = np.cumsum(part, axis=1)
    return {"out": np.where(keep, x, -x), "positive": x > 0, "count": count}
