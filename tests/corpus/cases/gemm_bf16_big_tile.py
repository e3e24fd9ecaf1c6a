"""Inputs, numpy reference and tolerance of the ``gemm_bf16_big_tile`` corpus kernel."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = [
    "KNOWN_SPILLS",
    "TILE_K",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "flops",
    "make_inputs",
    "reference",
]

TILE_M, TILE_N, TILE_K = 128, 64, 128
# No dimension is a multiple of its tile: the last tiles load zeros past the edge
# (which adds nothing to the sums) and store only what is in bounds.
M, N, K = 200, 264, 320  # row strides multiples of 8 elements, as the signature declares
# bf16 inputs are exact in f32; the products are summed in f32 (the tensor cores'
# order and internal precision differ from numpy's), then rounded once to f32 out.
TOLERANCE = {"c": (1e-5, 1e-4)}
# Each 128x128 A tile is loaded into registers (128 per thread) before it is staged in
# shared memory for the tensor cores, beside the accumulator: ptxas spills a few hundred
# bytes on sm_80 (mma.sync fragments on top; sm_90a's and sm_100a's stopped spilling once
# kernels carried a `.maxnreg`).  Loads straight into shared memory (cp.async, TMA) are
# the Hopper pipeline's work; tests/pytest/test_corpus_compile.py fails once this is stale.
KNOWN_SPILLS = {"sm_80": "operand tiles staged through registers"}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.uniform(-1.0, 1.0, (M, K)).astype(ml_dtypes.bfloat16)
    b = rng.uniform(-1.0, 1.0, (K, N)).astype(ml_dtypes.bfloat16)
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
