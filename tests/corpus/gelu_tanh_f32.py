"""1-D float32 GELU, tanh approximation.

``out = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x**3)))`` with the
hardware-approximate ``tanh`` (``rounding_mode=APPROX``).

Coverage: 1-D grid, f32, ``tanh`` with ``rounding<approx>``, multiply/add chains
with Python float literals (contracted to ``fma``), a length that *is* a multiple
of the tile and is declared so (``shape_divisible_by=TILE``), loads/stores
without bounds checks (``check_bounds=False``), 16-byte aligned bases.

The test inputs, numpy reference and tolerance live in
``cases/gelu_tanh_f32.py``, which does not need cuTile; this module re-exports
them (see ``README.md``).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.gelu_tanh_f32 import (
    GELU_C,
    SQRT_2_OVER_PI,
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def gelu_tanh_f32(x, out):
    """out = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))), approximate tanh."""
    pid = ct.bid(0)
    t = ct.load(x, (pid,), (TILE,), check_bounds=False)
    inner = SQRT_2_OVER_PI * (t + GELU_C * t * t * t)
    y = 0.5 * t * (1.0 + ct.tanh(inner, rounding_mode=ct.RoundingMode.APPROX))
    ct.store(out, (pid,), y, check_bounds=False)


KERNEL = gelu_tanh_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16, shape_divisible_by=TILE)
    return [kernel_signature([f32, f32])]
