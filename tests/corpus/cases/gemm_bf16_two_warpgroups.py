"""Inputs, numpy reference and tolerance of the ``gemm_bf16_two_warpgroups`` corpus
kernel."""

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

# A 128x128 f32 accumulator is 128 registers a thread with 4 warps: tileir gives the
# kernel 8 warps, two warpgroups of `wgmma` on sm_90a, each 64 rows of the tile.
TILE_M, TILE_N, TILE_K = 128, 128, 32
# No dimension is a multiple of its tile (row strides multiples of 8 elements, as the
# signature declares); four K steps, more than the pipeline's stages.
M, N, K = 200, 136, 112
# bf16 inputs are exact in f32; the products are summed in f32 (the tensor cores'
# order and internal precision differ from numpy's), then rounded once to f32 out.
TOLERANCE = {"c": (1e-5, 1e-4)}


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
