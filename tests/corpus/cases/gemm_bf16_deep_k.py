"""Inputs, numpy reference and tolerance of the ``gemm_bf16_deep_k`` corpus kernel."""

from __future__ import annotations

import ml_dtypes
from _common import flatten_args

from cases._gemm import GemmCase

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

TILE_M, TILE_N, TILE_K = 64, 64, 32
# Ten K steps, more than the stages of a pipeline, so a pipeline's stages are reused;
# no dimension is a multiple of its tile: the last tiles load zeros past the edge
# (which adds nothing to the sums) and store only what is in bounds.
M, N, K = 72, 40, 296
# bf16 inputs are exact in f32; the products are summed in f32 (the tensor cores'
# order and internal precision differ from numpy's), then rounded once to f32 out.
TOLERANCE = {"c": (1e-5, 1e-4)}


_CASE = GemmCase((M, N, K), (TILE_M, TILE_N, TILE_K), ml_dtypes.bfloat16)
make_inputs = _CASE.make_inputs
reference = _CASE.reference
flops = _CASE.flops
