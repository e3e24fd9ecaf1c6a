"""Inputs, numpy reference and tolerance of the ``flash_attention_f16`` corpus kernel."""

from __future__ import annotations

from _common import flatten_args

from cases._attention import AttentionCase

__all__ = ["SEQ", "TILE_M", "TOLERANCE", "D", "flatten_args", "make_inputs", "reference"]

TILE_M = 64  # query rows per block: one wgmma row block
SEQ = 64  # keys and values per tile
D = 64  # head dimension
# 1 batch, 2 heads, 80 queries (a ragged last tile), 3 KV tiles.
CASE = AttentionCase((1, 2, 80), TILE_M, SEQ, kv_tiles=3, d=D, scale=0.125)
# Scores and the weighted sum are f32 sums of f16 products (in another order than
# numpy's); the kernel rounds unnormalized probabilities exp(s - running max) <= 1 to
# f16 (relative error 2^-11) before the second product, numpy does not round: the
# weighted means of values in [-1, 1] differ by a few 1e-4, within 5e-3.
TOLERANCE = {"out": (5e-3, 5e-3)}
make_inputs = CASE.make_inputs
reference = CASE.reference
