"""Inputs, numpy reference and tolerance of the ``early_return_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE = 128
N = 1000  # elements of x and out
COUNT = 700  # the runtime n: blocks starting at or past it return at once
LIMIT = 40.0
# Small integers: the doubled values are exact; the max decides nothing near a tie.
TOLERANCE = {"out": (0.0, 0.0), "status": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.integers(-30, 31, N).astype(np.float32)
    x[3 * TILE + 17] = 50.0  # block 3 holds an outlier: it flags it and returns
    return make_kernel_inputs(
        params=("x", "out", "status", "n", "limit"),
        arrays={
            "x": x,
            "out": empty_output((N,), np.float32),
            "status": empty_output((cdiv(N, TILE),), np.int32),
        },
        scalars={"n": COUNT, "limit": LIMIT},
        outputs=("out", "status"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    x = arrays["x"]
    out = arrays["out"].copy()  # what no block writes keeps its sentinel
    status = arrays["status"].copy()
    for b in range(cdiv(N, TILE)):
        if b * TILE >= COUNT:
            continue
        tile = x[b * TILE : (b + 1) * TILE]
        if tile.max() > LIMIT:
            status[b] = 1
            continue
        status[b] = 0
        out[b * TILE : (b + 1) * TILE] = tile * np.float32(2.0)
    return {"out": out, "status": status}
