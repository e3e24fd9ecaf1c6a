"""Accurate f32 circular functions: sin, cos, tan and atan2 (tileir's own "libdevice").

**sin, cos, tan.**  The argument is reduced exactly, for every f32, by the
Payne-Hanek method: |x| = m 2^E with m a 24-bit integer, and the bits of 2/pi that
can matter for m 2^E 2/pi modulo 4 (a 96-bit window of a 224-bit table of 2/pi,
chosen by E with selects) are multiplied by m with 64-bit integer products.  That
gives the quadrant q and the remainder as a 62-bit fixed-point fraction of pi/2
whose error is below 2^-61 quarter turns, far below the closest any f32 comes to a
multiple of pi/2 (about 2^-29 rad).  The remainder r (|r| <= pi/4) is carried as an
unevaluated sum of two f32 (`r_hi + r_lo`), and sin r and cos r are evaluated as
f32 pairs from their Taylor series (truncated below 2^-36 relative), so that only
the last rounding matters.  tan divides the pairs, correcting the rounded quotient
with its exact FMA residual.  Below pi/4 no reduction is needed (r = |x|, exact).
There is no per-element branching: both paths are computed and one is selected.

**atan2.**  Computed in f64 (exact on f32 operands): with a <= b the magnitudes of
the two operands, t = a/b is reduced by the nearest c = k/8 through
atan t = atan c + atan((a - c b) / (b + c a)) (one f64 division; |t'| <= 1/16, so
six Taylor terms reach 2^-48), then the octant is restored (pi/2 - t when
|num| > |den|, pi - t when den is negative or -0) and the result rounded once.

Measured error over the whole f32 range (tests/pytest/test_math_functions.py and
800k-input runs): at most 0.55 ulp for sin, cos and tan, 0.50 ulp for atan2.
"""

from __future__ import annotations

import math
from fractions import Fraction

from xdsl.dialects.builtin import f32, f64, i32, i64
from xdsl.ir import SSAValue

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.math_functions import (
    SIXTH,
    f32_pair,
    fast_two_sum,
    horner,
    horner_f64,
    odd_series_pair,
)

# ---------------------------------------------------------------------------
# Constants, derived here from an integer Machin formula.
# ---------------------------------------------------------------------------


