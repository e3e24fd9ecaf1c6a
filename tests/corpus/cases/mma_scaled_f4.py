"""Inputs, numpy reference and tolerance of the ``mma_scaled_f4`` corpus kernel
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
    "unpack_f4",
]

TILE_M, TILE_N, TILE_K = 16, 16, 64
#: K elements sharing one f8E4M3FN scale (NVFP4 block scaling).
SCALE_BLOCK = 16
M, N, K = 40, 48, 128
# Operands are any f4E2M1FN values (multiples of 0.5, |x| <= 6) and scales
# +-0.5, +-1, +-1.5, +-2, so every dequantized operand is a multiple of 2^-2 of
# magnitude <= 12, every product a multiple of 2^-4 below 2^8, and every partial sum a
# multiple of 2^-4 below 128 * 2^8 = 2^15: exact in f32 (19 bits), in any summation
# order. The kernel's result is numpy's bit for bit.
TOLERANCE = {"c": (0.0, 0.0)}
_SCALES = np.array([0.5, 1.0, 1.5, 2.0, -0.5, -1.0, -1.5, -2.0], np.float32)


def unpack_f4(packed: np.ndarray) -> np.ndarray:
    """f64 values of bytes holding two f4E2M1FN each, low nibble first (cuTile's and
    cuda_tile ``unpack``'s order)."""
    b = packed.view(np.uint8)
    codes = np.stack([b & 0xF, b >> 4], axis=-1).reshape(*b.shape[:-1], 2 * b.shape[-1])
    return codes.view(ml_dtypes.float4_e2m1fn).astype(np.float64)


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.integers(0, 256, (M, K // 2)).astype(np.uint8)
    b = rng.integers(0, 256, (K, N // 2)).astype(np.uint8)
    a_scale = rng.choice(_SCALES, (M, K // SCALE_BLOCK)).astype(ml_dtypes.float8_e4m3fn)
    b_scale = rng.choice(_SCALES, (K // SCALE_BLOCK, N)).astype(ml_dtypes.float8_e4m3fn)
    return make_kernel_inputs(
        params=("a", "a_scale", "b", "b_scale", "c", "k_tiles"),
        arrays={
            "a": a,
            "a_scale": a_scale,
            "b": b,
            "b_scale": b_scale,
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
    a = unpack_f4(arrays["a"]) * a_scale
    b = unpack_f4(arrays["b"]) * b_scale
    return {"c": (a @ b).astype(np.float32)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * M * N * K
