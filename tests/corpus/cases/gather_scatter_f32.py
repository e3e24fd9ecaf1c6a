"""Inputs, numpy reference and tolerance of the ``gather_scatter_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, flatten_args, make_kernel_inputs

__all__ = ["SRC", "TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 128
N = 700
SRC = 500
TOLERANCE = {"out": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-4.0, 4.0, SRC).astype(np.float32)
    # Some source indices fall outside x (gathered as the padding value 7.0).
    idx = rng.integers(-20, SRC + 20, N, dtype=np.int32)
    perm = rng.permutation(N).astype(np.int32)
    out = np.full(N, -1.0, np.float32)
    return make_kernel_inputs(
        params=("x", "idx", "perm", "out"),
        arrays={"x": x, "idx": idx, "perm": perm, "out": out},
        scalars={},
        constants={},
        outputs=("out",),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    x, idx, perm = a["x"], a["idx"], a["perm"]
    ok = (idx >= 0) & (idx < SRC)
    v = np.where(ok, x[np.clip(idx, 0, SRC - 1)], np.float32(7.0)) * np.float32(2.0)
    out = a["out"].copy()
    keep = v > 0  # the scatter's mask
    out[perm[keep]] = v[keep]
    return {"out": out}
