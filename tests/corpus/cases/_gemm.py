"""What the plain GEMM cases share (``c = a @ b``, an f32 ``c``, a ``k_tiles`` loop
bound): their inputs, numpy reference and FLOP count, from the problem and tile sizes
and the operand type each case module gives."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from _common import KernelInputs, cdiv, empty_output, make_kernel_inputs


@dataclass(frozen=True)
class GemmCase:
    """``c (M x N, f32) = a (M x K) @ b (K x N)``, one ``tile`` of ``c`` per block and
    the K loop over ``tile[2]``-wide steps."""

    #: M, N, K.
    shape: tuple[int, int, int]
    #: TILE_M, TILE_N, TILE_K.
    tile: tuple[int, int, int]
    #: The operands' element type (exact in f32: f16, bf16).
    dtype: Any

    def make_inputs(self, rng: np.random.Generator) -> KernelInputs:
        m, n, k = self.shape
        tm, tn, tk = self.tile
        a = rng.uniform(-1.0, 1.0, (m, k)).astype(self.dtype)
        b = rng.uniform(-1.0, 1.0, (k, n)).astype(self.dtype)
        return make_kernel_inputs(
            params=("a", "b", "c", "k_tiles"),
            arrays={"a": a, "b": b, "c": empty_output((m, n), np.float32)},
            scalars={"k_tiles": cdiv(k, tk)},
            outputs=("c",),
            grid=(cdiv(m, tm), cdiv(n, tn), 1),
        )

    @staticmethod
    def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
        a = inputs["arrays"]["a"].astype(np.float64)
        b = inputs["arrays"]["b"].astype(np.float64)
        return {"c": (a @ b).astype(np.float32)}

    def flops(self, inputs: KernelInputs) -> int:
        """The multiply-adds of the product, counted as 2 FLOPs each
        (benchmarks/bench_gpu.py)."""
        m, n, k = self.shape
        return 2 * m * n * k
