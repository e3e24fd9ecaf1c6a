"""2-D bfloat16 ReLU and leaky ReLU.

``relu = max(x, 0)`` in native bf16; ``leaky = where(x > 0, x, bf16(f32(x) * slope))``
with a runtime ``slope``.

Coverage: 2-D grid, bf16 (native ``maxf`` on bf16, bf16 -> f32 -> bf16
conversions), ``where``/``select`` with a float comparison, a runtime ``float``,
a 77x150 array tiled by 16x64 (ragged on both axes), a row stride (150
elements, 300 bytes) that is not 16-byte divisible and is declared with no
``stride_divisible_by``, 16-byte aligned bases.
"""

from __future__ import annotations

import cuda.tile as ct
import ml_dtypes
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

TILE_M = 16
TILE_N = 64
M, N = 77, 150
BF16 = ml_dtypes.bfloat16


@ct.kernel
def relu_bf16_2d(x, relu, leaky, slope: float):
    """relu = max(x, 0) in bf16; leaky = x where x > 0 else bf16(f32(x) * slope)."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    tx = ct.load(x, (bm, bn), (TILE_M, TILE_N))
    ct.store(relu, (bm, bn), ct.maximum(tx, 0.0))
    scaled = ct.astype(ct.astype(tx, ct.float32) * slope, ct.bfloat16)
    ct.store(leaky, (bm, bn), ct.where(tx > 0.0, tx, scaled))


KERNEL = relu_bf16_2d
# max is exact; the leaky branch is one f32 multiply then one bf16 rounding,
# which the reference reproduces bit for bit.
TOLERANCE = {"relu": (0.0, 0.0), "leaky": (0.0, 0.0)}


def signatures() -> list[KernelSignature]:
    bf16 = array_constraint(ct.bfloat16, 2, base_addr_divisible_by=16)
    return [kernel_signature([bf16, bf16, bf16, scalar_constraint(ct.float32)])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-8.0, 8.0, (M, N)).astype(BF16)
    return make_kernel_inputs(
        params=("x", "relu", "leaky", "slope"),
        arrays={"x": x, "relu": empty_output((M, N), BF16), "leaky": empty_output((M, N), BF16)},
        scalars={"slope": 0.125 + 1.0 / 3.0},
        outputs=("relu", "leaky"),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    slope = np.float32(inputs["scalars"]["slope"])
    relu = np.maximum(x, BF16(0.0))
    scaled = (x.astype(np.float32) * slope).astype(BF16)
    leaky = np.where(x > BF16(0.0), x, scaled)
    return {"relu": relu.astype(BF16), "leaky": leaky.astype(BF16)}
