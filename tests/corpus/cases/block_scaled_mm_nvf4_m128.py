"""Inputs, numpy reference and tolerance of the ``block_scaled_mm_nvf4_m128`` corpus
kernel (no cuTile): ``block_scaled_mm_e2m1_m128``'s operands with f8E4M3FN scales
+-0.5 .. +-2, one per 16 K elements (NVFP4)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

from cases.block_scaled_mm_e2m1_m128 import (
    TILE_K,
    TILE_M,
    TILE_N,
    TOLERANCE,
    K,
    M,
    N,
    flops,
    reference,
)
from cases.mma_scaled_f4 import _SCALES

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

#: K elements sharing one f8E4M3FN scale (NVFP4: kind::mxf4nvf4, scale_vec::4X).
SCALE_BLOCK = 16
# The scales' magnitudes are block_scaled_mm_e2m1_m128's (2^-1 .. 2^1, with 1.5 and signs):
# every dequantized operand a multiple of 2^-2 of magnitude <= 12, sums exact in f32.


def _scales(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    return rng.choice(_SCALES, shape).astype(ml_dtypes.float8_e4m3fn)


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    return make_kernel_inputs(
        params=("a", "a_scale", "bt", "b_scale", "c", "k_tiles"),
        arrays={
            "a": rng.integers(0, 256, (M, K // 2)).astype(np.uint8),
            "a_scale": _scales(rng, (M, K // SCALE_BLOCK)),
            "bt": rng.integers(0, 256, (N, K // 2)).astype(np.uint8),
            "b_scale": _scales(rng, (K // SCALE_BLOCK, N)),
            "c": empty_output((M, N), np.float32),
        },
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )
