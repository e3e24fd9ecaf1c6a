"""2-D float32 clamp between two runtime bounds: ``out = min(max(x, lo), hi)``.

Coverage: 2-D grid, f32 ``maxf``/``minf`` against broadcast runtime scalars,
two runtime ``float`` arguments, an input that is a strided view (45x130 inside
a 45x136 buffer: row stride 136 != row length, declared ``stride_divisible_by
= [4, 1]``) and a contiguous output whose row stride (130) is only 2-element
divisible, 16x32 tiles (ragged on both axes), negative-infinity padding.
"""

from __future__ import annotations

import cuda.tile as ct
import numpy as np
from _common import (
    KernelInputs,
    array_constraint,
    cdiv,
    empty_output,
    flatten_args,
    kernel_signature,
    make_kernel_inputs,
    scalar_constraint,
    strided_view,
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

TILE_M = 16
TILE_N = 32
M, N = 45, 130
LDX = 136  # row stride of the input buffer, in elements


@ct.kernel
def clamp_f32_2d(x, out, lo: float, hi: float):
    """out = min(max(x, lo), hi), one TILE_M x TILE_N tile per block."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    tx = ct.load(x, (bm, bn), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(out, (bm, bn), ct.minimum(ct.maximum(tx, lo), hi))


KERNEL = clamp_f32_2d
TOLERANCE = {"out": (0.0, 0.0)}


def signatures() -> list[KernelSignature]:
    x = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[4, 1])
    out = array_constraint(ct.float32, 2, base_addr_divisible_by=16, stride_divisible_by=[2, 1])
    f32 = scalar_constraint(ct.float32)
    return [kernel_signature([x, out, f32, f32])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    buf = rng.uniform(-3.0, 3.0, (M, LDX)).astype(np.float32)
    x = strided_view(buf, (M, N))
    return make_kernel_inputs(
        params=("x", "out", "lo", "hi"),
        arrays={"x": x, "out": empty_output((M, N), np.float32)},
        scalars={"lo": -1.5, "hi": 0.75},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    lo = np.float32(inputs["scalars"]["lo"])
    hi = np.float32(inputs["scalars"]["hi"])
    return {"out": np.minimum(np.maximum(x, lo), hi)}
