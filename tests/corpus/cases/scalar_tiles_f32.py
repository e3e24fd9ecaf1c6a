"""Inputs, numpy reference and tolerance of the ``scalar_tiles_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, empty_output, flatten_args, make_kernel_inputs

__all__ = ["GROUPS", "OFFSET_SLOT", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE = 128
GROUPS = 8  # entries of the row table, loaded as one tile
OFFSET_SLOT = GROUPS - 1  # the table entry every block adds to its own
ROWS = 12  # rows of x; some table sums point past them
N = 100  # columns: ragged against the tile
BLOCKS = 10
# Small integers scaled by powers of two: every product and every sum is exact in f32,
# whatever the order of the sum.
TOLERANCE = {"out": (0.0, 0.0), "total": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.integers(-8, 9, (ROWS, N)).astype(np.float32)
    scale = (2.0 ** rng.integers(-3, 4, BLOCKS) * rng.choice([-1, 1], BLOCKS)).astype(np.float32)
    order = rng.permutation(GROUPS).astype(np.int32)
    # Rows order[b % GROUPS] + 5; entries 7 and 9 point past the last row (11): the
    # tile lies outside the view's index space and loads as zero padding.
    order[OFFSET_SLOT] = 5
    order[0] = 9
    return make_kernel_inputs(
        params=("x", "scale", "order", "out", "total"),
        arrays={
            "x": x,
            "scale": scale,
            "order": order,
            "out": empty_output((BLOCKS, N), np.float32),
            "total": empty_output((BLOCKS,), np.float32),
        },
        outputs=("out", "total"),
        grid=(BLOCKS, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    x, scale, order = arrays["x"], arrays["scale"], arrays["order"]
    out = np.zeros((BLOCKS, N), np.float32)
    total = np.zeros(BLOCKS, np.float32)
    for b in range(BLOCKS):
        row = int(order[b % GROUPS]) + int(order[OFFSET_SLOT])
        values = x[row] if row < ROWS else np.zeros(N, np.float32)  # zero padding
        out[b] = values * scale[b]
        total[b] = values.sum(dtype=np.float32) * scale[b]
    return {"out": out, "total": total}
