"""Inputs, numpy reference and tolerance of the ``persistent_gemm_f16`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, flatten_args

from cases._gemm import GemmCase

__all__ = [
    "BLOCKS",
    "TILE_K",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
]

TILE_M, TILE_N, TILE_K = 64, 64, 32
# 3 x 2 output tiles over 4 blocks (the first two take two tiles each, so each of them
# runs its K loop twice), none of M, N and K a multiple of its tile.
M, N, K = 136, 72, 88
BLOCKS = 4
# f16 inputs are exact in f32; the products are summed in f32 (the tensor cores' order
# and internal precision differ from numpy's), then rounded once to f32 out.
TOLERANCE = {"c": (1e-5, 1e-4)}

_CASE = GemmCase((M, N, K), (TILE_M, TILE_N, TILE_K), np.float16)
reference = _CASE.reference


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    """The GEMM's inputs on a grid of `BLOCKS` blocks (fewer than the tiles)."""
    inputs = _CASE.make_inputs(rng)
    inputs["grid"] = (BLOCKS, 1, 1)
    return inputs
