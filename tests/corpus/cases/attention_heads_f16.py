"""Inputs, numpy reference and tolerance of the ``attention_heads_f16`` corpus kernel."""

from __future__ import annotations

from _common import flatten_args

from cases._attention import AttentionCase

__all__ = ["SEQ", "TILE_M", "TOLERANCE", "D", "flatten_args", "make_inputs", "reference"]

TILE_M = 8  # query rows per block: too few for the tensor cores
SEQ = 16  # keys and values per tile
D = 32  # head dimension
# 2 batches, 2 heads (the kernel's bid(1) is b * 2 + h), 24 queries, 3 KV tiles.
CASE = AttentionCase((2, 2, 24), TILE_M, SEQ, kv_tiles=3, d=D, scale=0.25)
# Scores and the weighted sum are f32 sums of f16 products (in another order than
# numpy's); the kernel rounds unnormalized probabilities exp(s - running max) <= 1 to
# f16 (relative error 2^-11) before the second product, numpy does not round: the
# weighted means of values in [-1, 1] differ by a few 1e-4, within 5e-3.
TOLERANCE = {"out": (5e-3, 5e-3)}
# Both products run on FMAs (8 query rows).  It spilled ~50 bytes on sm_90a and sm_100a
# until kernels carried a `.maxnreg` (ptxas's own budget was the cause, not the FMA dots).
make_inputs = CASE.make_inputs
reference = CASE.reference
