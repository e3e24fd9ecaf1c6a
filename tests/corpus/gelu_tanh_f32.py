"""1-D float32 GELU, tanh approximation.

``out = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))`` with the
hardware-approximate ``tanh`` (``rounding_mode=APPROX``).

Coverage: 1-D grid, f32, ``tanh`` with ``rounding<approx>``, multiply/add chains
with Python float literals (contracted to ``fma``), a length that *is* a multiple
of the tile and is declared so (``shape_divisible_by=TILE``), loads/stores
without bounds checks (``check_bounds=False``), 16-byte aligned bases.
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
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]

TILE = 1024
N = 8 * TILE
SQRT_2_OVER_PI = 0.7978845608028654
GELU_C = 0.044715


@ct.kernel
def gelu_tanh_f32(x, out):
    """out = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), approximate tanh."""
    pid = ct.bid(0)
    t = ct.load(x, (pid,), (TILE,), check_bounds=False)
    inner = SQRT_2_OVER_PI * (t + GELU_C * t * t * t)
    y = 0.5 * t * (1.0 + ct.tanh(inner, rounding_mode=ct.RoundingMode.APPROX))
    ct.store(out, (pid,), y, check_bounds=False)


KERNEL = gelu_tanh_f32
# tanh.approx has a relative error around 2^-11; 1 + tanh cancels for x << 0.
TOLERANCE = {"out": (2e-3, 2e-3)}


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16, shape_divisible_by=TILE)
    return [kernel_signature([f32, f32])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-5.0, 5.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "out"),
        arrays={"x": x, "out": empty_output((N,), np.float32)},
        outputs=("out",),
        grid=(N // TILE, 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    t = inputs["arrays"]["x"]
    c0 = np.float32(SQRT_2_OVER_PI)
    c1 = np.float32(GELU_C)
    inner = c0 * (t + c1 * t * t * t)
    y = np.float32(0.5) * t * (np.float32(1.0) + np.tanh(inner))
    return {"out": y.astype(np.float32)}
