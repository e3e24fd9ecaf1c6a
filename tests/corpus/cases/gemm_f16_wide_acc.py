"""Inputs, numpy reference and tolerance of the ``gemm_f16_wide_acc`` corpus kernel."""

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

# A 256x256 f32 accumulator: 256 registers a thread at 8 warps, more than a thread may
# have, so tileir runs the K loop once per 256x128 half (split-dot-accumulators).
TILE_M, TILE_N, TILE_K = 256, 256, 32
# Ragged everywhere: the second block column's first half is cut at N, its second half
# lies wholly outside (loads padding, stores nothing), K ends inside the second step.
M, N, K = 200, 296, 48  # row strides multiples of 8 elements, as the signature declares
# f16 inputs are exact in f32; the products are summed in f32 (the tensor cores' order
# differs from numpy's) and rounded once to f16, which may round the other way.
TOLERANCE = {"c": (2e-3, 2e-3)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.uniform(-1.0, 1.0, (M, K)).astype(np.float16)
    b = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float16)
    return make_kernel_inputs(
        params=("a", "b", "c", "k_tiles"),
        arrays={"a": a, "b": b, "c": empty_output((M, N), np.float16)},
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]["a"].astype(np.float64)
    b = inputs["arrays"]["b"].astype(np.float64)
    return {"c": (a @ b).astype(np.float32).astype(np.float16)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * M * N * K
