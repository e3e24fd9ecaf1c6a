"""Accurate f64 exponential, logarithmic, hyperbolic and power functions and fmod
(tileir's own "libdevice" for doubles).

PTX has no f64 transcendental instruction (only `rcp`/`rsqrt.approx.f64` and the
IEEE `div`/`sqrt`), so every routine here is FMA arithmetic: Cody-Waite argument
reduction made exact by FMA, Taylor polynomials whose leading terms are carried as
double-doubles (unevaluated sums hi + lo of two f64), and one final rounding, with
IEEE behaviour at the edges (overflow to inf at the exact threshold, gradual
underflow through the subnormals, NaN in gives NaN out, C99's special values).
There is no per-element branching: every path is computed and one is selected.

- `exp`, `exp2`: x = n ln2 + r (|r| <= ln2/2, r as a pair, n ln2's high part exact),
  e^r - 1 as a pair (degree-14 Taylor, truncated below 2^-61), 1 + that rounded
  once and scaled by 2^n in two exact steps (so that subnormal results round once).
- `log`, `log2`: x = 2^e m with m in [sqrt(1/2), sqrt(2)), s = (m - 1)/(m + 1) as a
  pair, ln m = 2 atanh s = 2 s (1 + s^2/3 + s^4/5 + ...) with the first three levels
  of the Horner scheme in pairs (about 2^-70 relative: `pow` multiplies it by up to
  ~1100).
- `pow`: 2^(y log2|x|) with log2|x| and its product with y as pairs, then `exp2`'s
  core on the pair; C99 special cases as the f32 `pow`.
- `sinh`, `cosh`: below 1 the Taylor series with x^3/6 (x^2/2) as a pair; above,
  e^|x|/2 as a pair (the exponent applied exactly, so it overflows only where the
  result does) -/+ its reciprocal / 4 with an FMA residual correction.
- `tanh`: -t / (2 + t) with t = expm1(-2|x|) as a pair and the quotient corrected by
  its FMA residual.
- `fmod`: exact long division with a signed remainder, 49 quotient bits per step
  (nearest quotient from a reciprocal, remainder by one exact FMA).

Polynomial coefficients are the Taylor coefficients (exact rationals, rounded to
f64 once); ln 2 comes from the integer series 2 atanh(1/3) below.  Measured error
(tests/pytest/test_math_functions_f64.py, against long double references): see
docs/codegen.md.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from xdsl.dialects.builtin import f64, i1, i32, i64
from xdsl.ir import SSAValue

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.math_functions import fast_two_sum, two_sum

Pair = tuple[SSAValue, SSAValue]


# ---------------------------------------------------------------------------
# Constants.
# ---------------------------------------------------------------------------


def f64_pair(v: Fraction) -> tuple[float, float]:
    """A constant as hi + lo, both f64 (about 2^-106 relative)."""
    hi = float(v)
    return hi, float(v - Fraction(hi))


def _atanh_inverse(n: int, scale: int) -> int:
    """atanh(1/n) * 2^scale, truncated (a few units of 2^-scale)."""
    total, power, k = 0, (1 << scale) // n, 1
    while power:
        total += power // k
        power //= n * n
        k += 2
    return total


#: ln 2 = 2 atanh(1/3), to about 2^-395.
LN2 = Fraction(2 * _atanh_inverse(3, 400), 1 << 400)
LN2_PAIR = f64_pair(LN2)
LOG2E_PAIR = f64_pair(1 / LN2)
#: ln 2 with 42 significant bits, so that n LN2_HI is exact for |n| < 2^11, and
#: the rest (ln 2 to about 2^-97).
LN2_HI = float(Fraction(round(LN2 * (1 << 43)), 1 << 43))
LN2_MID = float(LN2 - Fraction(LN2_HI))
LOG2E = float(1 / LN2)

#: (e^r - 1 - r - r^2/2) / r^3 = sum r^(k-3) / k!, k = 3..14, highest first
#: (|r| <= ln2/2: truncated below 2^-61 relative).
EXPM1_TAIL = [1 / math.factorial(k) for k in range(14, 2, -1)]
#: Odd series: (sinh x - x - x^3/6) / x^5 = sum x^(2k-4) / (2k+1)!, k = 2..9, highest
#: first (|x| <= 1: truncated below 2^-65); sin's is the same with alternating signs.
SINH_TAIL = [1 / math.factorial(2 * k + 1) for k in range(9, 1, -1)]
#: Even series: (cosh x - 1 - x^2/2) / x^4 = sum x^(2k-4) / (2k)!, k = 2..10.
COSH_TAIL = [1 / math.factorial(2 * k) for k in range(10, 1, -1)]
SIXTH_PAIR = f64_pair(Fraction(1, 6))
#: atanh s / s = sum s^(2k) / (2k+1), k = 0..14 (|s| <= 3 - 2 sqrt 2: below 2^-71).
#: The levels k = 3..14 are f64, k = 0..2 pairs.
ATANH_TAIL = [1 / (2 * k + 1) for k in range(14, 2, -1)]
ATANH_PAIR_LEVELS = [f64_pair(Fraction(1, 2 * k + 1)) for k in (2, 1, 0)]
#: Bits of sqrt(1/2) as an f64: m = x / 2^e lands in [sqrt(1/2), sqrt(2)).
SQRT_HALF_BITS = 0x3FE6A09E667F3BCD
TWO_POW_54 = 2.0**54
SMALLEST_NORMAL = 2.0**-1022


# ---------------------------------------------------------------------------
# Helpers.
# ---------------------------------------------------------------------------


def const(b: LLBuilder, v: float) -> SSAValue:
    return b.const(v, f64)


def fabs(b: LLBuilder, x: SSAValue) -> SSAValue:
    return b.intrinsic("llvm.fabs.f64", [x], f64)


def clamp(b: LLBuilder, x: SSAValue, lo: float, hi: float) -> SSAValue:
    """x clamped to [lo, hi] (NaN becomes lo: callers select NaN back)."""
    x = b.intrinsic("llvm.maxnum.f64", [x, const(b, lo)], f64)
    return b.intrinsic("llvm.minnum.f64", [x, const(b, hi)], f64)


def two_product(b: LLBuilder, x: SSAValue, y: SSAValue) -> Pair:
    """p + e = x y exactly (barring underflow), by one FMA."""
    p = b.fmul(x, y)
    return p, b.fma(x, y, b.fneg(p))


def horner_fma(b: LLBuilder, x: SSAValue, coeffs: Sequence[float]) -> SSAValue:
    """The f64 polynomial with `coeffs` (highest degree first) at x, by FMA."""
    acc = const(b, coeffs[0])
    for c in coeffs[1:]:
        acc = b.fma(acc, x, const(b, c))
    return acc


def mul_pair_const(b: LLBuilder, v: Pair, c: tuple[float, float]) -> Pair:
    """(v_hi + v_lo) (c_hi + c_lo) as a pair, to about 2^-104 relative."""
    c_hi = const(b, c[0])
    p, p_err = two_product(b, v[0], c_hi)
    rest = b.fma(v[1], c_hi, b.fma(v[0], const(b, c[1]), p_err))
    return fast_two_sum(b, p, rest)


def pow2(b: LLBuilder, k: SSAValue) -> SSAValue:
    """2^k as an f64, for an i64 k in [-1022, 1023]."""
    return b.bitcast(b.shl(b.add(k, b.const(1023, i64)), b.const(52, i64)), f64)


def scale(b: LLBuilder, v: SSAValue, n: SSAValue) -> SSAValue:
    """v 2^n for an integral f64 n in [-2044, 2046], in two steps, each exact until
    the last one rounds once into the subnormals or overflows."""
    return scale_by(b, v, b.intrinsic("llvm.nvvm.d2ll.rz", [n], i64))


def scale_by(b: LLBuilder, v: SSAValue, k: SSAValue) -> SSAValue:
    """v 2^k for an i64 k in [-2044, 2046] (as `scale`)."""
    half = b.ashr(k, b.const(1, i64))
    return b.fmul(b.fmul(v, pow2(b, half)), pow2(b, b.sub(k, half)))


def is_nan(b: LLBuilder, x: SSAValue) -> SSAValue:
    return b.fcmp("uno", x, x)


# ---------------------------------------------------------------------------
# e^r - 1 and the exponentials.
# ---------------------------------------------------------------------------


def expm1_reduced(b: LLBuilder, r_hi: SSAValue, r_lo: SSAValue) -> Pair:
    """e^r - 1 as a pair, for r = r_hi + r_lo with |r| <= ~0.36 and |r_lo| at most
    an ulp of r_hi: r + r^2/2 (the square exact by FMA) + r^3 P(r) + r_lo (1 + r),
    about 2^-57 relative."""
    sq, sq_err = two_product(b, r_hi, r_hi)
    half, half_err = b.fmul(sq, const(b, 0.5)), b.fmul(sq_err, const(b, 0.5))
    cube = b.fmul(r_hi, sq)
    tail = b.fma(cube, horner_fma(b, r_hi, EXPM1_TAIL), half_err)
    tail = b.fma(r_lo, r_hi, b.fadd(tail, r_lo))
    s, s_err = fast_two_sum(b, r_hi, half)
    return fast_two_sum(b, s, b.fadd(s_err, tail))


def reduce_ln2(b: LLBuilder, x: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """x = n ln2 + r for a finite |x| < 1500: (n as an f64, r_hi, r_lo).  x - n LN2_HI
    is exact (n LN2_HI is, and it is within a factor 2 of x: Sterbenz); the rest of
    n ln2 is subtracted as a pair."""
    n = b.intrinsic("llvm.rint.f64", [b.fmul(x, const(b, LOG2E))], f64)
    r1 = b.fma(n, const(b, -LN2_HI), x)
    t, t_err = two_product(b, n, const(b, LN2_MID))
    r_hi, r_err = two_sum(b, r1, b.fneg(t))
    return n, *fast_two_sum(b, r_hi, b.fsub(r_err, t_err))


def one_plus(b: LLBuilder, p: Pair) -> Pair:
    """1 + p as a pair (|p| < 1)."""
    s, s_err = fast_two_sum(b, const(b, 1.0), p[0])
    return s, b.fadd(s_err, p[1])


def exp_of_reduced(b: LLBuilder, n: SSAValue, r_hi: SSAValue, r_lo: SSAValue) -> SSAValue:
    """2^n e^r, rounded once.

    A subnormal result (e^r < B = 2^(-1022 - n)) must be rounded to a multiple of
    2^-1074, i.e. e^r to a multiple of g = 2^(-1074 - n) = ulp(B), not first to 53
    bits: adding B to the pair (the sum stays in [B, 2B)) does that rounding,
    subtracting B is exact, and the scaling by 2^n then is too."""
    hi, lo = one_plus(b, expm1_reduced(b, r_hi, r_lo))
    k = b.intrinsic("llvm.nvvm.d2ll.rz", [n], i64)
    shifter = b.sub(b.const(-1022, i64), k)
    shifter = pow2(b, b.intrinsic("llvm.smax.i64", [shifter, b.const(-1000, i64)], i64))
    shifter = b.select(b.fcmp("olt", hi, shifter), shifter, const(b, 0.0))
    t, t_err = two_sum(b, hi, shifter)
    rounded = b.fsub(b.fadd(t, b.fadd(t_err, lo)), shifter)
    return scale_by(b, rounded, k)


def exp_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    """e^x.  Clamping x to [-746, 710] keeps n in range; beyond, the result is 0
    (below e^-745.13, half the smallest subnormal) or inf anyway."""
    n, r_hi, r_lo = reduce_ln2(b, clamp(b, x, -746.0, 710.0))
    return b.select(is_nan(b, x), x, exp_of_reduced(b, n, r_hi, r_lo))


def _times_ln2(b: LLBuilder, f_hi: SSAValue, f_lo: SSAValue) -> Pair:
    """(f_hi + f_lo) ln 2 as a pair (|f| <= 1/2)."""
    return mul_pair_const(b, (f_hi, f_lo), LN2_PAIR)


def exp2_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    """2^x = 2^n e^(f ln2), x = n + f exactly (|f| <= 1/2)."""
    xc = clamp(b, x, -1080.0, 1030.0)
    n = b.intrinsic("llvm.rint.f64", [xc], f64)
    r_hi, r_lo = _times_ln2(b, b.fsub(xc, n), const(b, 0.0))
    return b.select(is_nan(b, x), x, exp_of_reduced(b, n, r_hi, r_lo))


# ---------------------------------------------------------------------------
# Logarithms.
# ---------------------------------------------------------------------------


def _pair_horner_step(b: LLBuilder, u: Pair, a: Pair, c: tuple[float, float]) -> Pair:
    """c + u a as a pair (|u a| < |c|)."""
    p, p_err = two_product(b, u[0], a[0])
    p_lo = b.fma(u[1], a[0], b.fma(u[0], a[1], p_err))
    t, t_err = fast_two_sum(b, const(b, c[0]), p)
    return fast_two_sum(b, t, b.fadd(b.fadd(t_err, p_lo), const(b, c[1])))


def _log_parts(b: LLBuilder, x: SSAValue) -> tuple[SSAValue, Pair]:
    """For a finite x > 0: (e as an f64, ln m as a pair) with x = 2^e m, m in
    [sqrt(1/2), sqrt(2)), ln m to about 2^-70 relative."""
    tiny = b.fcmp("olt", x, const(b, SMALLEST_NORMAL))
    xs = b.select(tiny, b.fmul(x, const(b, TWO_POW_54)), x)
    bits = b.bitcast(xs, i64)
    e = b.ashr(b.sub(bits, b.const(SQRT_HALF_BITS, i64)), b.const(52, i64))
    m = b.bitcast(b.sub(bits, b.shl(e, b.const(52, i64))), f64)
    e = b.sub(e, b.select(tiny, b.const(54, i64), b.const(0, i64)))
    one = const(b, 1.0)
    f = b.fsub(m, one)  # exact (Sterbenz)
    d_hi, d_lo = two_sum(b, m, one)
    s = b.fdiv(f, d_hi)
    s_lo = b.fdiv(b.fma(b.fneg(s), d_lo, b.fma(b.fneg(s), d_hi, f)), d_hi)
    u_hi, u_err = two_product(b, s, s)
    u = (u_hi, b.fma(b.fmul(s, const(b, 2.0)), s_lo, u_err))
    a: Pair = (horner_fma(b, u_hi, ATANH_TAIL), const(b, 0.0))
    for c in ATANH_PAIR_LEVELS:
        a = _pair_horner_step(b, u, a, c)
    # ln m = 2 s (s as a pair) atanh(s)/s.
    p, p_err = two_product(b, s, a[0])
    p_lo = b.fma(s_lo, a[0], b.fma(s, a[1], p_err))
    two = const(b, 2.0)
    return b.sitofp(e, f64), (b.fmul(p, two), b.fmul(p_lo, two))


def _log_edges(b: LLBuilder, x: SSAValue, result: SSAValue) -> SSAValue:
    """log(0) = -inf, log(x<0) = NaN, log(inf) = inf, NaN -> NaN."""
    result = b.select(b.fcmp("oeq", x, const(b, 0.0)), const(b, -math.inf), result)
    result = b.select(b.fcmp("olt", x, const(b, 0.0)), const(b, math.nan), result)
    result = b.select(b.fcmp("oeq", x, const(b, math.inf)), x, result)
    return b.select(is_nan(b, x), x, result)


def log_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    """ln x = e ln2 + ln m (e LN2_HI exact)."""
    e, (l_hi, l_lo) = _log_parts(b, x)
    h, h_err = two_sum(b, b.fmul(e, const(b, LN2_HI)), l_hi)
    rest = b.fadd(h_err, b.fma(e, const(b, LN2_MID), l_lo))
    return _log_edges(b, x, b.fadd(h, rest))


def log2_pair(b: LLBuilder, x: SSAValue) -> Pair:
    """log2 x = e + ln m log2(e) as a pair, for a finite x > 0."""
    e, lm = _log_parts(b, x)
    l_hi, l_lo = mul_pair_const(b, lm, LOG2E_PAIR)
    h, h_err = two_sum(b, e, l_hi)
    return fast_two_sum(b, h, b.fadd(h_err, l_lo))


def log2_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    hi, lo = log2_pair(b, x)
    return _log_edges(b, x, b.fadd(hi, lo))


# ---------------------------------------------------------------------------
# pow.
# ---------------------------------------------------------------------------


def _y_is_odd_integer(b: LLBuilder, y: SSAValue, y_integer: SSAValue) -> SSAValue:
    """y an odd integer (all |y| >= 2^53 are even)."""
    y_small = b.fcmp("olt", fabs(b, y), const(b, 2.0**53))
    y_int = b.intrinsic("llvm.nvvm.d2ll.rz", [y], i64)
    odd_bit = b.icmp("ne", b.and_(y_int, b.const(1, i64)), b.const(0, i64))
    return b.and_(b.and_(y_integer, y_small), odd_bit)


def pow_magnitude(b: LLBuilder, ax: SSAValue, y: SSAValue) -> SSAValue:
    """|x|^y = 2^(y log2|x|) for |x| >= 0 (also 0 and inf), y not NaN: z = y log2|x|
    as a pair (|z| <= 1100 where the result is finite and nonzero; log2|x| to 2^-69
    keeps z within 2^-58 absolute), n = rint(z), 2^(z - n) by exp's core."""
    zero, inf = const(b, 0.0), const(b, math.inf)
    l_hi, l_lo = log2_pair(b, ax)
    edge = b.or_(b.fcmp("oeq", ax, zero), b.fcmp("oeq", ax, inf))
    l_hi = b.select(b.fcmp("oeq", ax, zero), const(b, -math.inf), l_hi)
    l_hi = b.select(b.fcmp("oeq", ax, inf), inf, l_hi)
    l_lo = b.select(edge, zero, l_lo)
    z_hi, z_err = two_product(b, y, l_hi)
    z_lo = b.fma(y, l_lo, z_err)
    # Beyond +-2000 (or inf) the result is 0 or inf: drop the low part.
    big = b.fcmp("uge", fabs(b, z_hi), const(b, 2000.0))
    z_lo = b.select(big, zero, z_lo)
    z_hi = clamp(b, z_hi, -2000.0, 2000.0)
    n = b.intrinsic("llvm.rint.f64", [z_hi], f64)
    f_hi, f_lo = two_sum(b, b.fsub(z_hi, n), z_lo)
    r_hi, r_lo = _times_ln2(b, f_hi, f_lo)
    return exp_of_reduced(b, n, r_hi, r_lo)


