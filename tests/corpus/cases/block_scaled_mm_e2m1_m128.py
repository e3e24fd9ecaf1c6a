"""Inputs, numpy reference and tolerance of the ``block_scaled_mm_e2m1_m128`` corpus
kernel (no cuTile): random bytes (every f4E2M1FN pair) with f8E8M0FNU scales 2^-1..2^1,
128-row tiles, B given N x K (K contiguous) as ``bt``."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

from cases.mma_scaled_f4 import unpack_f4

__all__ = [
    "KNOWN_SPILLS",
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

TILE_M, TILE_N, TILE_K = 128, 32, 128
#: K elements sharing one f8E8M0FNU scale (MXFP4: kind::mxf4, scale_vec::2X).
SCALE_BLOCK = 32
#: Ragged in M and N; two K tiles.
M, N, K = 200, 24, 256
# Operands are any f4E2M1FN values (multiples of 0.5, |x| <= 6) and scales 2^-1..2^1,
# so every dequantized operand is a multiple of 2^-2 of magnitude <= 12, every product a
# multiple of 2^-4 below 2^8, and every partial sum a multiple of 2^-4 below
# 256 * 2^8 = 2^16: exact in f32 (20 bits), in any summation order. The kernel's result
# is numpy's bit for bit.
TOLERANCE = {"c": (0.0, 0.0)}
# sm_80 runs it on bf16 mma.sync dots of the dequantized operands (`scaled_mma.py`): four
# 128x32x32 dots a K tile, each operand unpacked, scaled and converted in registers
# (ptxas 13: 40 bytes of spill stores at 255 registers; the NVFP4 twin, eight 16-wide
# groups, does not spill).
KNOWN_SPILLS = {"sm_80": "the bf16 dots' dequantized 128x128 f4 operands in registers"}


def e8m0_scales(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """f8E8M0FNU scales 2^-1..2^1 (biased exponents 126..128)."""
    return (127 + rng.integers(-1, 2, shape)).astype(np.uint8).view(ml_dtypes.float8_e8m0fnu)


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    return make_kernel_inputs(
        params=("a", "a_scale", "bt", "b_scale", "c", "k_tiles"),
        arrays={
            "a": rng.integers(0, 256, (M, K // 2)).astype(np.uint8),
            "a_scale": e8m0_scales(rng, (M, K // SCALE_BLOCK)),
            "bt": rng.integers(0, 256, (N, K // 2)).astype(np.uint8),
            "b_scale": e8m0_scales(rng, (K // SCALE_BLOCK, N)),
            "c": empty_output((M, N), np.float32),
        },
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    group = 2 * arrays["a"].shape[1] // arrays["a_scale"].shape[1]
    a_scale = np.repeat(arrays["a_scale"].astype(np.float64), group, axis=1)
    b_scale = np.repeat(arrays["b_scale"].astype(np.float64), group, axis=0)
    a = unpack_f4(arrays["a"]) * a_scale
    b = unpack_f4(arrays["bt"]).T * b_scale
    return {"c": (a @ b).astype(np.float32)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * M * N * K
