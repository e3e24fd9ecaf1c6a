"""Accurate f32 exponential and logarithmic functions (tileir's own "libdevice").

PTX has fast approximations (`ex2.approx`, `lg2.approx`, `tanh.approx`) but no
accurate exp, log, tanh, sinh, cosh or pow.  These routines reduce the argument
with FMA and either hand the reduced argument to the hardware's `ex2.approx`
(`exp`, as the CUDA Math API's `expf` does) or evaluate short polynomials, with
IEEE behaviour at the edges (overflow to inf, underflow through the subnormals
to 0, NaN in gives NaN out, log(0) = -inf, log(x<0) = NaN, C99's pow special
cases).

- `exp`: 2^(x log2 e) as ex2.approx(f) * 2^n, x log2 e = n + f split with FMAs
  (f in [0, 1) to about 2^-24): the hardware's error plus at most 0.69 ulp (see
  `exp_f32`).
- `expm1`, `tanh`, `log`, `log2`: polynomials, about 2 ulp over the whole range
  (expm1 and tanh keep a polynomial e^x: e^x - 1 cancels up to three bits of
  e^x near |x| = 0.35, more than the hardware exp2's error leaves room for).
- `sinh`, `cosh`: Taylor series below 1; above, e^|x|/2 as an f32 pair (exact
  Cody-Waite reduction by ln 2 with the remainder as a pair, the exponent applied
  exactly in two steps so that it overflows only where the result does) plus or
  minus its reciprocal/4.  At most 0.58 ulp measured.
- `pow`: 2^(y log2|x|) in f64 (which holds f32 operands exactly), keeping
  y log2|x| (at most ~150 in magnitude where the result is finite and nonzero) to
  2^-40 relative, rounded once to f32: 0.50 ulp measured (correctly rounded on every
  input tried).

The helpers for f32 pairs (unevaluated sums hi + lo) are shared with
`trig_functions`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from xdsl.dialects.builtin import f32, f64, i1, i32, i64
from xdsl.ir import SSAValue

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.utils.float_codec import f64_bits, to_f32

LN2_HI = 0.693145751953125  # ln 2 with 12 trailing zero bits: n * LN2_HI is exact
LN2_LO = 1.42860677e-06  # ln 2 - LN2_HI
INV_LN2 = 1.4426950408889634
LOG2E = 1.4426950408889634
LOG2E_HI = 1.4426950216293335  # log2 e rounded to f32
LOG2E_LO = 1.925963033500011e-08  # log2 e - LOG2E_HI, rounded to f32
#: 1.5 * 2^23 + 127: x + EXP_SHIFTER, rounded, is an integer n + EXP_SHIFTER (the f32
#: spacing there is 1), with n + 127, the biased exponent of 2^n, in the low mantissa
#: bits.
EXP_SHIFTER = 12583039.0

#: Taylor coefficients of e^r, highest degree first (Horner order).
EXP_COEFFS = [1 / math.factorial(k) for k in range(7, -1, -1)]
#: Taylor coefficients of e^r - 1 without the constant term, highest first.
EXPM1_COEFFS = [1 / math.factorial(k) for k in range(9, 0, -1)]


# ---------------------------------------------------------------------------
# Helpers: polynomials and f32 pairs.
# ---------------------------------------------------------------------------


def horner(b: LLBuilder, x: SSAValue, coeffs: Sequence[float]) -> SSAValue:
    """The f32 polynomial with `coeffs` (highest degree first) at x, with FMA."""
    acc = b.const(coeffs[0], f32)
    for c in coeffs[1:]:
        acc = b.fma(acc, x, b.const(c, f32))
    return acc


def horner_f64(b: LLBuilder, x: SSAValue, coeffs: Sequence[float]) -> SSAValue:
    """The f64 polynomial at x, with separate multiply and add: where tileir computes
    in f64 it has precision to spare, and the simulator rounds f64 FMA slowly."""
    acc = b.const(coeffs[0], f64)
    for c in coeffs[1:]:
        acc = b.fadd(b.fmul(acc, x), b.const(c, f64))
    return acc


def two_sum(b: LLBuilder, a: SSAValue, c: SSAValue) -> tuple[SSAValue, SSAValue]:
    """s + e = a + c exactly, s the rounded sum (Knuth's branch-free TwoSum)."""
    s = b.fadd(a, c)
    a_part = b.fsub(s, c)
    c_part = b.fsub(s, a_part)
    return s, b.fadd(b.fsub(a, a_part), b.fsub(c, c_part))


def fast_two_sum(b: LLBuilder, a: SSAValue, c: SSAValue) -> tuple[SSAValue, SSAValue]:
    """s + e = a + c exactly, for |a| >= |c| (or a = 0)."""
    s = b.fadd(a, c)
    return s, b.fadd(b.fsub(a, s), c)


def f32_pair(v: Fraction) -> tuple[float, float]:
    """A constant as hi + lo, both f32 (about 2^-48 relative)."""
    hi = to_f32(float(v))
    return hi, to_f32(float(v - Fraction(hi)))


SIXTH = f32_pair(Fraction(1, 6))


def odd_series_pair(
    b: LLBuilder,
    r: SSAValue,
    r2: SSAValue,
    r2_err: SSAValue,
    cube_sign: int,
    tail: Sequence[float],
    extra: SSAValue,
) -> tuple[SSAValue, SSAValue]:
    """r + cube_sign r^3/6 + r^5 tail(r2) + extra as an f32 pair, for sin (cube_sign
    -1) and sinh (+1) on |r| <= 1 (r^2 = r2 + r2_err exactly, `extra` small).

    r^3/6 reaches r/6, so it is formed exactly enough (r^3 as a pair, 1/6 as a
    pair, the product's rounding error by FMA, its sum with r by Fast2Sum) that only
    the final rounding of the pair sum matters."""
    r3 = b.fmul(r, r2)
    r3_err = b.fma(r, r2_err, b.fma(r, r2, b.fneg(r3)))
    sixth_hi, sixth_lo = (b.const(cube_sign * c, f32) for c in SIXTH)
    cube = b.fmul(r3, sixth_hi)
    cube_err = b.fma(r3, sixth_hi, b.fneg(cube))
    s0, s0_err = fast_two_sum(b, r, cube)
    rest = b.fadd(b.fadd(s0_err, extra), cube_err)
    rest = b.fma(r3_err, sixth_hi, b.fma(r3, sixth_lo, rest))
    rest = b.fma(b.fmul(r3, r2), horner(b, r2, tail), rest)
    return fast_two_sum(b, s0, rest)


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
    """e^x as the CUDA Math API's `expf` computes it: x log2 e = n + f with n an
    integer in [-126, 127] and f in [0, 1) (where n is not clamped), then
    ex2.approx.ftz(f) * 2^n.

    n = floor(x LOG2E_HI) comes from one FMA rounding down onto EXP_SHIFTER,
    clamped so that 2^n is a normal f32, built by shifting the same word.  f >= 0
    keeps ex2's result in [1, 2): the hardware's error, about one ulp of 1 in
    absolute terms (measured on an H200), is two ulp in [1/2, 1), where a
    round-to-nearest n would put half the results.  f = x LOG2E_HI - n + x LOG2E_LO
    in two FMAs, each rounding once to at most 2^-25, so e^x gets at most
    ln2 2^-24 relative (0.69 ulp; far less on most inputs) on top of ex2's error.
    Where n is clamped, f absorbs the rest: results below 2^-126 come from one
    rounding of ex2(f) * 2^-126 into the subnormals, and ex2(f) * 2^127 overflows
    by itself above ~88.72.  NaN propagates through f; +-inf (and any huge |x|)
    make f +-inf, so ex2 gives +inf or +0 with no special case."""
    shifter = b.const(EXP_SHIFTER, f32)
    j = b.intrinsic("llvm.nvvm.fma.rm.f", [x, b.const(LOG2E_HI, f32), shifter], f32)
    j = b.intrinsic("llvm.maxnum.f32", [j, b.const(EXP_SHIFTER - 126, f32)], f32)
    j = b.intrinsic("llvm.minnum.f32", [j, b.const(EXP_SHIFTER + 127, f32)], f32)
    n = b.fsub(j, shifter)  # exact
    f = b.fma(x, b.const(LOG2E_HI, f32), b.fneg(n))
    f = b.fma(x, b.const(LOG2E_LO, f32), f)
    scale = b.bitcast(b.shl(b.bitcast(j, i32), b.const(23, i32)), f32)  # 2^n
    return b.fmul(b.intrinsic("llvm.nvvm.ex2.approx.ftz.f", [f], f32), scale)


def _exp_polynomial(b: LLBuilder, x: SSAValue) -> SSAValue:
    """e^x to about 1 ulp without the hardware: Cody-Waite reduction by ln 2 and a
    degree-7 Taylor polynomial, for `expm1`, whose cancellation leaves no room for
    ex2.approx's error."""
    n, r = _reduce(b, x)
    p = horner(b, r, EXP_COEFFS)
    result = _scale(b, p, n)
    # Saturate: above ~88.72 the result overflows, below ~-103.97 it is 0 (this also
    # covers +-inf; NaN fails both comparisons and propagates through `result`).
    result = b.select(
        b.fcmp("ogt", x, b.const(88.72283935546875, f32)), b.const(math.inf, f32), result
    )
    return b.select(b.fcmp("olt", x, b.const(-104.0, f32)), b.const(0.0, f32), result)


def expm1_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    """e^x - 1 without cancellation near 0 (polynomial for |x| < ln2/2)."""
    small = b.fmul(horner(b, x, EXPM1_COEFFS), x)
    large = b.fsub(_exp_polynomial(b, x), b.const(1.0, f32))
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
    tiny = b.fcmp(
        "olt", b.intrinsic("llvm.fabs.f32", [x], f32), b.const(1.1754943508222875e-38, f32)
    )
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
    poly = b.fmul(horner(b, s2, LOG_COEFFS), s)
    ef = b.sitofp(e, f32)
    result = b.fma(ef, b.const(LN2_HI, f32), b.fma(ef, b.const(LN2_LO, f32), poly))
    # Edges: log(0) = -inf, log(x<0) = NaN, log(inf) = inf, NaN -> NaN.
    result = b.select(b.fcmp("oeq", x, b.const(0.0, f32)), b.const(-math.inf, f32), result)
    result = b.select(b.fcmp("olt", x, b.const(0.0, f32)), b.const(math.nan, f32), result)
    result = b.select(b.fcmp("oeq", x, b.const(math.inf, f32)), b.const(math.inf, f32), result)
    return b.select(b.fcmp("uno", x, x), x, result)


def log2_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    return b.fmul(log_f32(b, x), b.const(LOG2E, f32))


# ---------------------------------------------------------------------------
# sinh and cosh.
# ---------------------------------------------------------------------------

#: Taylor series of (sinh x - x - x^3/6) / x^5 and (cosh x - 1 - x^2/2) / x^4 in x^2,
#: highest degree first (|x| < 1: truncated below 2^-40).
SINH_TAIL = [1 / math.factorial(2 * k + 5) for k in range(4, -1, -1)]
COSH_TAIL = [1 / math.factorial(2 * k + 4) for k in range(5, -1, -1)]
#: Taylor series of (e^r - 1 - r) / r^2, highest degree first (|r| <= ln2/2: 2^-32).
EXP_TAIL = [1 / math.factorial(k) for k in range(8, 1, -1)]


def _half_exp_pair(b: LLBuilder, ax: SSAValue) -> tuple[SSAValue, SSAValue]:
    """e^ax / 2 as an f32 pair (about 2^-28 relative), for 0 <= ax <= 90; the
    exponent is applied exactly, so it overflows only where the result does."""
    n = b.intrinsic("llvm.rint.f32", [b.fmul(ax, b.const(INV_LN2, f32))], f32)
    # r = ax - n ln2 as a pair: the first step is exact, the second one TwoSum.
    r1 = b.fma(n, b.const(-LN2_HI, f32), ax)
    p = b.fmul(n, b.const(LN2_LO, f32))
    p_err = b.fma(n, b.const(LN2_LO, f32), b.fneg(p))
    r_hi, r_err = two_sum(b, r1, b.fneg(p))
    r_lo = b.fsub(r_err, p_err)
    # e^r = (1 + r_hi) + (r_lo (1 + r_hi) + r_hi^2 P(r_hi)), 1 + r_hi as a pair.
    one = b.const(1.0, f32)
    e_hi = b.fadd(one, r_hi)
    e_err = b.fadd(b.fsub(one, e_hi), r_hi)
    tail = b.fma(b.fmul(r_hi, r_hi), horner(b, r_hi, EXP_TAIL), b.fma(r_lo, r_hi, r_lo))
    e_hi, e_lo = fast_two_sum(b, e_hi, b.fadd(e_err, tail))  # renormalized
    # Times 2^(n-1), in two exact steps (n - 1 is up to 129).
    k = b.sub(b.intrinsic("llvm.nvvm.f2i.rz", [n], i32), b.const(1, i32))
    half = b.ashr(k, b.const(1, i32))
    s1, s2 = _pow2_int(b, half), _pow2_int(b, b.sub(k, half))
    return b.fmul(b.fmul(e_hi, s1), s2), b.fmul(b.fmul(e_lo, s1), s2)


def _hyperbolic(b: LLBuilder, x: SSAValue, odd: bool) -> SSAValue:
    """sinh (odd) or cosh of |x|: Taylor series below 1, e^|x|/2 -/+ e^-|x|/2 above;
    sinh then takes the sign of x."""
    ax = b.intrinsic("llvm.fabs.f32", [x], f32)
    x2 = b.fmul(ax, ax)
    x2_err = b.fma(ax, ax, b.fneg(x2))  # ax^2 = x2 + x2_err exactly
    one = b.const(1.0, f32)
    if odd:
        small, _ = odd_series_pair(b, ax, x2, x2_err, 1, SINH_TAIL, b.const(0.0, f32))
    else:
        # 1 + x^2/2 as a pair, then the x^2 rounding error and the x^4 tail.
        half = b.fmul(x2, b.const(0.5, f32))
        c_hi = b.fadd(one, half)
        c_err = b.fadd(b.fsub(one, c_hi), half)
        tail = b.fma(b.fmul(x2, x2), horner(b, x2, COSH_TAIL), b.fmul(x2_err, b.const(0.5, f32)))
        small = b.fadd(c_hi, b.fadd(c_err, tail))
    clamped = b.intrinsic("llvm.minnum.f32", [ax, b.const(90.0, f32)], f32)
    a_hi, a_lo = _half_exp_pair(b, clamped)
    # e^-|x| / 2 = 1 / (4 (e^|x| / 2)), up to 0.14 of the result above 1: as the
    # quotient plus its correction (exact residual, a_lo), summed with a_hi exactly.
    quarter = b.const(0.25, f32)
    inverse = b.fdiv(quarter, a_hi)
    residual = b.fma(b.fneg(inverse), a_lo, b.fma(b.fneg(inverse), a_hi, quarter))
    inverse_lo = b.fmul(b.fmul(residual, inverse), b.const(4.0, f32))
    if odd:
        inverse, inverse_lo = b.fneg(inverse), b.fneg(inverse_lo)
    l_hi, l_err = fast_two_sum(b, a_hi, inverse)
    large = b.fadd(l_hi, b.fadd(b.fadd(l_err, a_lo), inverse_lo))
    large = b.select(b.fcmp("oeq", a_hi, b.const(math.inf, f32)), a_hi, large)  # not inf - inf
    result = b.select(b.fcmp("olt", ax, one), small, large)
    if odd:
        result = b.intrinsic("llvm.copysign.f32", [result, x], f32)
    return b.select(b.fcmp("uno", x, x), x, result)


def sinh_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    return _hyperbolic(b, x, odd=True)


def cosh_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    return _hyperbolic(b, x, odd=False)


# ---------------------------------------------------------------------------
# pow.
# ---------------------------------------------------------------------------

#: 2 atanh(s) / (s ln 2) = (2 / ln 2)(1 + s^2/3 + s^4/5 + ...) in s^2, highest first
#: (|s| <= 3 - 2 sqrt 2: truncated below 2^-45).
LOG2_ATANH = [2 / ((2 * k + 1) * math.log(2)) for k in range(8, -1, -1)]
#: 2^f = sum (f ln 2)^k / k!, highest first (|f| <= 1/2: truncated below 2^-42).
EXP2_SERIES = [math.log(2) ** k / math.factorial(k) for k in range(11, -1, -1)]
SQRT_HALF_F64_BITS = f64_bits(math.sqrt(0.5))


def _log2_f64(b: LLBuilder, a: SSAValue) -> SSAValue:
    """log2 a for a finite positive f64 (a widened f32: always normal in f64), to
    about 2^-50 relative: a = 2^e m with m in [sqrt(1/2), sqrt(2)), and
    log2 m = (2 / ln 2) atanh((m - 1) / (m + 1))."""
    bits = b.bitcast(a, i64)
    shifted = b.sub(bits, b.const(SQRT_HALF_F64_BITS, i64))
    e = b.ashr(shifted, b.const(52, i64))
    m = b.bitcast(b.sub(bits, b.shl(e, b.const(52, i64))), f64)
    one = b.const(1.0, f64)
    s = b.fdiv(b.fsub(m, one), b.fadd(m, one))  # m - 1 is exact
    poly = b.fmul(horner_f64(b, b.fmul(s, s), LOG2_ATANH), s)
    return b.fadd(b.sitofp(e, f64), poly)


def _exp2_f64_to_f32(b: LLBuilder, z: SSAValue) -> SSAValue:
    """2^z rounded once to f32 (z an f64; +-inf and out-of-range z saturate)."""
    z = b.intrinsic("llvm.maxnum.f64", [z, b.const(-400.0, f64)], f64)
    z = b.intrinsic("llvm.minnum.f64", [z, b.const(400.0, f64)], f64)
    n = b.intrinsic("llvm.rint.f64", [z], f64)
    f = b.fsub(z, n)  # exact, |f| <= 1/2
    p = horner_f64(b, f, EXP2_SERIES)
    biased = b.add(b.intrinsic("llvm.nvvm.d2ll.rz", [n], i64), b.const(1023, i64))
    scale = b.bitcast(b.shl(biased, b.const(52, i64)), f64)
    return b.fptrunc(b.fmul(p, scale), f32)


def pow_f32(b: LLBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """x^y = 2^(y log2 |x|) in f64 (|y log2 |x|| <= 150 where the result is finite and
    nonzero, so f64 keeps it within 2^-40 relative), with the C99 special cases."""
    ax = b.intrinsic("llvm.fabs.f32", [x], f32)
    zero, inf = b.const(0.0, f32), b.const(math.inf, f32)
    log = _log2_f64(b, b.fpext(ax, f64))
    log = b.select(b.fcmp("oeq", ax, zero), b.const(-math.inf, f64), log)
    log = b.select(b.fcmp("oeq", ax, inf), b.const(math.inf, f64), log)
    # y * log2|x| is +-inf for |x| in {0, inf}, which 2^z saturates correctly.
    magnitude = _exp2_f64_to_f32(b, b.fmul(b.fpext(y, f64), log))
    one = b.const(1.0, f32)
    magnitude = b.select(b.fcmp("oeq", ax, one), one, magnitude)  # |x| = 1, y = +-inf
    # Odd integer exponents keep the sign of x (all |y| >= 2^24 are even).
    y_integer = b.fcmp("oeq", b.intrinsic("llvm.rint.f32", [y], f32), y)
    y_small = b.fcmp("olt", b.intrinsic("llvm.fabs.f32", [y], f32), b.const(16777216.0, f32))
    y_int = b.intrinsic("llvm.nvvm.f2i.rz", [y], i32)
    y_odd_bit = b.icmp("ne", b.and_(y_int, b.const(1, i32)), b.const(0, i32))
    y_odd = b.and_(b.and_(y_integer, y_small), y_odd_bit)
    sign = b.select(y_odd, b.and_(b.bitcast(x, i32), b.const(-0x80000000, i32)), b.const(0, i32))
    result = b.bitcast(b.or_(b.bitcast(magnitude, i32), sign), f32)
    # A finite negative base with a non-integer exponent, or a NaN operand: NaN.
    negative_finite = b.and_(b.fcmp("olt", x, zero), b.fcmp("ogt", x, b.const(-math.inf, f32)))
    invalid = b.and_(negative_finite, b.xor(y_integer, b.const(1, i1)))
    invalid = b.or_(invalid, b.fcmp("uno", x, y))
    result = b.select(invalid, b.const(math.nan, f32), result)
    # pow(x, +-0) = 1 and pow(1, y) = 1, even for NaN.
    return b.select(b.or_(b.fcmp("oeq", y, zero), b.fcmp("oeq", x, one)), one, result)