def _arctan_inverse(n: int, scale: int) -> int:
    """atan(1/n) * 2^scale, truncated (the error is a few units of 2^-scale)."""
    total, power, k, sign = 0, (1 << scale) // n, 1, 1
    while power:
        total += sign * (power // k)
        power //= n * n
        k += 2
        sign = -sign
    return total


def pi_fixed(bits: int) -> int:
    """floor(pi * 2^bits), from Machin's pi = 16 atan(1/5) - 4 atan(1/239)."""
    guard = 32
    scale = bits + guard
    pi_scaled = 16 * _arctan_inverse(5, scale) - 4 * _arctan_inverse(239, scale)
    return pi_scaled >> guard


PI_BITS = 320
PI = Fraction(pi_fixed(PI_BITS), 1 << PI_BITS)  # pi within 2^-310

#: 2/pi as a 224-bit fraction: TWO_OVER_PI_WORDS[i] holds bits 32i .. 32i+31 of
#: floor(2^224 * 2/pi); the eighth word (bits 224..255) is 0 and pads the window.
TWO_OVER_PI_SCALE = 224
_TWO_OVER_PI = (1 << (TWO_OVER_PI_SCALE + 1 + PI_BITS)) // pi_fixed(PI_BITS)
TWO_OVER_PI_WORDS = [(_TWO_OVER_PI >> (32 * i)) & 0xFFFFFFFF for i in range(8)]
assert TWO_OVER_PI_WORDS[7] == 0 and TWO_OVER_PI_WORDS[6] >> 31 == 1


#: pi/2 * 2^-62 as an f32 pair: the weight of one unit of the 62-bit fraction.
QUARTER_UNIT_HI, QUARTER_UNIT_LO = f32_pair(PI / 2 / (1 << 62))

PI_F64 = float(PI)
HALF_PI_F64 = float(PI / 2)

#: Below this |x| (< pi/4) the argument needs no reduction.
NO_REDUCTION_BELOW = 0.78125

#: Taylor series of (sin r - r + r^3/6) / r^5 and (cos r - 1 + r^2/2) / r^4 in r^2,
#: highest degree first (truncated below 2^-36 relative on |r| <= pi/4).
SIN_TAIL = [(-1) ** k / math.factorial(2 * k + 5) for k in range(3, -1, -1)]
COS_TAIL = [(-1) ** k / math.factorial(2 * k + 4) for k in range(4, -1, -1)]

#: atan(k/8) for k = 0..8, and the Taylor series of (atan t - t) / t^3 in t^2.
ATAN_OF_EIGHTHS = [math.atan(k / 8) for k in range(9)]
ATAN_TAIL = [(-1) ** (k + 1) / (2 * k + 3) for k in range(4, -1, -1)]


# ---------------------------------------------------------------------------
# Helpers.
# ---------------------------------------------------------------------------


def _flip_sign(b: LLBuilder, v: SSAValue, sign_bit: SSAValue) -> SSAValue:
    """v with its sign bit xored with `sign_bit` (an i32 that is 0 or 0x80000000)."""
    return b.bitcast(b.xor(b.bitcast(v, i32), sign_bit), f32)


def _sign_of(b: LLBuilder, x: SSAValue) -> SSAValue:
    return b.and_(b.bitcast(x, i32), b.const(-0x80000000, i32))


def _bit(b: LLBuilder, v: SSAValue, k: int) -> SSAValue:
    """Bit k of the i32 `v`, as an i1."""
    return b.icmp("ne", b.and_(v, b.const(1 << k, i32)), b.const(0, i32))


# ---------------------------------------------------------------------------
# Argument reduction.
# ---------------------------------------------------------------------------


def _payne_hanek(b: LLBuilder, ax: SSAValue) -> tuple[SSAValue, SSAValue]:
    """For finite ax >= 1/2: (q, f) with ax * 2/pi = q + f 2^-62 (mod 4), q an i32 in
    [0, 4) and f an i64 in [-2^61, 2^61).

    ax = m 2^E.  Writing T = floor(2^224 2/pi), the 64 bits wanted are
    floor(m T 2^(E + 62 - 224)) mod 2^64; bits of T above position 162 - E + 64
    only add multiples of 2^64, bits below 162 - E - 32 add less than 2^-8.  So a
    96-bit window of T from bit b0 = 130 - E suffices (b0 in [26, 154] for E in
    [-24, 104]).
    """
    bits = b.bitcast(ax, i32)
    exponent = b.sub(b.lshr(bits, b.const(23, i32)), b.const(150, i32))
    exponent = b.intrinsic("llvm.smax.i32", [exponent, b.const(-24, i32)], i32)
    exponent = b.intrinsic("llvm.smin.i32", [exponent, b.const(104, i32)], i32)
    mantissa = b.or_(b.and_(bits, b.const(0x7FFFFF, i32)), b.const(0x800000, i32))
    start = b.sub(b.const(130, i32), exponent)
    word = b.lshr(start, b.const(5, i32))
    shift = b.zext(b.and_(start, b.const(31, i32)), i64)
    # Words word .. word+3 of the table, chosen by selects (word is 0..4).
    is_word = [b.icmp("eq", word, b.const(k, i32)) for k in range(1, 5)]
    chosen: list[SSAValue] = []
    for i in range(4):
        v = b.const(TWO_OVER_PI_WORDS[i], i64)
        for k in range(1, 5):
            v = b.select(is_word[k - 1], b.const(TWO_OVER_PI_WORDS[i + k], i64), v)
        chosen.append(v)

    def window_word(lo: SSAValue, hi: SSAValue) -> SSAValue:
        pair = b.or_(b.shl(hi, b.const(32, i64)), lo)
        return b.and_(b.lshr(pair, shift), b.const(0xFFFFFFFF, i64))

    low, mid, high = (window_word(chosen[i], chosen[i + 1]) for i in range(3))
    m = b.zext(mantissa, i64)
    y = b.add(
        b.add(b.shl(b.mul(m, high), b.const(32, i64)), b.mul(m, mid)),
        b.lshr(b.mul(m, low), b.const(32, i64)),
    )
    # Round to the nearest quadrant: q = (y + 2^61) >> 62, f = y - q 2^62.
    rounded = b.add(y, b.const(1 << 61, i64))
    q = b.trunc(b.lshr(rounded, b.const(62, i64)), i32)
    f = b.sub(b.and_(rounded, b.const((1 << 62) - 1, i64)), b.const(1 << 61, i64))
    return q, f


def reduce_quarter_turns(b: LLBuilder, ax: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """|x| = q pi/2 + r (q mod 4, an i32), r = r_hi + r_lo with |r| <= pi/4."""
    q, f = _payne_hanek(b, ax)
    # f as an f32 pair (exact to 2^-48), times pi/2 2^-62 as an f32 pair.
    f_hi = b.sitofp(f, f32)
    f_back = b.intrinsic("llvm.nvvm.f2ll.rz", [f_hi], i64)
    f_lo = b.sitofp(b.sub(f, f_back), f32)
    unit_hi, unit_lo = b.const(QUARTER_UNIT_HI, f32), b.const(QUARTER_UNIT_LO, f32)
    p = b.fmul(f_hi, unit_hi)
    p_err = b.fma(f_hi, unit_hi, b.fneg(p))
    tail = b.fma(f_lo, unit_hi, b.fma(f_hi, unit_lo, p_err))
    r_hi, r_lo = fast_two_sum(b, p, tail)
    small = b.fcmp("olt", ax, b.const(NO_REDUCTION_BELOW, f32))
    zero = b.const(0.0, f32)
    return (
        b.select(small, b.const(0, i32), q),
        b.select(small, ax, r_hi),
        b.select(small, zero, r_lo),
    )


# ---------------------------------------------------------------------------
# sin r and cos r on |r| <= pi/4, as f32 pairs.
# ---------------------------------------------------------------------------


def _sin_cos_pairs(
    b: LLBuilder, r_hi: SSAValue, r_lo: SSAValue
) -> tuple[tuple[SSAValue, SSAValue], tuple[SSAValue, SSAValue]]:
    """sin r and cos r for r = r_hi + r_lo, each as an f32 pair accurate to about
    2^-30 relative, so that the rounded sum is within 0.55 ulp."""
    r2 = b.fmul(r_hi, r_hi)
    r2_err = b.fma(r_hi, r_hi, b.fneg(r2))  # r_hi^2 = r2 + r2_err exactly
    # sin r = r_hi - r^3/6 + r^5 P(r2) + r_lo cos r_hi, where
    # r_lo cos r_hi = r_lo (1 - r2/2 + ...) (r_lo r2/2 is up to 0.15 ulp).
    lo_part = b.fma(b.fmul(r_lo, r2), b.const(-0.5, f32), r_lo)
    sin_pair = odd_series_pair(b, r_hi, r2, r2_err, -1, SIN_TAIL, lo_part)
    # cos r = (1 - r2/2) + (-r2_err/2 + r2^2 Q(r2) - r_lo sin r_hi), 1 - r2/2 as a pair.
    half = b.fmul(r2, b.const(0.5, f32))
    one = b.const(1.0, f32)
    c_hi = b.fsub(one, half)
    c_err = b.fsub(b.fsub(one, c_hi), half)
    # r_lo enters as -r_lo sin r_hi = -r_lo (r_hi - r3/6 + ...).
    r3 = b.fmul(r_hi, r2)
    lo_part = b.fma(b.fmul(r3, r_lo), b.const(SIXTH[0], f32), b.fneg(b.fmul(r_hi, r_lo)))
    cos_tail = b.fma(b.fmul(r2, r2), horner(b, r2, COS_TAIL), lo_part)
    cos_tail = b.fadd(b.fma(r2_err, b.const(-0.5, f32), cos_tail), c_err)
    cos_pair = fast_two_sum(b, c_hi, cos_tail)
    return sin_pair, cos_pair


def _select_pair(
    b: LLBuilder, c: SSAValue, x: tuple[SSAValue, SSAValue], y: tuple[SSAValue, SSAValue]
) -> tuple[SSAValue, SSAValue]:
    return b.select(c, x[0], y[0]), b.select(c, x[1], y[1])


def _finite_or_nan(b: LLBuilder, x: SSAValue, result: SSAValue) -> SSAValue:
    """NaN for x = +-inf or NaN (sin, cos and tan of infinity are invalid)."""
    ax = b.intrinsic("llvm.fabs.f32", [x], f32)
    not_finite = b.fcmp("uge", ax, b.const(math.inf, f32))
    return b.select(not_finite, b.const(math.nan, f32), result)


def _reduced(
    b: LLBuilder, x: SSAValue
) -> tuple[SSAValue, tuple[SSAValue, SSAValue], tuple[SSAValue, SSAValue]]:
    ax = b.intrinsic("llvm.fabs.f32", [x], f32)
    q, r_hi, r_lo = reduce_quarter_turns(b, ax)
    sin_pair, cos_pair = _sin_cos_pairs(b, r_hi, r_lo)
    return q, sin_pair, cos_pair


def sin_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    """sin x = sign(x) (+-sin r or +-cos r by quadrant)."""
    q, (s, _), (c, _) = _reduced(b, x)
    v = b.select(_bit(b, q, 0), c, s)
    sign = b.xor(b.shl(b.and_(q, b.const(2, i32)), b.const(30, i32)), _sign_of(b, x))
    return _finite_or_nan(b, x, _flip_sign(b, v, sign))


def cos_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    """cos x = cos |x| = sin(|x| + pi/2): the quadrant moved by one."""
    q, (s, _), (c, _) = _reduced(b, x)
    v = b.select(_bit(b, q, 0), s, c)
    q1 = b.add(q, b.const(1, i32))
    sign = b.shl(b.and_(q1, b.const(2, i32)), b.const(30, i32))
    return _finite_or_nan(b, x, _flip_sign(b, v, sign))


def tan_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    """tan x = sign(x) (sin r / cos r, or -cos r / sin r in odd quadrants)."""
    q, sin_pair, cos_pair = _reduced(b, x)
    odd = _bit(b, q, 0)
    num = _select_pair(b, odd, cos_pair, sin_pair)
    den = _select_pair(b, odd, sin_pair, cos_pair)
    # num / den: the correctly rounded f32 quotient plus the exact FMA residual
    # (and the low parts) divided by den: about 2^-40 relative before the last rounding.
    q0 = b.fdiv(num[0], den[0])
    residual = b.fma(b.fneg(q0), den[0], num[0])
    residual = b.fadd(residual, b.fma(b.fneg(q0), den[1], num[1]))
    correction = b.intrinsic("llvm.nvvm.div.approx.f", [residual, den[0]], f32)
    t = b.fadd(q0, correction)
    sign = b.xor(b.shl(b.and_(q, b.const(1, i32)), b.const(31, i32)), _sign_of(b, x))
    return _finite_or_nan(b, x, _flip_sign(b, t, sign))


# ---------------------------------------------------------------------------
# atan2.
# ---------------------------------------------------------------------------


def atan2_f32(b: LLBuilder, num: SSAValue, den: SSAValue) -> SSAValue:
    """C's atan2(num, den): the angle of the point (den, num), in [-pi, pi]."""
    a32 = b.intrinsic("llvm.fabs.f32", [num], f32)
    b32 = b.intrinsic("llvm.fabs.f32", [den], f32)
    lo32 = b.intrinsic("llvm.minnum.f32", [a32, b32], f32)
    hi32 = b.intrinsic("llvm.maxnum.f32", [a32, b32], f32)
    # k = nearest eighth of lo/hi (only needs to be near; the IEEE f32 division is
    # right for subnormal and huge operands alike, where the approximate ones are not).
    ratio = b.fdiv(lo32, hi32)
    k32 = b.intrinsic("llvm.rint.f32", [b.fmul(ratio, b.const(8.0, f32))], f32)
    k32 = b.intrinsic("llvm.maxnum.f32", [k32, b.const(0.0, f32)], f32)
    k32 = b.intrinsic("llvm.minnum.f32", [k32, b.const(8.0, f32)], f32)
    k = b.intrinsic("llvm.nvvm.f2i.rz", [k32], i32)
    lo, hi = b.fpext(lo32, f64), b.fpext(hi32, f64)
    c = b.fmul(b.fpext(k32, f64), b.const(0.125, f64))
    # t' = (lo - c hi) / (hi + c lo) = tan(atan(lo/hi) - atan c); the numerator is exact.
    t = b.fdiv(b.fsub(lo, b.fmul(c, hi)), b.fadd(hi, b.fmul(c, lo)))
    t = b.select(b.fcmp("oeq", hi32, b.const(math.inf, f32)), b.const(0.0, f64), t)  # not 0 * inf
    t2 = b.fmul(t, t)
    atan_t = b.fadd(t, b.fmul(b.fmul(t, t2), horner_f64(b, t2, ATAN_TAIL)))
    base = b.const(ATAN_OF_EIGHTHS[0], f64)
    for i in range(1, 9):
        base = b.select(b.icmp("eq", k, b.const(i, i32)), b.const(ATAN_OF_EIGHTHS[i], f64), base)
    theta = b.fadd(base, atan_t)
    # Equal magnitudes (both zero or both infinite included): 0 or pi/4 exactly.
    equal = b.fcmp("oeq", a32, b32)
    both_zero = b.fcmp("oeq", a32, b.const(0.0, f32))
    theta = b.select(
        equal, b.select(both_zero, b.const(0.0, f64), b.const(math.pi / 4, f64)), theta
    )
    # Octant, then half plane: |num| > |den| reflects about pi/4, den < 0 (or -0)
    # about pi/2.
    theta = b.select(b.fcmp("ogt", a32, b32), b.fsub(b.const(HALF_PI_F64, f64), theta), theta)
    den_negative = b.icmp("slt", b.bitcast(den, i32), b.const(0, i32))
    theta = b.select(den_negative, b.fsub(b.const(PI_F64, f64), theta), theta)
    result = b.intrinsic("llvm.copysign.f32", [b.fptrunc(theta, f32), num], f32)
    nan_in = b.or_(b.fcmp("uno", num, num), b.fcmp("uno", den, den))
    return b.select(nan_in, b.const(math.nan, f32), result)