def _apply_sign(b: LLBuilder, magnitude: SSAValue, x: SSAValue, odd: SSAValue) -> SSAValue:
    sign = b.select(odd, b.and_(b.bitcast(x, i64), b.const(-(1 << 63), i64)), b.const(0, i64))
    return b.bitcast(b.or_(b.bitcast(magnitude, i64), sign), f64)


def pow_f64(b: LLBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """x^y with the C99 special cases (as the f32 `pow`)."""
    ax = fabs(b, x)
    one, zero = const(b, 1.0), const(b, 0.0)
    magnitude = pow_magnitude(b, ax, y)
    magnitude = b.select(b.fcmp("oeq", ax, one), one, magnitude)  # |x| = 1, y = +-inf
    y_integer = b.fcmp("oeq", b.intrinsic("llvm.rint.f64", [y], f64), y)
    result = _apply_sign(b, magnitude, x, _y_is_odd_integer(b, y, y_integer))
    negative_finite = b.and_(b.fcmp("olt", x, zero), b.fcmp("ogt", x, const(b, -math.inf)))
    invalid = b.and_(negative_finite, b.xor(y_integer, b.const(1, i1)))
    invalid = b.or_(invalid, b.fcmp("uno", x, y))
    result = b.select(invalid, const(b, math.nan), result)
    return b.select(b.or_(b.fcmp("oeq", y, zero), b.fcmp("oeq", x, one)), one, result)


def powi_f64(b: LLBuilder, x: SSAValue, n: SSAValue) -> SSAValue:
    """x^n for an integer n: |x|^n (n converted to f64) with the sign of x when n is
    odd, read from the integer itself."""
    magnitude = pow_magnitude(b, fabs(b, x), b.sitofp(n, f64))
    one = const(b, 1.0)
    magnitude = b.select(b.fcmp("oeq", fabs(b, x), one), one, magnitude)
    magnitude = b.select(b.icmp("eq", n, b.const(0, n.type)), one, magnitude)  # x^0 = 1
    odd = b.icmp("ne", b.and_(n, b.const(1, n.type)), b.const(0, n.type))
    result = _apply_sign(b, magnitude, x, odd)
    return b.select(b.and_(is_nan(b, x), b.icmp("ne", n, b.const(0, n.type))), x, result)


# ---------------------------------------------------------------------------
# Series with a pair-precise leading term (shared with the circular functions).
# ---------------------------------------------------------------------------


def odd_series(
    b: LLBuilder, r_hi: SSAValue, r_lo: SSAValue, sign: int, tail: Sequence[float]
) -> Pair:
    """r + sign r^3/6 + r^5 tail(r^2) as a pair (sinh: sign +1, sin: -1, the tail's
    signs to match), r = r_hi + r_lo; r^3/6 is formed as a pair product."""
    u, u_err = two_product(b, r_hi, r_hi)
    cube, cube_err = two_product(b, r_hi, u)
    cube_err = b.fma(r_hi, u_err, cube_err)
    sixth = (sign * SIXTH_PAIR[0], sign * SIXTH_PAIR[1])
    t, t_err = two_product(b, cube, const(b, sixth[0]))
    t_err = b.fma(cube_err, const(b, sixth[0]), b.fma(cube, const(b, sixth[1]), t_err))
    rest = b.fmul(b.fmul(cube, u), horner_fma(b, u, tail))
    # r_lo times the derivative 1 + sign r^2/2.
    lo_part = b.fma(b.fmul(r_lo, u), const(b, sign * 0.5), r_lo)
    s, s_err = fast_two_sum(b, r_hi, t)
    return fast_two_sum(b, s, b.fadd(b.fadd(s_err, t_err), b.fadd(rest, lo_part)))


def even_series(
    b: LLBuilder, r_hi: SSAValue, r_lo: SSAValue, sign: int, tail: Sequence[float]
) -> Pair:
    """1 + sign r^2/2 + r^4 tail(r^2) as a pair (cosh: +1, cos: -1), r^2 exact."""
    u, u_err = two_product(b, r_hi, r_hi)
    half = const(b, sign * 0.5)
    h, h_err = b.fmul(u, half), b.fmul(u_err, half)
    c, c_err = fast_two_sum(b, const(b, 1.0), h)
    rest = b.fmul(b.fmul(u, u), horner_fma(b, u, tail))
    # r_lo times the derivative sign r.
    lo_part = b.fmul(b.fmul(r_hi, r_lo), const(b, float(sign)))
    return fast_two_sum(b, c, b.fadd(b.fadd(c_err, h_err), b.fadd(rest, lo_part)))


# ---------------------------------------------------------------------------
# sinh, cosh, tanh.
# ---------------------------------------------------------------------------


def _half_exp_pair(b: LLBuilder, ax: SSAValue) -> Pair:
    """e^ax / 2 as a pair, for 0 <= ax <= 711 (inf beyond ~710.48)."""
    n, r_hi, r_lo = reduce_ln2(b, ax)
    hi, lo = one_plus(b, expm1_reduced(b, r_hi, r_lo))
    n1 = b.fsub(n, const(b, 1.0))
    return scale(b, hi, n1), scale(b, lo, n1)


def _hyperbolic(b: LLBuilder, x: SSAValue, odd: bool) -> SSAValue:
    ax = fabs(b, x)
    zero = const(b, 0.0)
    if odd:
        small = b.fadd(*odd_series(b, ax, zero, 1, SINH_TAIL))
    else:
        small = b.fadd(*even_series(b, ax, zero, 1, COSH_TAIL))
    a_hi, a_lo = _half_exp_pair(b, clamp(b, ax, 0.0, 711.0))
    # e^-|x| / 2 = 1 / (4 (e^|x| / 2)): the quotient plus its exact FMA residual.
    quarter = const(b, 0.25)
    inverse = b.fdiv(quarter, a_hi)
    residual = b.fma(b.fneg(inverse), a_lo, b.fma(b.fneg(inverse), a_hi, quarter))
    inverse_lo = b.fmul(b.fmul(residual, inverse), const(b, 4.0))
    if odd:
        inverse, inverse_lo = b.fneg(inverse), b.fneg(inverse_lo)
    l_hi, l_err = fast_two_sum(b, a_hi, inverse)
    large = b.fadd(l_hi, b.fadd(b.fadd(l_err, a_lo), inverse_lo))
    large = b.select(b.fcmp("oeq", a_hi, const(b, math.inf)), a_hi, large)  # not inf - inf
    result = b.select(b.fcmp("olt", ax, const(b, 1.0)), small, large)
    if odd:
        result = b.intrinsic("llvm.copysign.f64", [result, x], f64)
    return b.select(is_nan(b, x), x, result)


def sinh_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    return _hyperbolic(b, x, odd=True)


def cosh_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    return _hyperbolic(b, x, odd=False)


def tanh_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    """tanh|x| = -t / (2 + t), t = e^(-2|x|) - 1 as a pair: 2^n (1 + p) - 1 =
    (2^n - 1) + 2^n p, 2^n - 1 an exact pair (n <= 0).  Beyond |x| = 20 tanh rounds
    to 1, which the clamp gives."""
    w = b.fmul(clamp(b, fabs(b, x), 0.0, 20.0), const(b, -2.0))
    n, r_hi, r_lo = reduce_ln2(b, w)
    p_hi, p_lo = expm1_reduced(b, r_hi, r_lo)
    power = pow2(b, b.intrinsic("llvm.nvvm.d2ll.rz", [n], i64))
    a_hi, a_lo = fast_two_sum(b, const(b, -1.0), power)
    s, s_err = two_sum(b, a_hi, b.fmul(power, p_hi))
    t_hi, t_lo = fast_two_sum(b, s, b.fadd(b.fadd(s_err, a_lo), b.fmul(power, p_lo)))
    d_hi, d_lo = fast_two_sum(b, const(b, 2.0), t_hi)
    d_lo = b.fadd(d_lo, t_lo)
    q = b.fdiv(b.fneg(t_hi), d_hi)
    residual = b.fma(b.fneg(q), d_hi, b.fneg(t_hi))
    residual = b.fsub(residual, b.fma(q, d_lo, t_lo))
    t = b.fadd(q, b.fdiv(residual, d_hi))
    result = b.intrinsic("llvm.copysign.f64", [t, x], f64)
    return b.select(is_nan(b, x), x, result)


# ---------------------------------------------------------------------------
# fmod.
# ---------------------------------------------------------------------------

#: Quotient bits retired per step, and steps for |x| / |y| < 2^2098.
FMOD_STEP_BITS = 49
FMOD_STEPS = -(-2098 // FMOD_STEP_BITS)


def exponent_and_significand(b: LLBuilder, v: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(e, m) with v = m 2^e, m in [1, 2), for a finite f64 v > 0 (subnormals
    normalized first); e an i32."""
    tiny = b.fcmp("olt", v, const(b, SMALLEST_NORMAL))
    bits = b.bitcast(b.select(tiny, b.fmul(v, const(b, TWO_POW_54)), v), i64)
    biased = b.trunc(b.lshr(bits, b.const(52, i64)), i32)
    e = b.sub(biased, b.const(1023, i32))
    e = b.sub(e, b.select(tiny, b.const(54, i32), b.const(0, i32)))
    m_bits = b.or_(b.and_(bits, b.const((1 << 52) - 1, i64)), b.const(1023 << 52, i64))
    return e, b.bitcast(m_bits, f64)


def fmod_f64(b: LLBuilder, x: SSAValue, y: SSAValue) -> SSAValue:
    """C fmod: x - trunc(x / y) y, exactly, with the sign of x.

    Long division of X = |x| by Y = |y| with a signed remainder r (|r| < 3/4 of the
    divisor).  Step k divides by Y 2^j, j = max(D - 49 (k + 1), 0) (D the difference
    of the exponents), with the nearest quotient n = rint(r (1/Ym) 2^-(ey + j)) (Y =
    Ym 2^ey, Ym in [1, 2); the reciprocal's and product's roundings move it by at
    most 1/4) and r -= n Y 2^j by one FMA.  Every value is an integer multiple of
    Y 2^j's last-place unit (X is, as j <= D) below 2^53 of them, so the FMA is
    exact; a final negative r gets Y added (exact too).
    """
    ax, ay = fabs(b, x), fabs(b, y)
    ey, ym = exponent_and_significand(b, ay)
    d = b.sub(exponent_and_significand(b, ax)[0], ey)
    inverse = b.fdiv(const(b, 1.0), ym)
    r = ax
    for k in range(FMOD_STEPS):
        j = b.intrinsic(
            "llvm.smax.i32",
            [b.sub(d, b.const(FMOD_STEP_BITS * (k + 1), i32)), b.const(0, i32)],
            i32,
        )
        # Y 2^j = Ym 2^(ey + j) and r / (Y 2^j) = r (1/Ym) 2^-(ey + j), ey + j in
        # [-1074, 1023] (Y 2^j <= X): each power of two in two factors.
        exponent = b.sext(b.add(ey, j), i64)
        divisor = scale_by(b, ym, exponent)
        estimate = scale_by(b, b.fmul(r, inverse), b.sub(b.const(0, i64), exponent))
        n = b.intrinsic("llvm.rint.f64", [estimate], f64)
        r = b.fma(b.fneg(n), divisor, r)
    r = b.select(b.fcmp("olt", r, const(b, 0.0)), b.fadd(r, ay), r)
    result = b.intrinsic("llvm.copysign.f64", [r, x], f64)
    # |y| = inf, x finite: x.  y = 0, x infinite, or a NaN operand: NaN.
    result = b.select(b.fcmp("oeq", ay, const(b, math.inf)), x, result)
    invalid = b.or_(b.fcmp("oeq", ay, const(b, 0.0)), b.fcmp("oeq", ax, const(b, math.inf)))
    invalid = b.or_(invalid, b.fcmp("uno", x, y))
    return b.select(invalid, const(b, math.nan), result)
