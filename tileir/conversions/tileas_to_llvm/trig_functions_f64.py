"""Accurate f64 circular functions: sin, cos, tan and atan2 (tileir's own "libdevice"
for doubles).

**sin, cos, tan.**  The argument is reduced exactly, for every f64, by the
Payne-Hanek method in integer arithmetic: |x| = m 2^E with m a 53-bit integer, and
a 192-bit window of T = floor(2^1184 2/pi) (the bits that can matter for
m 2^E 2/pi modulo 4, chosen by E: a five-level tree of selects over the twenty
64-bit words of the table, then a funnel shift) is multiplied by m with 64-bit
integer products.  That gives the quadrant q and the remainder as a 126-bit
fixed-point fraction of a quarter turn, converted exactly to a pair of f64 and
multiplied by pi/2 (a pair): r = r_hi + r_lo, |r| <= pi/4, with an error below
2^-120 absolute, far below the closest any f64 comes to a multiple of pi/2 (about
2^-61 rad), so the reduction is accurate for every finite input.  Below pi/4 no
reduction is needed (r = |x|).  sin r and cos r are Taylor series (truncated below
2^-62) with r^3/6 and r^2/2 carried as pairs (`odd_series`, `even_series`); tan
divides the two pairs and corrects the rounded quotient by its FMA residual.

**atan2.**  With a <= b the magnitudes of the operands (scaled by a power of two
when huge or tiny), t = a/b is reduced by the nearest c = k/8:
atan t = atan c + atan((a - c b) / (b + c a)), numerator and denominator as pairs
(c b exact by FMA), the quotient t' (|t'| <= 1/16) as a pair, atan t' a
nine-term Taylor series, atan(k/8) a pair constant; then pi/2 - theta or
pi - theta in pairs for the octant and half plane, and one final rounding.

Constants come from pi computed with Machin's formula (`trig_functions.pi_fixed`)
and atan(k/8) from its integer Taylor series.
"""

from __future__ import annotations

import math
from fractions import Fraction

from xdsl.dialects.builtin import f64, i1, i32, i64
from xdsl.ir import SSAValue

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.math_functions import fast_two_sum, two_sum
from tileir.conversions.tileas_to_llvm.math_functions_f64 import (
    Pair,
    clamp,
    const,
    even_series,
    exponent_and_significand,
    f64_pair,
    fabs,
    horner_fma,
    is_nan,
    mul_pair_const,
    odd_series,
    scale_by,
    two_product,
)
from tileir.conversions.tileas_to_llvm.trig_functions import PI, pi_fixed

# ---------------------------------------------------------------------------
# Constants.
# ---------------------------------------------------------------------------

#: 2/pi scaled by 2^1184: bit 1183 is its leading bit.  Twenty 64-bit words, the
#: last zero (it pads the window for the smallest exponents).
TWO_OVER_PI_SCALE = 1184
_T = (1 << (TWO_OVER_PI_SCALE + 1 + 1400)) // pi_fixed(1400)
TWO_OVER_PI_WORDS64 = [(_T >> (64 * i)) & ((1 << 64) - 1) for i in range(20)]
assert TWO_OVER_PI_WORDS64[19] == 0 and TWO_OVER_PI_WORDS64[18] >> 31 == 1
#: Window: bits b0 .. b0 + 191 of T with b0 = 994 - E, so that bit i of the window
#: weighs m 2^(i - 190) in m 2^E 2/pi.
WINDOW_BASE = TWO_OVER_PI_SCALE - 190
#: E = exponent of x's last mantissa bit, clamped to [-53, 971] (x >= 0.78 has
#: E >= -53): b0 in [23, 1047], word index b0 / 64 in [0, 16].
MIN_EXPONENT, MAX_EXPONENT = -53, 971

HALF_PI_PAIR = f64_pair(PI / 2)
PI_PAIR = f64_pair(PI)
#: Below this |x| (< pi/4) the argument needs no reduction.
NO_REDUCTION_BELOW = 0.78539816339744

#: (sin r - r + r^3/6) / r^5 and (cos r - 1 + r^2/2) / r^4 in r^2, highest first.
SIN_TAIL = [(-1) ** k / math.factorial(2 * k + 1) for k in range(9, 1, -1)]
COS_TAIL = [(-1) ** k / math.factorial(2 * k) for k in range(10, 1, -1)]


