"""1-D float64 transcendental functions, combined by products and quotients.

``hyp = sinh(x) * tanh(x) / cosh(x) * exp(-x)``,
``logpow = pow(y, x) * log(y) * exp2(x) / log2(y)``,
``trig = sin(z) * cos(y) * atan2(x, y) / tan(z)``.

Coverage: the f64 math ops ``sinh``, ``tanh``, ``cosh``, ``exp``, ``exp2``, ``log``,
``log2``, ``pow``, ``sin``, ``cos``, ``tan``, ``atan2`` (tileir's own f64 routines; PTX
has no f64 transcendental instruction), f64 ``mulf``/``divf``/``negf``, three inputs and
three outputs, a ragged length (300 vs 128). Every function takes an exact input, so the
results are within a few ulp of the correctly rounded chain; ``z`` reaches 2^1000.
Inputs, numpy reference and tolerance: ``cases/math_f64.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.math_f64 import TILE, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def math_f64(x, y, z, hyp, logpow, trig):
    """Three products of f64 transcendental functions, one TILE-element slice per block."""
    b = ct.bid(0)
    tx = ct.load(x, (b,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ty = ct.load(y, (b,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    tz = ct.load(z, (b,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(hyp, (b,), ct.sinh(tx) * ct.tanh(tx) / ct.cosh(tx) * ct.exp(-tx))
    ct.store(logpow, (b,), ct.pow(ty, tx) * ct.log(ty) * ct.exp2(tx) / ct.log2(ty))
    ct.store(trig, (b,), ct.sin(tz) * ct.cos(ty) * ct.atan2(tx, ty) / ct.tan(tz))


KERNEL = math_f64


def signatures() -> list[KernelSignature]:
    f64 = array_constraint(ct.float64, 1, base_addr_divisible_by=16)
    return [kernel_signature([f64] * 6)]
