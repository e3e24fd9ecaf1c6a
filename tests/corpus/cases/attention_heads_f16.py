"""Inputs, numpy reference and tolerance of the ``attention_heads_f16`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["SEQ", "TILE_M", "TOLERANCE", "D", "flatten_args", "make_inputs", "reference"]

TILE_M = 8  # query rows per block: too few for the tensor cores
SEQ = 16  # keys and values per tile
KV_TILES = 3  # tiles of keys and values
D = 32  # head dimension
B, H, M = 2, 2, 24  # batches, heads (the kernel's bid(1) is b * 2 + h), queries
SCALE = 0.25
# Scores and the weighted sum are f32 sums of f16 products (in another order than
# numpy's); the kernel rounds unnormalized probabilities exp(s - running max) <= 1 to
# f16 (relative error 2^-11) before the second product, numpy does not round: the
# weighted means of values in [-1, 1] differ by a few 1e-4, within 5e-3.
TOLERANCE = {"out": (5e-3, 5e-3)}
# Both products run on FMAs (8 query rows).  It spilled ~50 bytes on sm_90a and sm_100a
# until kernels carried a `.maxnreg` (ptxas's own budget was the cause, not the FMA dots).


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
    """Softmax over all keys, the probabilities rounded to f16 per KV tile as the kernel
    rounds them (with the running maximum of the tiles seen so far, which the final
    normalization cancels up to that rounding)."""
    arrays = inputs["arrays"]
    q, k, v = (arrays[n].astype(np.float64) for n in ("q", "k", "v"))
    s = (q @ np.swapaxes(k, -1, -2)).astype(np.float32) * np.float32(SCALE)
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    p = (e / e.sum(axis=-1, keepdims=True)).astype(np.float64)
    return {"out": (p @ v).astype(np.float16)}
