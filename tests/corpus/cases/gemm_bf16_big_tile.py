"""Inputs, numpy reference and tolerance of the ``gemm_bf16_big_tile`` corpus kernel."""

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

TILE_M, TILE_N, TILE_K = 128, 64, 128
# No dimension is a multiple of its tile: the last tiles load zeros past the edge
# (which adds nothing to the sums) and store only what is in bounds.
M, N, K = 200, 264, 320  # row strides multiples of 8 elements, as the signature declares
# bf16 inputs are exact in f32; the products are summed in f32 (the tensor cores'
# order and internal precision differ from numpy's), then rounded once to f32 out.
TOLERANCE = {"c": (1e-5, 1e-4)}
# Each 128x128 A tile is loaded into registers (128 per thread) before it is staged in
# shared memory for the tensor cores, beside the accumulator.  ptxas spilled a few
# bytes on sm_80 until a masked vector's per-element fallback addressed its elements at
# offsets from the vector's one address (docs/codegen.md, "Memory accesses"); no target
# spills now, which tests/pytest/test_corpus_compile.py checks.


_CASE = GemmCase((M, N, K), (TILE_M, TILE_N, TILE_K), ml_dtypes.bfloat16)
make_inputs = _CASE.make_inputs
reference = _CASE.reference
flops = _CASE.flops
