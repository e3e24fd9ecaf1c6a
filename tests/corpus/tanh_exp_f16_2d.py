"""2-D float16 activation computed in float32: ``out = f16(scale * tanh(x) + exp(-|x|))``.

Coverage: 2-D grid (``ct.bid(0)`` rows, ``ct.bid(1)`` columns), f16 storage with
f32 compute (``ftof`` both ways), ``tanh``, ``exp``, ``abs``, negation, a runtime
``float`` scale, a 100x200 array tiled by 32x64 (ragged on both axes), 16-byte
aligned base and row stride (``stride_divisible_by=[8, 1]`` f16 elements).
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

TILE_M = 32
TILE_N = 64
M, N = 100, 200


@ct.kernel
def tanh_exp_f16_2d(x, out, scale: float):
    """out = f16(scale * tanh(f32(x)) + exp(-|f32(x)|)), one TILE_M x TILE_N tile per block."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    tx = ct.load(x, (bm, bn), (TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    xf = ct.astype(tx, ct.float32)
    y = scale * ct.tanh(xf) + ct.exp(-ct.abs(xf))
    ct.store(out, (bm, bn), ct.astype(y, ct.float16))


KERNEL = tanh_exp_f16_2d
# One f16 rounding of a value computed in f32 (within a few f32 ulps).
TOLERANCE = {"out": (2e-3, 1e-3)}


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 2, base_addr_divisible_by=16, stride_divisible_by=[8, 1])
    return [kernel_signature([f16, f16, scalar_constraint(ct.float32)])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-3.0, 3.0, (M, N)).astype(np.float16)
    return make_kernel_inputs(
        params=("x", "out", "scale"),
        arrays={"x": x, "out": empty_output((M, N), np.float16)},
        scalars={"scale": 0.8},
        outputs=("out",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    xf = inputs["arrays"]["x"].astype(np.float32)
    scale = np.float32(inputs["scalars"]["scale"])
    y = scale * np.tanh(xf) + np.exp(-np.abs(xf))
    return {"out": y.astype(np.float16)}
