"""Inputs, numpy reference and tolerance of the ``flash_attention_f16`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["SEQ", "TILE_M", "TOLERANCE", "D", "flatten_args", "make_inputs", "reference"]

TILE_M = 64  # query rows per block: one wgmma row block
SEQ = 64  # keys and values per tile
KV_TILES = 3  # tiles of keys and values
D = 64  # head dimension
B, H, M = 1, 2, 80  # batches, heads (the kernel's bid(1) is b * 2 + h), queries: ragged
SCALE = 0.125
# Scores and the weighted sum are f32 sums of f16 products (in another order than
# numpy's); the kernel rounds unnormalized probabilities exp(s - running max) <= 1 to
# f16 (relative error 2^-11) before the second product, numpy does not round: the
# weighted means of values in [-1, 1] differ by a few 1e-4, within 5e-3.
TOLERANCE = {"out": (5e-3, 5e-3)}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    q = rng.uniform(-1.0, 1.0, (B, H, M, D)).astype(np.float16)
    k = rng.uniform(-1.0, 1.0, (B, H, KV_TILES * SEQ, D)).astype(np.float16)
    v = rng.uniform(-1.0, 1.0, (B, H, KV_TILES * SEQ, D)).astype(np.float16)
    return make_kernel_inputs(
        params=("q", "k", "v", "out", "kv_tiles"),
        arrays={"q": q, "k": k, "v": v, "out": empty_output((B, H, M, D), np.float16)},
        scalars={"kv_tiles": KV_TILES},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), B * H, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    """Softmax over all keys (the kernel's per-tile f16 rounding of the unnormalized
    probabilities is within the tolerance)."""
    arrays = inputs["arrays"]
    q, k, v = (arrays[n].astype(np.float64) for n in ("q", "k", "v"))
    s = (q @ np.swapaxes(k, -1, -2)) * SCALE
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    p = e / e.sum(axis=-1, keepdims=True)
    return {"out": (p @ v).astype(np.float16)}
