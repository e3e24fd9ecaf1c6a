"""Inputs, numpy reference and tolerance of the ``cumprod_cols_i8`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE_M", "TILE_N", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE_M = 16
TILE_N = 32
# Rows a multiple of the tile (the suffix products of a column never see padding);
# columns a multiple of 16 (as the signature declares) but not of the tile: the last
# tile of each row of tiles is partial.
M, N = 64, 112
# Exact: i8 products wrap modulo 256 in the kernel and in numpy alike.
TOLERANCE = {"out": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    # Odd factors: no product wraps to zero, so every suffix product is distinct
    # information (a carry from the wrong row or lane changes it).
    x = rng.choice(np.array([-3, -1, 1, 3, 5, 7], dtype=np.int8), (M, N))
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((M, N), np.int8)},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    out = np.empty_like(x)
    for start in range(0, M, TILE_M):
        tile = x[start : start + TILE_M]
        out[start : start + TILE_M] = np.cumprod(tile[::-1], axis=0, dtype=np.int8)[::-1]
    return {"out": out}
