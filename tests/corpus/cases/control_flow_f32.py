"""Inputs, numpy reference and tolerance of the ``control_flow_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 128
N = 1000
# Every step is one f32 rounding that numpy reproduces; cuTile may contract
# `acc + t * s` into an fma (one rounding instead of two).
TOLERANCE = {"out": (1e-6, 1e-6)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-2.0, 2.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "out", "n", "limit"),
        arrays={"x": x, "out": empty_output((N,), np.float32)},
        scalars={"n": 6, "limit": 1.25},
        constants={},
        outputs=("out",),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    n = int(inputs["scalars"]["n"])
    limit = np.float32(inputs["scalars"]["limit"])
    t = x * np.float32(2.0) if n > 3 else x - np.float32(1.0)
    acc = np.zeros_like(t)
    for i in range(n):
        if i % 3 == 1:
            continue
        acc = acc + t * np.float32(i)
    i = 0
    while True:
        if i >= n:
            break
        t = np.minimum(t, limit)
        limit = limit * np.float32(0.5)
        i += 1
    return {"out": (acc + t).astype(np.float32)}
