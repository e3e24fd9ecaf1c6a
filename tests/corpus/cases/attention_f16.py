"""Inputs, numpy reference and tolerance of the ``attention_f16`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["SEQ", "TILE_M", "TOLERANCE", "D", "flatten_args", "make_inputs", "reference"]

TILE_M = 32  # query rows per block
SEQ = 64  # keys and values, all in one tile
D = 32  # head dimension
M = 96  # queries
# Scores and the weighted sum are f32 accumulations of f16 products (tensor cores);
# the probabilities are rounded to f16 before the second product, as the kernel does.
TOLERANCE = {"out": (2e-3, 2e-3)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    q = rng.uniform(-1.0, 1.0, (M, D)).astype(np.float16)
    k = rng.uniform(-1.0, 1.0, (SEQ, D)).astype(np.float16)
    v = rng.uniform(-1.0, 1.0, (SEQ, D)).astype(np.float16)
    return make_kernel_inputs(
        params=("q", "k", "v", "out"),
        arrays={"q": q, "k": k, "v": v, "out": empty_output((M, D), np.float32)},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    q, k, v = (arrays[n].astype(np.float64) for n in ("q", "k", "v"))
    s = (q @ k.T).astype(np.float32)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    p = (e / e.sum(axis=1, keepdims=True)).astype(np.float16).astype(np.float64)
    return {"out": (p @ v).astype(np.float32)}
