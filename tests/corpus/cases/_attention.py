"""What the multi-head attention cases share (``out[b, h] = softmax(q @ k^T * scale) @
v``, f16 operands, one (batch, head) pair per ``bid(1) = b * heads + h``, a ``kv_tiles``
loop bound): their inputs and numpy reference, from the problem and tile sizes each case
module gives."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from _common import KernelInputs, cdiv, empty_output, make_kernel_inputs


@dataclass(frozen=True)
class AttentionCase:
    """Queries of ``tile_m`` rows per block, keys and values in ``kv_tiles`` tiles of
    ``seq`` rows, head dimension ``d``; ``causal``: query ``r`` attends to keys ``0 ..
    r`` only (queries and keys numbered from 0 alike, and the kernel takes no
    ``kv_tiles`` parameter: its loops stop at the diagonal)."""

    #: Batches, heads, queries.
    shape: tuple[int, int, int]
    tile_m: int
    seq: int
    kv_tiles: int
    d: int
    scale: float
    dtype: type = np.float16
    causal: bool = False

    def make_inputs(self, rng: np.random.Generator) -> KernelInputs:
        b, h, m = self.shape
        keys = self.kv_tiles * self.seq
        q = rng.uniform(-1.0, 1.0, (b, h, m, self.d)).astype(self.dtype)
        k = rng.uniform(-1.0, 1.0, (b, h, keys, self.d)).astype(self.dtype)
        v = rng.uniform(-1.0, 1.0, (b, h, keys, self.d)).astype(self.dtype)
        scalars = {} if self.causal else {"kv_tiles": self.kv_tiles}
        return make_kernel_inputs(
            params=("q", "k", "v", "out", *scalars),
            arrays={"q": q, "k": k, "v": v, "out": empty_output((b, h, m, self.d), self.dtype)},
            scalars=scalars,
            outputs=("out",),
            grid=(cdiv(m, self.tile_m), b * h, 1),
        )

    def reference(self, inputs: KernelInputs) -> dict[str, np.ndarray]:
        """Softmax over all keys (the kernels round the unnormalized probabilities of
        each KV tile to f16, with the running maximum of the tiles seen so far, which
        the final normalization cancels up to that rounding: within the tolerance)."""
        arrays = inputs["arrays"]
        q, k, v = (arrays[n].astype(np.float64) for n in ("q", "k", "v"))
        s = (q @ np.swapaxes(k, -1, -2)).astype(np.float32) * np.float32(self.scale)
        if self.causal:
            rows, cols = np.indices(s.shape[-2:])
            s = np.where(cols <= rows, s, np.float32(-np.inf))
        m = s.max(axis=-1, keepdims=True)
        e = np.exp(s - m)
        p = (e / e.sum(axis=-1, keepdims=True)).astype(np.float64)
        return {"out": (p @ v).astype(self.dtype)}

    def flops(self, inputs: KernelInputs) -> int:
        """The multiply-adds of the two products (``q @ k^T``, ``p @ v``) the result needs,
        2 FLOPs each: every key per query, or with ``causal`` the keys ``0 .. r`` of query
        ``r`` (benchmarks/bench_gpu.py)."""
        b, h, m = self.shape
        keys = self.kv_tiles * self.seq
        pairs = sum(min(r + 1, keys) for r in range(m)) if self.causal else m * keys
        return 4 * b * h * self.d * pairs
