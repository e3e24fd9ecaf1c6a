"""Inputs, numpy reference and tolerance of the ``batched_matmul_e5m2`` corpus kernel
(no cuTile)."""

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

TILE_M, TILE_N, TILE_K = 64, 64, 32
B, M, N, K = 3, 64, 80, 96
# Integers -6..6 are exact in f8E5M2 (at most 3 significant bits), every product and
# partial sum is an integer of magnitude at most 96 * 36 < 2^24, exact in f32 in any
# order: the kernel's result is numpy's bit for bit.
TOLERANCE = {"c": (0.0, 0.0)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.integers(-6, 7, (B, M, K)).astype(np.float32).astype(ml_dtypes.float8_e5m2)
    b = rng.integers(-6, 7, (B, K, N)).astype(np.float32).astype(ml_dtypes.float8_e5m2)
    return make_kernel_inputs(
        params=("a", "b", "c", "k_tiles"),
        arrays={"a": a, "b": b, "c": empty_output((B, M, N), np.float32)},
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(B, cdiv(M, TILE_M), cdiv(N, TILE_N)),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]["a"].astype(np.float64)
    b = inputs["arrays"]["b"].astype(np.float64)
    return {"c": np.matmul(a, b).astype(np.float32)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * B * M * N * K
