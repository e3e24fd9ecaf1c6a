"""Inputs, numpy reference and tolerance of the ``cumsum_f32`` corpus kernel (no cuTile)."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "N", "flatten_args", "make_inputs", "reference"]

TILE = 256
N = 1000
# The reference is sequential, r[j] = x[j] + r[j-1] (numpy's cumsum), but a
# compiler may associate the scan's body as it likes (tileir and tileiras both scan
# a tile as a tree across threads).  Each output sums k <= 256 terms of |x| <= 1,
# and any association of such a sum is within (k - 1) 2^-24 sum|x| <= 255 * 256 *
# 2^-24 of the exact sum (the recursive-summation bound, for any order), so two
# associations differ by at most twice that, 7.8e-3.  A lost or repeated term, or a
# carry from the wrong place, is off by far more (|x| is about 0.5 on average).
# The i32 scan is exact in any order.
TOLERANCE = {"out": (0.0, 2 * 255 * 256 * 2.0**-24), "rev": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-1.0, 1.0, N).astype(np.float32)
    k = rng.integers(-50, 50, N, dtype=np.int32)
    return make_kernel_inputs(
        params=("x", "k", "out", "rev"),
        arrays={
            "x": x,
            "k": k,
            "out": empty_output((N,), np.float32),
            "rev": empty_output((N,), np.int32),
        },
        scalars={},
        constants={},
        outputs=("out", "rev"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    out = np.empty(N, np.float32)
    rev = np.empty(N, np.int32)
    for start in range(0, N, TILE):
        # The last tile is padded with zeros, which do not change the sums.
        xs = a["x"][start : start + TILE]
        ks = a["k"][start : start + TILE]
        out[start : start + TILE] = np.cumsum(xs, dtype=np.float32)
        rev[start : start + TILE] = np.cumsum(ks[::-1], dtype=np.int32)[::-1]
    return {"out": out, "rev": rev}
