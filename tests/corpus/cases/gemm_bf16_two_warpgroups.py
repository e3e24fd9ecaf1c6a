"""Inputs, numpy reference and tolerance of the ``gemm_bf16_two_warpgroups`` corpus
kernel."""

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

# A 128x128 f32 accumulator is 128 registers a thread with 4 warps: tileir gives the
# kernel 8 warps, two warpgroups of `wgmma` on sm_90a, each 64 rows of the tile.
TILE_M, TILE_N, TILE_K = 128, 128, 32
# No dimension is a multiple of its tile (row strides multiples of 8 elements, as the
# signature declares); four K steps, more than the pipeline's stages.
M, N, K = 200, 136, 112
# bf16 inputs are exact in f32; the products are summed in f32 (the tensor cores'
# order and internal precision differ from numpy's), then rounded once to f32 out.
TOLERANCE = {"c": (1e-5, 1e-4)}


_CASE = GemmCase((M, N, K), (TILE_M, TILE_N, TILE_K), ml_dtypes.bfloat16)
make_inputs = _CASE.make_inputs
reference = _CASE.reference
flops = _CASE.flops
