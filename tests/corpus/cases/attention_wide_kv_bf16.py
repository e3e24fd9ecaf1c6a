"""Inputs, numpy reference and tolerance of the ``attention_wide_kv_bf16`` corpus
kernel."""

from __future__ import annotations

import ml_dtypes
from _common import flatten_args

from cases._attention import AttentionCase

__all__ = [
    "KNOWN_SPILLS",
    "SEQ",
    "TILE_M",
    "TOLERANCE",
    "D",
    "flatten_args",
    "make_inputs",
    "reference",
]

TILE_M = 64  # query rows per block: one wgmma row block
SEQ = 256  # keys and values per tile
D = 128  # head dimension
# 1 batch, 1 head, 64 queries (one block), 2 KV tiles of 256 keys.
CASE = AttentionCase(
    (1, 1, TILE_M), TILE_M, SEQ, kv_tiles=2, d=D, scale=0.125, dtype=ml_dtypes.bfloat16
)
# bf16 operands and output (8 bits of mantissa), f32 sums, probabilities rounded to bf16
# before the second product: the weighted means of values in [-1, 1] differ from numpy's
# by a few 1e-3.
TOLERANCE = {"out": (2e-2, 2e-2)}
make_inputs = CASE.make_inputs
reference = CASE.reference
# On sm_80 (mma.sync over 8 warps) the 64x256 f32 scores (64 registers a thread), their
# bf16 fragments as the second product's A and the 64x128 accumulator (32) do not all
# fit in 255 registers: ptxas 13 spills 52 bytes (at the hint's 128 registers, 732).
KNOWN_SPILLS = {"sm_80": "scores, P's fragments and the accumulator exceed 255 registers"}
