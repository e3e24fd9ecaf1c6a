"""Inputs, numpy reference and tolerance of the ``attention_occupancy_f16`` corpus
kernel."""

from __future__ import annotations

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

TILE_M = 128  # query rows per block: two wgmma row blocks (8 warps)
SEQ = 128  # keys and values per tile
D = 128  # head dimension
# 1 batch, 1 head, 128 queries (one block), 2 KV tiles of 128 keys.
CASE = AttentionCase((1, 1, TILE_M), TILE_M, SEQ, kv_tiles=2, d=D, scale=0.125)
# As flash_attention_f16: f32 sums of f16 products in another order than numpy's, and
# probabilities rounded to f16 before the second product (relative error 2^-11): the
# weighted means of values in [-1, 1] differ by a few 1e-4, within 5e-3.
TOLERANCE = {"out": (5e-3, 5e-3)}
make_inputs = CASE.make_inputs
reference = CASE.reference
# sm_80 (mma.sync over 8 warps: both products' operand fragments in registers too): one
# CTA's 255 registers fall short by two words, 8 bytes of spill stores (636 at the
# hint's 128).  sm_100a: S and O are tcgen05 accumulators in tensor memory, which the
# occupancy rule does not count.  At the hint's 128 registers ptxas 13 spilled 196
# bytes in the K/V loop while K and V were loaded into registers (no ring: two slots
# of V did not fit beside Q and P in half an SM): the loop held S and 83 values
# computed before it, among them the 28 row indices of K's and V's bounds checks.
# Since V rides a one-slot ring (a synchronous tcgen05 dot's ring takes `stages - 1`
# slots, `tcgen05_plan.may_stay_in_flight`) it spills nothing
# (test_tcgen05_one_slot_rings.py).
KNOWN_SPILLS = {
    "sm_80": "S, P's fragments, O and both products' operand fragments exceed 255 registers",
}
