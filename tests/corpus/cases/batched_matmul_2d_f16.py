"""Inputs, numpy reference and tolerance of the ``batched_matmul_2d_f16`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = [
    "TILE_K",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
]

TILE_M, TILE_N, TILE_K = 64, 64, 64
B, M, N, K = 3, 64, 128, 128
# f16 products summed in f32 (tensor cores), in another order than numpy's.
# ...then rounded to f16 (the kernel's astype): the f32 sums differ by ~1e-5, which can
# move a result across an f16 rounding boundary: one f16 ulp, 2^-10 relative at most.
TOLERANCE = {"c": (2e-3, 1e-3)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.uniform(-1.0, 1.0, (B, M, K)).astype(np.float16)
    b = rng.uniform(-1.0, 1.0, (B, K, N)).astype(np.float16)
    return make_kernel_inputs(
        params=("a", "b", "c", "k_tiles"),
        arrays={"a": a, "b": b, "c": empty_output((B, M, N), np.float16)},
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(B, cdiv(M, TILE_M), cdiv(N, TILE_N)),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]["a"].astype(np.float64)
    b = inputs["arrays"]["b"].astype(np.float64)
    return {"c": np.matmul(a, b).astype(np.float32).astype(np.float16)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * B * M * N * K
