"""Inputs, numpy reference and tolerance of the ``gemm_f16_aligned_edges`` corpus
kernel."""

from __future__ import annotations

import numpy as np
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

TILE_M, TILE_N, TILE_K = 64, 32, 32
# Multiples of 16 (as the signature declares), not of the tile: partial last tiles in
# M (112 = 64 + 48), N (48 = 32 + 16) and K (80 = 2 x 32 + 16).
M, N, K = 112, 48, 80
# f16 inputs are exact in f32; the products are summed in f32 (the tensor cores'
# order and internal precision differ from numpy's), then rounded once to f32 out.
TOLERANCE = {"c": (1e-5, 1e-4)}


_CASE = GemmCase((M, N, K), (TILE_M, TILE_N, TILE_K), np.float16)
make_inputs = _CASE.make_inputs
reference = _CASE.reference
flops = _CASE.flops
