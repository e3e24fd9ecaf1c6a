"""Inputs, numpy reference and tolerance of the ``permute_3d_f32`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE = (4, 8, 16)
SHAPE = (8, 16, 48)
TOLERANCE = {"out": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-8.0, 8.0, SHAPE).astype(np.float32)
    a, b, c = SHAPE
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((c, a, b), np.float32)},
        outputs=("out",),
        grid=tuple(cdiv(s, t) for s, t in zip(SHAPE, TILE, strict=True)),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    # Exact: the kernel only moves elements.  out[k, i, j] = x[i, j, k].
    return {"out": np.ascontiguousarray(np.transpose(inputs["arrays"]["x"], (2, 0, 1)))}
