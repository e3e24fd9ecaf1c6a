"""Inputs, numpy reference and tolerance of the ``histogram_atomics`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, flatten_args, make_kernel_inputs

__all__ = ["BINS", "TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 256
N = 1000
BINS = 16
# Counts, maxima and the old values are exact; the f32 sums are added in an
# unspecified order (atomics), so they match up to rounding.
TOLERANCE = {"hist": (0.0, 0.0), "wsum": (1e-5, 1e-5), "last": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.integers(0, BINS, N, dtype=np.int32)
    w = rng.uniform(0.0, 1.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "w", "hist", "wsum", "last"),
        arrays={
            "x": x,
            "w": w,
            "hist": np.zeros(BINS, np.int32),
            "wsum": np.zeros(BINS, np.float32),
            "last": np.full(BINS, -1, np.int32),
        },
        scalars={},
        constants={},
        outputs=("hist", "wsum", "last"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    x, w = a["x"], a["w"]
    hist = a["hist"] + np.bincount(x, minlength=BINS).astype(np.int32)
    wsum = a["wsum"] + np.bincount(x, weights=w, minlength=BINS).astype(np.float32)
    last = a["last"].copy()
    np.maximum.at(last, x, np.arange(N, dtype=np.int32))
    return {"hist": hist, "wsum": wsum, "last": last}
