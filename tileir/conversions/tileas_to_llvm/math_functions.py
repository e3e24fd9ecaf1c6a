"""Accurate f32 elementary functions for `rounding<full>` (tileir's own "libdevice").

PTX has fast approximations (`ex2.approx`, `lg2.approx`, `tanh.approx`) but no
accurate exp, log or tanh.  These routines reduce the argument exactly with FMA and
evaluate short polynomials, staying within about 2 ulp of the true result over the
whole f32 range, with IEEE behaviour at the edges (overflow to inf, underflow through
the subnormals to 0, NaN in gives NaN out, log(0) = -inf, log(x<0) = NaN).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import f32, i32
from xdsl.ir import SSAValue

from tileir.conversions.tileas_to_llvm.builder import LLBuilder

LN2_HI = 0.693145751953125  # ln 2 with 12 trailing zero bits: n * LN2_HI is exact
LN2_LO = 1.42860677e-06  # ln 2 - LN2_HI
INV_LN2 = 1.4426950408889634
LOG2E = 1.4426950408889634

#: Taylor coefficients of e^r, highest degree first (Horner order).
EXP_COEFFS = [1 / math.factorial(k) for k in range(7, -1, -1)]
#: Taylor coefficients of e^r - 1 without the constant term, highest first.
EXPM1_COEFFS = [1 / math.factorial(k) for k in range(9, 0, -1)]


def _horner(b: LLBuilder, x: SSAValue, coeffs: list[float]) -> SSAValue:
    acc = b.const(coeffs[0], f32)
    for c in coeffs[1:]:
        acc = b.fma(acc, x, b.const(c, f32))
    return acc


def _pow2_int(b: LLBuilder, n: SSAValue) -> SSAValue:
    """2^n as an f32, for an i32 n in [-126, 127]: exponent bits built directly."""
    biased = b.add(n, b.const(127, i32))
    return b.bitcast(b.shl(biased, b.const(23, i32)), f32)


def _reduce(b: LLBuilder, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """x = n ln2 + r with |r| <= ln2/2 (n returned as f32, clamped to [-252, 254])."""
    n = b.intrinsic("llvm.rint.f32", [b.fmul(x, b.const(INV_LN2, f32))], f32)
    n = b.intrinsic("llvm.maxnum.f32", [n, b.const(-252.0, f32)], f32)
    n = b.intrinsic("llvm.minnum.f32", [n, b.const(254.0, f32)], f32)
    r = b.fma(n, b.const(-LN2_HI, f32), x)
    r = b.fma(n, b.const(-LN2_LO, f32), r)
    return n, r


def _scale(b: LLBuilder, p: SSAValue, n_float: SSAValue) -> SSAValue:
    """p * 2^n in two steps, so results deep in the subnormal range stay exact."""
    n = b.intrinsic("llvm.nvvm.f2i.rz", [n_float], i32)
    half = b.ashr(n, b.const(1, i32))
    rest = b.sub(n, half)
    return b.fmul(b.fmul(p, _pow2_int(b, half)), _pow2_int(b, rest))


def exp_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    n, r = _reduce(b, x)
    p = _horner(b, r, EXP_COEFFS)
    result = _scale(b, p, n)
    # Saturate: above ~88.72 the result overflows, below ~-103.97 it is 0 (this also
    # covers +-inf; NaN fails both comparisons and propagates through `result`).
    result = b.select(b.fcmp("ogt", x, b.const(88.72283935546875, f32)), b.const(math.inf, f32), result)
    return b.select(b.fcmp("olt", x, b.const(-104.0, f32)), b.const(0.0, f32), result)


def expm1_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    """e^x - 1 without cancellation near 0 (polynomial for |x| < ln2/2)."""
    small = b.fmul(_horner(b, x, EXPM1_COEFFS), x)
    large = b.fsub(exp_f32(b, x), b.const(1.0, f32))
    is_small = b.fcmp("olt", b.intrinsic("llvm.fabs.f32", [x], f32), b.const(0.34657359, f32))
    return b.select(is_small, small, large)


def tanh_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    """tanh|x| = -expm1(-2|x|) / (2 + expm1(-2|x|)), with the sign of x restored."""
    ax = b.intrinsic("llvm.fabs.f32", [x], f32)
    e = expm1_f32(b, b.fmul(ax, b.const(-2.0, f32)))
    t = b.fdiv(b.fneg(e), b.fadd(e, b.const(2.0, f32)))
    return b.intrinsic("llvm.copysign.f32", [t, x], f32)


#: Coefficients of 2 atanh(s) / s = 2 (1 + s^2/3 + s^4/5 + ...), in s^2, highest first.
LOG_COEFFS = [2 / 11, 2 / 9, 2 / 7, 2 / 5, 2 / 3, 2.0]


def log_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    """ln x = e ln2 + 2 atanh((m - 1) / (m + 1)) with m in [sqrt(1/2), sqrt(2))."""
    # Subnormals: scale into the normal range first.
    tiny = b.fcmp("olt", b.intrinsic("llvm.fabs.f32", [x], f32), b.const(1.1754943508222875e-38, f32))
    xs = b.select(tiny, b.fmul(x, b.const(8388608.0, f32)), x)
    bias = b.select(tiny, b.const(-23, i32), b.const(0, i32))
    bits = b.bitcast(xs, i32)
    # Offset so that m lands in [sqrt(1/2), sqrt(2)).
    shifted = b.sub(bits, b.const(0x3F3504F3, i32))
    e = b.add(b.ashr(shifted, b.const(23, i32)), bias)
    m_bits = b.sub(bits, b.shl(b.ashr(shifted, b.const(23, i32)), b.const(23, i32)))
    m = b.bitcast(m_bits, f32)
    s = b.fdiv(b.fsub(m, b.const(1.0, f32)), b.fadd(m, b.const(1.0, f32)))
    s2 = b.fmul(s, s)
    poly = b.fmul(_horner(b, s2, LOG_COEFFS), s)
    ef = b.sitofp(e, f32)
    result = b.fma(ef, b.const(LN2_HI, f32), b.fma(ef, b.const(LN2_LO, f32), poly))
    # Edges: log(0) = -inf, log(x<0) = NaN, log(inf) = inf, NaN -> NaN.
    result = b.select(b.fcmp("oeq", x, b.const(0.0, f32)), b.const(-math.inf, f32), result)
    result = b.select(b.fcmp("olt", x, b.const(0.0, f32)), b.const(math.nan, f32), result)
    result = b.select(b.fcmp("oeq", x, b.const(math.inf, f32)), b.const(math.inf, f32), result)
    return b.select(b.fcmp("uno", x, x), x, result)


def log2_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    return b.fmul(log_f32(b, x), b.const(LOG2E, f32))
