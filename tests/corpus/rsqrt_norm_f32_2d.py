"""2-D float32 elementwise normalisation with ``rsqrt`` and ``sqrt``.

``unit = x * rsqrt(x*x + eps)`` (a smooth sign function) and ``root = sqrt(|x|)``.

Coverage: 2-D grid, f32 ``rsqrt``, ``sqrt``, ``abs``, ``x*x + eps`` contracted to
``fma`` with a runtime ``float`` eps, two outputs, a 64x384 array tiled by
8x128 (shape a multiple of the tile, but not declared so), and no alignment
assumption on any array (``base_addr_divisible_by=1``, no stride divisibility).
"""

from __future__ import annotations

import cuda.tile as ct
import numpy as np
from _common import (
    KernelInputs,
    array_constraint,
    empty_output,
    flatten_args,
    kernel_signature,
    make_kernel_inputs,
    scalar_constraint,
)
from cuda.tile.compilation import KernelSignature

__all__ = [
    "KERNEL",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
    "signatures",
]

TILE_M = 8
TILE_N = 128
M, N = 64, 384


@ct.kernel
def rsqrt_norm_f32_2d(x, unit, root, eps: float):
    """unit = x * rsqrt(x*x + eps); root = sqrt(|x|)."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    tx = ct.load(x, (bm, bn), (TILE_M, TILE_N))
    ct.store(unit, (bm, bn), tx * ct.rsqrt(tx * tx + eps))
    ct.store(root, (bm, bn), ct.sqrt(ct.abs(tx)))


KERNEL = rsqrt_norm_f32_2d
# rsqrt is not correctly rounded on the GPU; sqrt is (IEEE round-to-nearest).
TOLERANCE = {"unit": (1e-5, 1e-6), "root": (1e-6, 0.0)}


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 2, base_addr_divisible_by=1)
    return [kernel_signature([f32, f32, f32, scalar_constraint(ct.float32)])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-10.0, 10.0, (M, N)).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "unit", "root", "eps"),
        arrays={
            "x": x,
            "unit": empty_output((M, N), np.float32),
            "root": empty_output((M, N), np.float32),
        },
        scalars={"eps": 1e-3},
        outputs=("unit", "root"),
        grid=(M // TILE_M, N // TILE_N, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    eps = np.float32(inputs["scalars"]["eps"])
    unit = x * (np.float32(1.0) / np.sqrt(x * x + eps))
    return {"unit": unit.astype(np.float32), "root": np.sqrt(np.abs(x))}
