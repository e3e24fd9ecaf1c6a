"""Inputs, numpy reference and tolerance of the ``gemm_f16`` corpus kernel."""

from __future__ import annotations

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

TILE_M, TILE_N, TILE_K = 64, 32, 32
M, N, K = 128, 96, 96
# f16 inputs are exact in f32; the products are summed in f32 (the tensor cores'
# order and internal precision differ from numpy's), then rounded once to f32 out.
TOLERANCE = {"c": (1e-5, 1e-4)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.uniform(-1.0, 1.0, (M, K)).astype(np.float16)
    b = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float16)
    return make_kernel_inputs(
        params=("a", "b", "c", "k_tiles"),
        arrays={"a": a, "b": b, "c": empty_output((M, N), np.float32)},
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]["a"].astype(np.float64)
    b = inputs["arrays"]["b"].astype(np.float64)
    return {"c": (a @ b).astype(np.float32)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * M * N * K
