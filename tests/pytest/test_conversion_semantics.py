"""Conversions whose results cuda_tile leaves to the implementation, and f64 rsqrt.

cuda_tile says a float-to-integer conversion out of the target's range is
undefined; tileir matches what NVIDIA's tileiras does (read from its SASS):
``astype(bool)`` is "non-zero" (NaN is true), i16 saturates, i8 saturates to 16 bits
and keeps the low byte.  In-range values round toward zero.  f64 ``rsqrt`` must be
f64-accurate (tileiras refines the hardware approximation; so does tileir).
Each case runs a one-op kernel in the PTX simulator.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from elementwise_kernels import compile_text, kernel_text, run_kernel

SPECIALS = np.array(
    [
        0.0,
        -0.0,
        0.5,
        -0.5,
        0.99,
        -1.0,
        2.7,
        -2.7,
        127.9,
        128.5,
        -129.0,
        300.0,
        -300.0,
        32767.5,
        32768.0,
        -32769.0,
        65535.9,
        70000.0,
        -70000.0,
        1e10,
        -1e10,
        np.inf,
        -np.inf,
        np.nan,
        1e-30,
    ],
    dtype=np.float32,
)


def ftoi(x: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """The reference: truncate, saturate to 16 bits (or 32/64), NaN -> 0, keep the
    low `bits` bits."""
    t = np.trunc(np.where(np.isnan(x), 0.0, x.astype(np.float64)))
    width = max(16, bits)
    lo, hi = (-(2 ** (width - 1)), 2 ** (width - 1) - 1) if signed else (0, 2**width - 1)
    wide = np.clip(t, lo, hi).astype(np.int64)
    low = (wide & ((1 << bits) - 1)).astype(np.dtype(f"u{bits // 8}"))
    return low.view(np.dtype(f"{'i' if signed else 'u'}{bits // 8}"))


@pytest.mark.parametrize(
    ("bits", "signed"), [(8, True), (8, False), (16, True), (16, False), (32, True), (32, False)]
)
def test_float_to_int_saturates_like_tileiras(bits: int, signed: bool) -> None:
    to = f"i{bits}"
    sign = "signed" if signed else "unsigned"
    ptx = compile_text(kernel_text([f"%r = ftoi %x0 {sign} -> {to}"], ["f32"], to))
    got = run_kernel(ptx, [SPECIALS], np.dtype(f"{'i' if signed else 'u'}{bits // 8}"))
    if bits == 32:
        # cvt.rzi saturates to the 32-bit range itself.
        info = np.iinfo(got.dtype)
        t = np.trunc(np.where(np.isnan(SPECIALS), 0.0, SPECIALS.astype(np.float64)))
        want = np.clip(t, info.min, info.max).astype(got.dtype)
    else:
        want = ftoi(SPECIALS, bits, signed)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("t", ["f32", "f16", "bf16"])
def test_float_to_bool_is_nonzero(t: str) -> None:
    ptx = compile_text(kernel_text(["%r = ftoi %x0 unsigned -> i1"], [t], "i1"))
    dtype = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}[t]
    with np.errstate(over="ignore"):  # 1e10 becomes inf in f16: still non-zero
        x = SPECIALS.astype(dtype)
    got = run_kernel(ptx, [x], np.dtype(np.bool_))
    want = np.isnan(x.astype(np.float32)) | (x.astype(np.float32) != 0)
    np.testing.assert_array_equal(got, want)


def test_f64_rsqrt_is_f64_accurate() -> None:
    rng = np.random.default_rng(3)
    x = np.concatenate(
        [
            np.exp(rng.uniform(-700, 700, 400)),
            rng.uniform(0.0, 4.0, 100),
            [5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1.0, 4.0, 0.25],
        ]
    )
    ptx = compile_text(kernel_text(["%r = rsqrt %x0"], ["f64"], "f64"))
    got = run_kernel(ptx, [x], np.dtype(np.float64), approx="bound")
    want = 1.0 / np.sqrt(x.astype(np.longdouble))
    rel = np.abs((got - want) / want).astype(np.float64)
    assert rel.max() < 4 * 2.0**-53, rel.max()


def test_f64_rsqrt_special_values() -> None:
    x = np.array([0.0, -0.0, np.inf, -1.0, -np.inf, np.nan], dtype=np.float64)
    ptx = compile_text(kernel_text(["%r = rsqrt %x0"], ["f64"], "f64"))
    got = run_kernel(ptx, [x], np.dtype(np.float64))
    np.testing.assert_array_equal(got[:3], [np.inf, -np.inf, 0.0])
    assert np.isnan(got[3:]).all()
