"""Inputs, numpy reference and tolerance of the ``gemm_e4m3_scaled`` corpus kernel."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = [
    "TILE_K",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "flops",
    "make_inputs",
    "reference",
]

TILE_M, TILE_N, TILE_K = 128, 64, 64
M, N, K = 200, 112, 192
SCALE = 0.125
# Small integers are exact in f8E4M3FN, every product and partial sum is exact in
# f32 (|sum| <= 192 * 36), and the scale is a power of two, so the only rounding is
# the final one to bf16: any summation order gives the same bits.
TOLERANCE = {"c": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.integers(-6, 7, (M, K)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    b = rng.integers(-6, 7, (K, N)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    return make_kernel_inputs(
        params=("a", "b", "c", "k_tiles", "scale"),
        arrays={"a": a, "b": b, "c": empty_output((M, N), ml_dtypes.bfloat16)},
        scalars={"k_tiles": cdiv(K, TILE_K), "scale": SCALE},
        outputs=("c",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]["a"].astype(np.float64)
    b = inputs["arrays"]["b"].astype(np.float64)
    scale = inputs["scalars"]["scale"]
    return {"c": (scale * (a @ b)).astype(np.float32).astype(ml_dtypes.bfloat16)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * M * N * K
