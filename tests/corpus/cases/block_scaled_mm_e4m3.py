"""Inputs, numpy reference and tolerance of the ``block_scaled_mm_e4m3`` corpus kernel
(no cuTile)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = [
    "SCALE_BLOCK",
    "TILE_K",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "flops",
    "make_inputs",
    "reference",
]

TILE_M, TILE_N, TILE_K = 64, 64, 64
#: K elements sharing one f8E8M0FNU scale (MX block scaling; the only block size cuTile
#: allows for 8-bit float operands).
SCALE_BLOCK = 32
M, N, K = 100, 80, 128
# Operands are integers -8..8 (exact in f8E4M3FN) and scales 2^-2..2^2, so every
# dequantized operand is an integer times 2^-2..2^2 (exact in bf16, on which tileir
# multiplies), every product an integer times 2^-4..2^4 of magnitude <= 2^10, and every
# partial sum a multiple of 2^-4 below 128 * 2^10 = 2^17: exact in f32 (21 bits), in
# any summation order. The kernel's result is numpy's bit for bit.
TOLERANCE = {"c": (0.0, 0.0)}


def _scales(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """f8E8M0FNU scales 2^-2..2^2: biased exponents 125..129."""
    return (127 + rng.integers(-2, 3, shape)).astype(np.uint8)


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.integers(-8, 9, (M, K)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    b = rng.integers(-8, 9, (K, N)).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)
    a_scale = _scales(rng, (M, K // SCALE_BLOCK))
    b_scale = _scales(rng, (K // SCALE_BLOCK, N))
    return make_kernel_inputs(
        params=("a", "a_scale", "b", "b_scale", "c", "k_tiles"),
        arrays={
            "a": a,
            "a_scale": a_scale.view(ml_dtypes.float8_e8m0fnu),
            "b": b,
            "b_scale": b_scale.view(ml_dtypes.float8_e8m0fnu),
            "c": empty_output((M, N), np.float32),
        },
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    a_scale = np.repeat(arrays["a_scale"].astype(np.float64), SCALE_BLOCK, axis=1)
    b_scale = np.repeat(arrays["b_scale"].astype(np.float64), SCALE_BLOCK, axis=0)
    a = arrays["a"].astype(np.float64) * a_scale
    b = arrays["b"].astype(np.float64) * b_scale
    return {"c": (a @ b).astype(np.float32)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * M * N * K
