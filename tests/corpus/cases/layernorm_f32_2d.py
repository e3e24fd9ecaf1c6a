"""Inputs, numpy reference and tolerance of the ``layernorm_f32_2d`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = [
    "EPS",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "M",
    "N",
    "flatten_args",
    "make_inputs",
    "reference",
]

TILE_M = 8
TILE_N = 256
M = 50
N = 256
EPS = 1e-5
# Tree sums against numpy's pairwise sums, rsqrt.approx (2^-22.9 relative), fma
# contraction.
TOLERANCE = {"out": (2e-5, 2e-5)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.normal(0.5, 2.0, (M, N)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, N).astype(np.float32)
    beta = rng.uniform(-0.5, 0.5, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "gamma", "beta", "out", "eps"),
        arrays={"x": x, "gamma": gamma, "beta": beta, "out": empty_output((M, N), np.float32)},
        scalars={"eps": EPS},
        constants={},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    x = a["x"].astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    y = (x - mean) / np.sqrt(var + EPS) * a["gamma"] + a["beta"]
    return {"out": y.astype(np.float32)}
