"""Inputs, numpy reference and tolerance of the ``math_f64`` corpus kernel (no cuTile).

The reference evaluates every transcendental function in ``np.longdouble`` (x87 80-bit:
64 significant bits, glibc's ``sinhl``, ``powl``, ... with full argument reduction) and
rounds it once to f64, so each function value is the correctly rounded one (the long
double error, a few 2^-64, only matters within that distance of a rounding tie); the
products and quotients are then the kernel's own f64 operations, in the kernel's order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = ["TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference"]

TILE = 128
N = 300

#: f64's unit roundoff times two: the most an f64 result may move relative to its value
#: for 1 ulp.
ULP = 2.0**-52


def _rtol(functions: int, roundings: int) -> float:
    """Relative tolerance of a product/quotient chain of ``functions`` transcendental
    values and ``roundings`` f64 multiplications/divisions, every function applied to
    an exact input.

    tileir's f64 routines are within 0.58 ulp of the exact value (measured on 320k
    inputs per op, docs/codegen.md; tests/pytest/test_math_functions_f64.py asserts
    0.6) and the reference's within 0.5 ulp, so the two f64 values of one function are
    equal or adjacent: at most 1 ulp, 2^-52 relative, apart. Each multiplication or
    division rounds both sides by at most half an ulp: 2^-52 relative between them.
    Relative errors add through products and quotients (to first order; one more ulp
    covers the rest)."""
    return (functions + roundings + 1) * ULP


TOLERANCE = {
    "hyp": (_rtol(4, 3), 0.0),
    "logpow": (_rtol(5, 4), 0.0),
    "trig": (_rtol(4, 3), 0.0),
}


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-20.0, 20.0, N)
    # sinh/tanh's small-argument polynomials, and tanh's saturation above ~19.1.
    x[:6] = [1e-9, -3e-5, 0.125, -0.75, 19.5, -20.0]
    y = rng.uniform(0.25, 8.0, N)
    y[:3] = [1.0 + 2.0**-40, 1.0 - 2.0**-30, 0.25]  # log(y) and log2(y) near zero
    z = rng.uniform(-1e4, 1e4, N)
    # sin/cos/tan beyond Cody-Waite reduction: Payne-Hanek over the whole f64 range,
    # including an argument 6381956970095103 * 2^797 close to a multiple of pi.
    z[:5] = [1e22, -3.0e300, 2.0**1000, 6381956970095103.0 * 2.0**797, 1.5707963267948966]
    return make_kernel_inputs(
        params=("x", "y", "z", "hyp", "logpow", "trig"),
        arrays={
            "x": x,
            "y": y,
            "z": z,
            "hyp": empty_output((N,), np.float64),
            "logpow": empty_output((N,), np.float64),
            "trig": empty_output((N,), np.float64),
        },
        outputs=("hyp", "logpow", "trig"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def _f64(function: Callable[..., np.ndarray], *args: np.ndarray) -> np.ndarray:
    """``function`` evaluated in long double, rounded once to f64."""
    return function(*(a.astype(np.longdouble) for a in args)).astype(np.float64)


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    x, y, z = arrays["x"], arrays["y"], arrays["z"]
    hyp = _f64(np.sinh, x) * _f64(np.tanh, x) / _f64(np.cosh, x) * _f64(np.exp, -x)
    logpow = _f64(np.power, y, x) * _f64(np.log, y) * _f64(np.exp2, x) / _f64(np.log2, y)
    trig = _f64(np.sin, z) * _f64(np.cos, y) * _f64(np.arctan2, x, y) / _f64(np.tan, z)
    return {"hyp": hyp, "logpow": logpow, "trig": trig}
