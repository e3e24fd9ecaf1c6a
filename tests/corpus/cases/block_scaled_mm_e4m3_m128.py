"""Inputs, numpy reference and tolerance of the ``block_scaled_mm_e4m3_m128`` corpus
kernel (no cuTile): ``block_scaled_mm_e4m3``'s data (integers -8..8, scales 2^-2..2^2,
so the result is exact in f32 in any summation order) on 128-row tiles, B given N x K
(K contiguous) as ``bt``."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

from cases import block_scaled_mm_e4m3 as square
from cases.block_scaled_mm_e4m3 import SCALE_BLOCK, TOLERANCE

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

TILE_M, TILE_N, TILE_K = 128, 32, 64
#: Ragged in M and N; K = 128 as ``block_scaled_mm_e4m3``'s (partial sums below 2^17).
M, N = 200, 24
K = square.K


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    """``block_scaled_mm_e4m3``'s operands and scales, drawn at this kernel's M and N."""
    arrays = square.make_inputs(rng)["arrays"]
    a = np.resize(arrays["a"], (M, K))
    a_scale = np.resize(arrays["a_scale"], (M, K // SCALE_BLOCK))
    b = np.resize(arrays["b"].T, (N, K))
    b_scale = np.resize(arrays["b_scale"].T, (N, K // SCALE_BLOCK)).T
    return make_kernel_inputs(
        params=("a", "a_scale", "bt", "b_scale", "c", "k_tiles"),
        arrays={
            "a": a,
            "a_scale": a_scale,
            "bt": np.ascontiguousarray(b),
            "b_scale": np.ascontiguousarray(b_scale),
            "c": empty_output((M, N), np.float32),
        },
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = dict(inputs["arrays"])
    arrays["b"] = arrays.pop("bt").T
    return square.reference({**inputs, "arrays": arrays})


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * M * N * K
