"""Inputs, numpy reference and tolerance of the ``batched_dft_f32`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, empty_output, flatten_args, make_kernel_inputs

__all__ = ["BATCH", "COLS", "SIZE", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

BATCH = 2
SIZE = 16
COLS = 256
BLOCKS = 2
# f32 products summed in K order (16 terms) by the kernel, in float64 by numpy.
TOLERANCE = {"out": (1e-5, 1e-5)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    # Each batch's matrix is the real part of a 16-point DFT matrix, scaled, as in
    # cuTile's FFT sample (its W factors).
    k = np.arange(SIZE)
    dft = np.cos(-2 * np.pi * np.outer(k, k) / SIZE) / np.sqrt(SIZE)
    w = np.stack([dft, dft.T * 0.5]).astype(np.float32)
    x = rng.standard_normal((BATCH, SIZE, COLS * BLOCKS)).astype(np.float32)
    return make_kernel_inputs(
        params=("w", "x", "out"),
        arrays={
            "w": w,
            "x": x,
            "out": empty_output((BATCH, SIZE, COLS * BLOCKS), np.float32),
        },
        outputs=("out",),
        grid=(BLOCKS, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    w, x = a["w"].astype(np.float64), a["x"].astype(np.float64)
    return {"out": np.matmul(w, x).astype(np.float32)}
