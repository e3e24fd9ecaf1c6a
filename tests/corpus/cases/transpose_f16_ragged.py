"""Inputs, numpy reference and tolerance of the ``transpose_f16_ragged`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE = 64
# Multiples of 16 (as the signature declares), not of the tile: the last tile of each
# row and each column is partial.
M, N = 208, 144
TOLERANCE = {"out": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-8.0, 8.0, (M, N)).astype(np.float16)
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((N, M), np.float16)},
        outputs=("out",),
        grid=(cdiv(M, TILE), cdiv(N, TILE), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    # Exact: the kernel only moves elements.
    return {"out": np.ascontiguousarray(inputs["arrays"]["x"].T)}