def _arctan_fixed(p: int, q: int, scale: int) -> int:
    """atan(p/q) 2^scale for 0 <= p < q, from its Taylor series in integers."""
    total, k, sign = 0, 1, 1
    power = (p << scale) // q
    while power:
        total += sign * (power // k)
        power = power * p * p // (q * q)
        k += 2
        sign = -sign
    return total


#: atan(k/8) for k = 0..8 as pairs (atan 1 = pi/4).
ATAN_OF_EIGHTHS = [f64_pair(Fraction(_arctan_fixed(k, 8, 200), 1 << 200)) for k in range(8)] + [
    f64_pair(PI / 4)
]
#: (atan t - t) / t^3 = sum (-1)^k t^(2k-2) / (2k+1), k = 1..9 (|t| <= 1/16: below 2^-68).
ATAN_TAIL = [(-1) ** k / (2 * k + 1) for k in range(9, 0, -1)]


# ---------------------------------------------------------------------------
# Payne-Hanek reduction.
# ---------------------------------------------------------------------------


def _window_words(b: LLBuilder, word: SSAValue) -> list[SSAValue]:
    """Words word .. word+3 of the table (word an i64 in [0, 16]): a tree of
    selects, one level per bit of `word`, highest first."""
    words = [b.const(w, i64) for w in TWO_OVER_PI_WORDS64] + [b.const(0, i64)] * 16
    for bit in (4, 3, 2, 1, 0):
        taken = b.icmp("ne", b.and_(word, b.const(1 << bit, i64)), b.const(0, i64))
        need = 4 + (1 << bit) - 1
        words = [b.select(taken, words[i + (1 << bit)], words[i]) for i in range(need)]
    return words


def _payne_hanek(b: LLBuilder, ax: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """For finite ax >= 0.78: (q, r_hi, r_lo) with ax = q pi/2 + r (mod 2 pi), q an
    i32 in [0, 4)."""
    bits = b.bitcast(ax, i64)
    exponent = b.sub(b.lshr(bits, b.const(52, i64)), b.const(1075, i64))
    exponent = b.intrinsic("llvm.smax.i64", [exponent, b.const(MIN_EXPONENT, i64)], i64)
    exponent = b.intrinsic("llvm.smin.i64", [exponent, b.const(MAX_EXPONENT, i64)], i64)
    mantissa = b.or_(b.and_(bits, b.const((1 << 52) - 1, i64)), b.const(1 << 52, i64))
    start = b.sub(b.const(WINDOW_BASE, i64), exponent)
    words = _window_words(b, b.lshr(start, b.const(6, i64)))
    shift = b.and_(start, b.const(63, i64))
    back = b.sub(b.const(63, i64), shift)
    # Limb k: bits 64k .. 64k+63 of the window (the << 1 << (63 - shift) form keeps
    # every shift below 64).
    limbs = [
        b.or_(
            b.lshr(words[k], shift),
            b.shl(b.shl(words[k + 1], b.const(1, i64)), back),
        )
        for k in range(3)
    ]

    def mulhi(u: SSAValue, v: SSAValue) -> SSAValue:
        return b.intrinsic("llvm.nvvm.mulhi.ull", [u, v], i64)

    # The product's bits 64 .. 191 (bits >= 192 are multiples of 4 quarter turns;
    # bits < 64 weigh below 2^-126).
    low_hi = mulhi(mantissa, limbs[0])
    mid = b.add(low_hi, b.mul(mantissa, limbs[1]))
    carry = b.zext(b.icmp("ult", mid, low_hi, signed=False), i64)
    top = b.add(b.add(b.mul(mantissa, limbs[2]), mulhi(mantissa, limbs[1])), carry)
    # Nearest quadrant: top's two high bits after adding half a quadrant.
    rounded = b.add(top, b.const(1 << 61, i64))
    q = b.trunc(b.lshr(rounded, b.const(62, i64)), i32)
    fraction = b.sub(b.and_(rounded, b.const((1 << 62) - 1, i64)), b.const(1 << 61, i64))
    # fraction 2^64 + mid, in units of 2^-126 quarter turns, as three exact 42-bit
    # chunks summed into a pair.
    chunk_a = b.ashr(fraction, b.const(20, i64))
    chunk_b = b.or_(
        b.shl(b.and_(fraction, b.const((1 << 20) - 1, i64)), b.const(22, i64)),
        b.lshr(mid, b.const(42, i64)),
    )
    chunk_c = b.and_(mid, b.const((1 << 42) - 1, i64))
    a = b.fmul(b.sitofp(chunk_a, f64), const(b, 2.0**-42))
    bb = b.fmul(b.sitofp(chunk_b, f64), const(b, 2.0**-84))
    c = b.fmul(b.sitofp(chunk_c, f64), const(b, 2.0**-126))
    s, s_err = two_sum(b, a, bb)
    s2, s2_err = two_sum(b, s, c)
    turns = fast_two_sum(b, s2, b.fadd(s_err, s2_err))
    r_hi, r_lo = mul_pair_const(b, turns, HALF_PI_PAIR)
    return q, r_hi, r_lo


def _reduced(b: LLBuilder, x: SSAValue) -> tuple[SSAValue, Pair, Pair]:
    """(q, sin r, cos r) for |x| = q pi/2 + r."""
    ax = fabs(b, x)
    q, r_hi, r_lo = _payne_hanek(b, ax)
    small = b.fcmp("olt", ax, const(b, NO_REDUCTION_BELOW))
    q = b.select(small, b.const(0, i32), q)
    r_hi = b.select(small, ax, r_hi)
    r_lo = b.select(small, const(b, 0.0), r_lo)
    sin_pair = odd_series(b, r_hi, r_lo, -1, SIN_TAIL)
    cos_pair = even_series(b, r_hi, r_lo, -1, COS_TAIL)
    return q, sin_pair, cos_pair


def _bit(b: LLBuilder, v: SSAValue, k: int) -> SSAValue:
    return b.icmp("ne", b.and_(v, b.const(1 << k, i32)), b.const(0, i32))


def _flip_sign(b: LLBuilder, v: SSAValue, flip: SSAValue) -> SSAValue:
    """v with its sign flipped where the i1 `flip` is set."""
    mask = b.select(flip, b.const(-(1 << 63), i64), b.const(0, i64))
    return b.bitcast(b.xor(b.bitcast(v, i64), mask), f64)


def _sign_bit(b: LLBuilder, x: SSAValue) -> SSAValue:
    return b.icmp("slt", b.bitcast(x, i64), b.const(0, i64))


def _finite_or_nan(b: LLBuilder, x: SSAValue, result: SSAValue) -> SSAValue:
    """NaN for x = +-inf or NaN."""
    not_finite = b.fcmp("uge", fabs(b, x), const(b, math.inf))
    return b.select(not_finite, const(b, math.nan), result)


def sin_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    """sin x = sign(x) (+-sin r or +-cos r by quadrant)."""
    q, (s, s_lo), (c, c_lo) = _reduced(b, x)
    odd = _bit(b, q, 0)
    v = b.fadd(b.select(odd, c, s), b.select(odd, c_lo, s_lo))
    return _finite_or_nan(b, x, _flip_sign(b, v, b.xor(_bit(b, q, 1), _sign_bit(b, x))))


def cos_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    """cos x = cos |x|: +-cos r or -+sin r by quadrant."""
    q, (s, s_lo), (c, c_lo) = _reduced(b, x)
    odd = _bit(b, q, 0)
    v = b.fadd(b.select(odd, s, c), b.select(odd, s_lo, c_lo))
    return _finite_or_nan(b, x, _flip_sign(b, v, _bit(b, b.add(q, b.const(1, i32)), 1)))


def tan_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    """tan x = sign(x) (sin r / cos r, or -cos r / sin r in odd quadrants)."""
    q, (s, s_lo), (c, c_lo) = _reduced(b, x)
    odd = _bit(b, q, 0)
    num, num_lo = b.select(odd, c, s), b.select(odd, c_lo, s_lo)
    den, den_lo = b.select(odd, s, c), b.select(odd, s_lo, c_lo)
    quotient = b.fdiv(num, den)
    residual = b.fma(b.fneg(quotient), den, num)
    residual = b.fadd(residual, b.fma(b.fneg(quotient), den_lo, num_lo))
    t = b.fadd(quotient, b.fdiv(residual, den))
    return _finite_or_nan(b, x, _flip_sign(b, t, b.xor(odd, _sign_bit(b, x))))


# ---------------------------------------------------------------------------
# atan2.
# ---------------------------------------------------------------------------


def _sub_pairs(b: LLBuilder, a: Pair, c: Pair) -> Pair:
    """a - c for pairs."""
    s, s_err = two_sum(b, a[0], b.fneg(c[0]))
    return fast_two_sum(b, s, b.fadd(s_err, b.fsub(a[1], c[1])))


def atan2_f64(b: LLBuilder, num: SSAValue, den: SSAValue) -> SSAValue:
    """C's atan2(num, den): the angle of the point (den, num), in [-pi, pi]."""
    a_in, b_in = fabs(b, num), fabs(b, den)
    lo = b.intrinsic("llvm.minnum.f64", [a_in, b_in], f64)
    hi = b.intrinsic("llvm.maxnum.f64", [a_in, b_in], f64)
    ratio = b.fdiv(lo, hi)
    # Scaled by a power of two so that hi is in [1, 2): c hi, c lo and hi + c lo stay
    # away from overflow, and the FMA errors and residuals away from underflow
    # (lo scaled underflows only for ratios below 2^-1022, where `tiny` below holds).
    infinite = b.fcmp("oeq", hi, const(b, math.inf))
    exponent, hi = exponent_and_significand(b, hi)
    lo = scale_by(b, lo, b.sext(b.sub(b.const(0, i32), exponent), i64))
    k = clamp(b, b.intrinsic("llvm.rint.f64", [b.fmul(ratio, const(b, 8.0))], f64), 0.0, 8.0)
    c = b.fmul(k, const(b, 0.125))
    # t' = (lo - c hi) / (hi + c lo): numerator and denominator as pairs.
    p, p_err = two_product(b, c, hi)
    n_hi, n_err = two_sum(b, lo, b.fneg(p))
    numerator = fast_two_sum(b, n_hi, b.fsub(n_err, p_err))
    p, p_err = two_product(b, c, lo)
    d_hi, d_err = fast_two_sum(b, hi, p)
    denominator = (d_hi, b.fadd(d_err, p_err))
    t = b.fdiv(numerator[0], denominator[0])
    residual = b.fma(b.fneg(t), denominator[0], numerator[0])
    residual = b.fadd(residual, b.fma(b.fneg(t), denominator[1], numerator[1]))
    t_lo = b.fdiv(residual, denominator[0])
    t = b.select(infinite, const(b, 0.0), t)
    t_lo = b.select(infinite, const(b, 0.0), t_lo)
    # atan t' = t' + t'^3 P(t'^2), t'_lo (1 - t'^2) ~ t'_lo.
    t2 = b.fmul(t, t)
    tail = b.fma(b.fmul(t, t2), horner_fma(b, t2, ATAN_TAIL), t_lo)
    k_int = b.intrinsic("llvm.nvvm.d2i.rz", [k], i32)
    base_hi, base_lo = const(b, ATAN_OF_EIGHTHS[0][0]), const(b, ATAN_OF_EIGHTHS[0][1])
    for i in range(1, 9):
        here = b.icmp("eq", k_int, b.const(i, i32))
        base_hi = b.select(here, const(b, ATAN_OF_EIGHTHS[i][0]), base_hi)
        base_lo = b.select(here, const(b, ATAN_OF_EIGHTHS[i][1]), base_lo)
    s, s_err = two_sum(b, base_hi, t)
    theta = fast_two_sum(b, s, b.fadd(b.fadd(s_err, base_lo), tail))
    # Equal magnitudes (both zero or both infinite included): 0 or pi/4 exactly.
    equal = b.fcmp("oeq", a_in, b_in)
    both_zero = b.fcmp("oeq", a_in, const(b, 0.0))
    quarter = (const(b, ATAN_OF_EIGHTHS[8][0]), const(b, ATAN_OF_EIGHTHS[8][1]))
    zero = const(b, 0.0)
    theta = (
        b.select(equal, b.select(both_zero, zero, quarter[0]), theta[0]),
        b.select(equal, b.select(both_zero, zero, quarter[1]), theta[1]),
    )
    # Octant, then half plane: |num| > |den| reflects about pi/4, den < 0 (or -0)
    # about pi/2.
    half_pi = (const(b, HALF_PI_PAIR[0]), const(b, HALF_PI_PAIR[1]))
    reflected = _sub_pairs(b, half_pi, theta)
    steep = b.fcmp("ogt", a_in, b_in)
    theta = (b.select(steep, reflected[0], theta[0]), b.select(steep, reflected[1], theta[1]))
    pi = (const(b, PI_PAIR[0]), const(b, PI_PAIR[1]))
    reflected = _sub_pairs(b, pi, theta)
    left = _sign_bit(b, den)
    theta = (b.select(left, reflected[0], theta[0]), b.select(left, reflected[1], theta[1]))
    # Below 2^-900 atan t = t to far below an ulp, and the pair's low parts would be
    # subnormal (their rounding could move the result): the IEEE quotient is right.
    tiny = b.fcmp("olt", ratio, const(b, 2.0**-900))
    tiny = b.and_(tiny, b.xor(b.or_(steep, left), b.const(1, i1)))
    magnitude = b.select(tiny, ratio, b.fadd(*theta))
    result = b.intrinsic("llvm.copysign.f64", [magnitude, num], f64)
    return b.select(b.or_(is_nan(b, num), is_nan(b, den)), const(b, math.nan), result)
