"""Exact f32 floating-point remainder (C `fmodf`), the `remf` op.

fmod is exact: x - trunc(x / y) y is always representable.  There is no loop in
tileir's per-element code, so the long division |x| / |y| (up to 2^277 for f32) is a
fixed number of steps, each retiring FMOD_STEP_BITS quotient bits exactly in f64.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import f32, f64, i32, i64
from xdsl.ir import SSAValue

from tileir.conversions.tileas_to_llvm.builder import LLBuilder

#: Bits of quotient retired by each step of the long division (f64 keeps a step's
#: quotient times the 24-bit divisor, < 2^52, exact).
FMOD_STEP_BITS = 28
#: |x| / |y| < 2^277 for f32 operands (2^128 / 2^-149): ten steps.
FMOD_STEPS = -(-277 // FMOD_STEP_BITS)


def _pow2_f64(b: LLBuilder, k: SSAValue) -> SSAValue:
    """2^k as an f64 for an i32 k in [-1022, 1023]."""
    biased = b.zext(b.add(k, b.const(1023, i32)), i64)
    return b.bitcast(b.shl(biased, b.const(52, i64)), f64)


def _f64_exponent(b: LLBuilder, v: SSAValue) -> SSAValue:
    bits = b.trunc(b.lshr(b.bitcast(v, i64), b.const(52, i64)), i32)
    return b.and_(bits, b.const(0x7FF, i32))


def fmod_f32(b: LLBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """C fmodf: x - trunc(x / y) y, exactly, with the sign of x.

    Long division of |x| by |y| in f64, FMOD_STEP_BITS quotient bits per step (d the
    difference of the binary exponents, |x| / |y| < 2^(d + 1)): step k subtracts
    n |y| 2^j, j = max(d + 1 - 28 (k + 1), 0), with n = trunc(r / (|y| 2^j)) from a
    reciprocal.  The quotient is below 2^28 and its computed value within 2^-24 of
    it, so n is exact or one off, which one add or subtract of |y| 2^j repairs.  All
    values of a step are integer multiples of u 2^j (u the last-place unit of |y| as
    an f32) below 2^53 units, so f64 holds them exactly; the last step (j = 0)
    leaves the remainder in [0, |y|).
    """
    ax = b.fpext(b.intrinsic("llvm.fabs.f32", [x], f32), f64)
    ay = b.fpext(b.intrinsic("llvm.fabs.f32", [y], f32), f64)
    inverse = b.fdiv(b.const(1.0, f64), ay)
    d1 = b.add(b.sub(_f64_exponent(b, ax), _f64_exponent(b, ay)), b.const(1, i32))
    zero64 = b.const(0.0, f64)
    r = ax
    for k in range(FMOD_STEPS):
        j = b.intrinsic(
            "llvm.smax.i32",
            [b.sub(d1, b.const(FMOD_STEP_BITS * (k + 1), i32)), b.const(0, i32)],
            i32,
        )
        divisor = b.fmul(ay, _pow2_f64(b, j))
        scaled_inverse = b.fmul(inverse, _pow2_f64(b, b.sub(b.const(0, i32), j)))
        n = b.intrinsic("llvm.trunc.f64", [b.fmul(r, scaled_inverse)], f64)
        r = b.fsub(r, b.fmul(n, divisor))
        r = b.select(b.fcmp("olt", r, zero64), b.fadd(r, divisor), r)
        r = b.select(b.fcmp("oge", r, divisor), b.fsub(r, divisor), r)
    result = b.intrinsic("llvm.copysign.f32", [b.fptrunc(r, f32), x], f32)
    # |y| = inf, x finite: x.  y = 0, x infinite, or a NaN operand: NaN.
    result = b.select(b.fcmp("oeq", ay, b.const(math.inf, f64)), x, result)
    invalid = b.or_(b.fcmp("oeq", ay, zero64), b.fcmp("oeq", ax, b.const(math.inf, f64)))
    invalid = b.or_(invalid, b.fcmp("uno", x, y))
    return b.select(invalid, b.const(math.nan, f32), result)
