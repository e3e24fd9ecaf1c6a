"""Inputs, numpy reference and tolerance of the ``flash_attention_causal_bf16`` corpus
kernel."""

from __future__ import annotations

import ml_dtypes
from _common import flatten_args

from cases._attention import AttentionCase

__all__ = ["HEADS", "TILE", "TOLERANCE", "D", "flatten_args", "make_inputs", "reference"]

TILE = 64  # query rows per block, and keys and values per tile
D = 64  # head dimension
HEADS = 2
# 1 batch, 2 heads, 192 queries and as many keys (3 tiles), causal.
CASE = AttentionCase(
    (1, HEADS, 3 * TILE),
    TILE,
    TILE,
    kv_tiles=3,
    d=D,
    scale=0.125,
    dtype=ml_dtypes.bfloat16,
    causal=True,
)
# bf16 operands and output (8 bits of mantissa), f32 sums, probabilities rounded to bf16
# before the second product: the weighted means of values in [-1, 1] differ from numpy's
# by a few 1e-3.
TOLERANCE = {"out": (2e-2, 2e-2)}
make_inputs = CASE.make_inputs
reference = CASE.reference
