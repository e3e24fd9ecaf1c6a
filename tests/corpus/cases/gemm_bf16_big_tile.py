"""Inputs, numpy reference and tolerance of the ``gemm_bf16_big_tile`` corpus kernel."""

from __future__ import annotations

import ml_dtypes
from _common import flatten_args

from cases._gemm import GemmCase

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


_CASE = GemmCase((M, N, K), (TILE_M, TILE_N, TILE_K), ml_dtypes.bfloat16)
make_inputs = _CASE.make_inputs
reference = _CASE.reference
flops = _CASE.flops
