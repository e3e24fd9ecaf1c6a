"""Inputs, numpy reference and tolerance of the ``moe_gather_gemm_bf16`` corpus kernel
(no cuTile)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = [
    "A_ROWS",
    "TILE_K",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
]

TILE_M, TILE_N, TILE_K = 64, 16, 32
# 64 slots (one tile of rows), of which A_ROWS name a row of a (a permutation of them)
# and the rest are out of range: the sentinel A_ROWS, as MoE pads each expert's slots,
# and negative rows.  K and N are ragged: the last K tile is 8 columns of 32.
SLOTS, A_ROWS, N, K = 64, 50, 24, 40
# bf16 inputs are exact in f32; the products are summed in f32.
TOLERANCE = {"c": (1e-5, 1e-4)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.uniform(-1.0, 1.0, (A_ROWS, K)).astype(ml_dtypes.bfloat16)
    b = rng.uniform(-1.0, 1.0, (K, N)).astype(ml_dtypes.bfloat16)
    out_of_range = [A_ROWS] * 8 + [-1] * 3 + [-A_ROWS, A_ROWS + 7, 1 << 20]
    rows = np.concatenate([rng.permutation(A_ROWS), out_of_range]).astype(np.int32)
    rows = rng.permutation(rows).astype(np.int32)
    return make_kernel_inputs(
        params=("a", "b", "c", "rows"),
        arrays={"a": a, "b": b, "c": empty_output((A_ROWS, N), np.float32), "rows": rows},
        outputs=("c",),
        grid=(cdiv(SLOTS, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    a = arrays["a"].astype(np.float64)
    b = arrays["b"].astype(np.float64)
    c = arrays["c"].copy()
    rows = arrays["rows"]
    live = rows[(rows >= 0) & (rows < A_ROWS)]
    c[live] = (a[live] @ b).astype(np.float32)
    return {"c": c}
