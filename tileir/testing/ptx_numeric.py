"""PTX's data types and IEEE rounding, vectorized with numpy, for the PTX simulator.

Registers hold raw bit patterns (``uint16``/``uint32``/``uint64`` arrays, one
element per thread); an instruction's type suffix says how to read them.  This
module converts between bits and values and rounds exactly:

* every f16/bf16/f32 operation is computed in float64 together with its exact
  rounding error (``two_sum``); the pair is folded into one float64 rounded *to
  odd*, which rounds correctly to any format of at most 51 bits in any IEEE
  mode (``round_to_format``).  Products of two f32 values are exact in float64,
  and a quotient or square root computed in float64 cannot sit on an f32 value
  unless it is exact, so those need no error term;
* f64 operations round to nearest with numpy (IEEE in hardware), and f64 ``fma.rn``
  with error-free transformations and rounding to odd (``fma_f64_nearest``: tileir's
  f64 math functions are made of FMAs); the directed roundings of f64, which numpy
  lacks, use exact rational arithmetic (``fractions``), element by element.  They
  are rare in tileir's PTX.

``round_fraction`` is the slow exact reference the unit tests compare the fast
paths against.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import ml_dtypes
import numpy as np

# --------------------------------------------------------------------------- types

UINT: dict[int, type[np.unsignedinteger]] = {
    8: np.uint8,
    16: np.uint16,
    32: np.uint32,
    64: np.uint64,
}
SINT: dict[int, type[np.signedinteger]] = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}


@dataclass(frozen=True)
class PtxType:
    """A PTX fundamental type: ``kind`` is ``b``, ``u``, ``s``, ``f`` or ``pred``."""

    name: str
    kind: str
    bits: int

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @property
    def is_int(self) -> bool:
        """Bit-size, unsigned and signed types (all hold integers in the simulator)."""
        return self.kind in ("b", "u", "s")

    @property
    def nbytes(self) -> int:
        return max(1, self.bits // 8)


TYPES: dict[str, PtxType] = {
    "pred": PtxType("pred", "pred", 1),
    **{f"{k}{w}": PtxType(f"{k}{w}", k, w) for k in "bus" for w in (8, 16, 32, 64)},
    "f16": PtxType("f16", "f", 16),
    "bf16": PtxType("bf16", "f", 16),
    "f32": PtxType("f32", "f", 32),
    "f64": PtxType("f64", "f", 64),
}


@dataclass(frozen=True)
class FloatFormat:
    """An IEEE binary format: ``precision`` counts the hidden bit."""

    name: str
    precision: int
    emin: int
    emax: int
    dtype: np.dtype
    canonical_nan: int

    @property
    def max_finite(self) -> float:
        return math.ldexp(2.0 - math.ldexp(1.0, 1 - self.precision), self.emax)

    @property
    def min_normal(self) -> float:
        return math.ldexp(1.0, self.emin)


FORMATS: dict[str, FloatFormat] = {
    "f16": FloatFormat("f16", 11, -14, 15, np.dtype(np.float16), 0x7FFF),
    "bf16": FloatFormat("bf16", 8, -126, 127, np.dtype(ml_dtypes.bfloat16), 0x7FFF),
    "f32": FloatFormat("f32", 24, -126, 127, np.dtype(np.float32), 0x7FFFFFFF),
    "f64": FloatFormat("f64", 53, -1022, 1023, np.dtype(np.float64), 0x7FFFFFFFFFFFFFFF),
}
#: tf32: f32's exponent range with 10 fraction bits, held in an f32 (``cvt .tf32.f32``
#: writes the f32 bits of the value, low 13 bits zero, to a ``.b32`` register).  Not a
#: register type, so not in ``FORMATS``.
TF32 = FloatFormat("tf32", 11, -126, 127, np.dtype(np.float32), 0x7FFFFFFF)


def value_dtype(t: PtxType) -> np.dtype:
    """The numpy dtype whose values an instruction of type ``t`` computes with."""
    if t.kind == "pred":
        return np.dtype(np.bool_)
    if t.kind == "f":
        return FORMATS[t.name].dtype
    if t.kind == "s":
        return np.dtype(SINT[t.bits])
    return np.dtype(UINT[t.bits])


def bits_to_values(bits: np.ndarray, t: PtxType) -> np.ndarray:
    """Reinterpret an array of ``t.bits``-bit patterns as ``t``'s values (no copy)."""
    return bits.view(value_dtype(t))


def values_to_bits(values: np.ndarray, t: PtxType) -> np.ndarray:
    """The bit patterns of ``values`` (already of ``t``'s value dtype)."""
    return np.asarray(values, dtype=value_dtype(t)).view(UINT[t.bits])


def canonicalize_nan(values: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """Replace every NaN by the format's canonical NaN (what PTX arithmetic returns)."""
    nan = np.isnan(values)
    if not nan.any():
        return values
    bits = values.view(UINT[values.dtype.itemsize * 8]).copy()
    bits[nan] = fmt.canonical_nan
    return bits.view(values.dtype)


def flush_subnormals(x: np.ndarray, fmt: FloatFormat) -> np.ndarray:
    """``.ftz``: subnormal values of ``fmt`` become zeros of the same sign."""
    tiny = (x != 0) & (np.abs(x) < fmt.min_normal)
    if not tiny.any():
        return x
    return np.where(tiny, np.copysign(np.zeros_like(x), x), x)


# ------------------------------------------------------------------------ rounding

ROUNDINGS = ("rn", "rz", "rm", "rp")


def _nearest_away(x: np.ndarray) -> np.ndarray:
    return np.copysign(np.floor(np.abs(x) + 0.5), x)


_INTEGRAL: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "rn": np.rint,  # ties to even
    "rz": np.trunc,
    "rm": np.floor,
    "rp": np.ceil,
    "rna": _nearest_away,  # ties away from zero (``cvt.rna.tf32.f32`` only)
}


def round_integral(x: np.ndarray, mode: str) -> np.ndarray:
    """Round float64 values to integers (``.rni``/``.rzi``/``.rmi``/``.rpi`` use mode rn/rz/rm/rp)."""
    return _INTEGRAL[mode](x)


def _overflow_value(negative: np.ndarray, fmt: FloatFormat, mode: str) -> np.ndarray:
    """IEEE result of an overflow: infinity, or the largest finite value when rounding
    toward zero or away from infinity's side."""
    big, inf = fmt.max_finite, math.inf
    if mode in ("rn", "rna"):
        pos, neg = inf, -inf
    elif mode == "rz":
        pos, neg = big, -big
    elif mode == "rm":
        pos, neg = big, -inf
    else:
        pos, neg = inf, -big
    return np.where(negative, neg, pos)


def round_to_format(x: np.ndarray, fmt: FloatFormat, mode: str) -> np.ndarray:
    """Round float64 values to the nearest ``fmt`` values in IEEE mode ``mode``.

    Returns float64 values that ``fmt`` represents exactly (or infinities).  Exact
    when ``x`` is the exact value, or (for formats of at most 51 bits) the exact
    value rounded to odd in float64 (see ``to_odd``).  Scaling by a power of two
    puts the last kept bit at units, so numpy's integral roundings do the work.
    """
    x = np.asarray(x, dtype=np.float64)
    out = x.copy()
    finite = np.isfinite(x) & (x != 0)
    if not finite.any():
        return out
    xf = x[finite]
    _, e = np.frexp(xf)
    exponent = np.maximum(e - 1, fmt.emin)
    ulp_exp = exponent - (fmt.precision - 1)
    rounded = np.ldexp(_INTEGRAL[mode](np.ldexp(xf, -ulp_exp)), ulp_exp)
    over = np.abs(rounded) > fmt.max_finite
    if over.any():
        rounded = np.where(over, _overflow_value(xf < 0, fmt, mode), rounded)
    out[finite] = rounded
    return out


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's error-free sum: ``s = fl(a + b)`` and ``e`` with ``a + b == s + e`` exactly."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def to_odd(s: np.ndarray, e: np.ndarray) -> np.ndarray:
    """``s + e`` (with ``|e| <= ulp(s)/2``) rounded to odd in float64.

    When the pair is inexact, keep whichever float64 neighbour has an odd last bit:
    that sticky bit makes the later rounding to a narrower format exact.
    Non-finite ``s`` (or error) is returned as is.
    """
    inexact = (e != 0) & np.isfinite(e) & np.isfinite(s)
    even = (s.view(np.int64) & 1) == 0
    fix = inexact & even
    if not fix.any():
        return s
    toward = np.where(e > 0, math.inf, -math.inf)
    return np.where(fix, np.nextafter(s, toward), s)


#: Veltkamp's splitter for float64: x = hi + lo with both halves of at most 26 bits.
_SPLITTER = 134217729.0  # 2^27 + 1


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's error-free product ``p + e == a * b`` (no FMA needed); exact where
    neither the splitting overflows nor ``e`` underflows (see ``fma_f64_nearest``)."""
    p = a * b
    ca, cb = _SPLITTER * a, _SPLITTER * b
    a_hi = ca - (ca - a)
    b_hi = cb - (cb - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return p, e


def fma_f64_nearest(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """float64 ``fma.rn``, vectorized: Boldo and Melquiond's emulation with rounding to
    odd (``a b = uh + ul`` and ``c + uh = th + tl`` exactly, then
    ``RN(th + RO(tl + ul))``), which is the correctly rounded ``a b + c``.  Elements
    where an error-free step could overflow or underflow (huge or tiny operands and
    products) or an operand is not finite are computed exactly with fractions."""
    a, b, c = np.broadcast_arrays(*(np.asarray(x, dtype=np.float64) for x in (a, b, c)))
    with np.errstate(all="ignore"):
        uh, ul = _two_product(a, b)
        th, tl = two_sum(c, uh)
        v, v_err = two_sum(tl, ul)
        out = th + to_odd(v, v_err)
        fused = a * b + c  # right where a b is an exact zero or an operand is not finite
        big = 2.0**995
        safe = (
            (np.abs(a) < big)
            & (np.abs(b) < big)
            & (np.abs(c) < big)
            & (np.abs(uh) < big)
            & (np.abs(uh) > 2.0**-900)
        )
        zero_product = (a == 0) | (b == 0)
        out = np.where(zero_product, fused, out)
    slow = ~safe & ~zero_product & np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    if slow.any():
        idx = np.flatnonzero(slow)
        exact, _ = exact_elementwise(
            lambda x, y, z: x * y + z,
            fused.ravel()[idx],
            FORMATS["f64"],
            "rn",
            a.ravel()[idx],
            b.ravel()[idx],
            c.ravel()[idx],
        )
        flat = out.ravel().copy()
        flat[idx] = exact
        out = flat.reshape(out.shape)
    finite_in = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    return np.where(finite_in, out, fused)


def round_pair(s: np.ndarray, e: np.ndarray, fmt: FloatFormat, mode: str) -> np.ndarray:
    """Round the exact value ``s + e`` (a ``two_sum`` pair) to ``fmt`` in ``mode``."""
    if fmt.precision <= 51:
        return round_to_format(to_odd(s, e), fmt, mode)
    # float64 target: s is already the nearest; step one ulp for directed modes.
    if mode == "rn":
        return s
    ok = np.isfinite(s) & np.isfinite(e) & (e != 0)
    if mode == "rz":
        step = ok & (np.sign(e) != np.sign(s))
        toward = np.zeros_like(s)
    elif mode == "rm":
        step = ok & (e < 0)
        toward = np.full_like(s, -math.inf)
    else:
        step = ok & (e > 0)
        toward = np.full_like(s, math.inf)
    return np.where(step, np.nextafter(s, toward), s)


def exact_zero_sign(
    result: np.ndarray, exact_zero: np.ndarray, p: np.ndarray, c: np.ndarray, mode: str
) -> np.ndarray:
    """IEEE sign of a sum ``p + c`` that is exactly zero (``exact_zero``): -0 under
    ``rm`` unless both addends are +0, else what round-to-nearest gave.

    (A sum that is not exactly zero but rounds to zero keeps its own sign, which
    the rounding already gave it.)
    """
    if mode != "rm":
        return result
    both_pos_zero = (p == 0) & (c == 0) & ~np.signbit(p) & ~np.signbit(c)
    return np.where(exact_zero & ~both_pos_zero, -0.0, result)


# ------------------------------------------------------------- exact slow reference


def fraction_exponent(q: Fraction) -> int:
    """``floor(log2(|q|))`` for a non-zero rational."""
    n, d = abs(q.numerator), q.denominator
    e = n.bit_length() - d.bit_length()
    if (n << max(0, -e)) < (d << max(0, e)):
        e -= 1
    return e


def _round_fraction_int(q: Fraction, mode: str) -> int:
    if mode == "rn":
        return round(q)  # half to even
    if mode == "rz":
        return math.trunc(q)
    if mode == "rm":
        return math.floor(q)
    return math.ceil(q)


def round_fraction(q: Fraction, fmt: FloatFormat, mode: str, negative_zero: bool = False) -> float:
    """The exact rational ``q`` rounded to ``fmt`` in ``mode``, as a Python float.

    ``negative_zero`` gives the sign of a zero ``q``.  This is the reference
    definition of IEEE rounding that the vectorized paths are tested against.
    """
    if q == 0:
        return -0.0 if negative_zero else 0.0
    exponent = max(fraction_exponent(q), fmt.emin)
    ulp = Fraction(2) ** (exponent - fmt.precision + 1)
    n = _round_fraction_int(q / ulp, mode)
    value = n * ulp
    if abs(value) > Fraction(fmt.max_finite):
        return float(_overflow_value(np.array(q < 0), fmt, mode))
    if value == 0:
        return -0.0 if q < 0 else 0.0
    return float(value)


def exact_elementwise(
    exact: Callable[..., Fraction | None],
    fallback: np.ndarray,
    fmt: FloatFormat,
    mode: str,
    *operands: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Apply an exact rational operation to each element whose operands are finite.

    ``exact`` returns the exact result as a ``Fraction`` (or ``None`` to keep the
    ``fallback`` element, numpy's IEEE result, which is right for infinities,
    NaNs and exact zeros).  Returns the results and the mask of exact zeros.
    Slow; used for the float64 operations numpy cannot round.
    """
    out = fallback.astype(np.float64).copy()
    zero = np.zeros(out.shape, dtype=bool)
    finite = np.ones(out.shape, dtype=bool)
    for x in operands:
        finite &= np.isfinite(x)
    for i in np.flatnonzero(finite):
        q = exact(*(Fraction(float(x[i])) for x in operands))
        if q is None:
            continue
        if q == 0:
            zero[i] = True
        else:
            out[i] = round_fraction(q, fmt, mode)
    return out, zero


def sqrt_directed(x: np.ndarray, mode: str) -> np.ndarray:
    """float64 square root in any mode: numpy's correctly rounded root, stepped one ulp
    where the exact root lies on the other side (checked with exact squares)."""
    r = np.sqrt(x)
    if mode == "rn":
        return r
    out = r.copy()
    for i in np.flatnonzero(np.isfinite(r) & (r > 0)):
        sq, want = Fraction(float(r[i])) ** 2, Fraction(float(x[i]))
        if sq > want and mode in ("rz", "rm"):
            out[i] = np.nextafter(r[i], 0.0)
        elif sq < want and mode == "rp":
            out[i] = np.nextafter(r[i], math.inf)
    return out


# ---------------------------------------------------------------------------- sets


def _first_of_runs(s: np.ndarray) -> np.ndarray:
    """Where each run of equal values of the sorted ``s`` starts (a mask)."""
    keep = np.empty(len(s), dtype=bool)
    if len(s):
        keep[0] = True
        np.not_equal(s[1:], s[:-1], out=keep[1:])
    return keep


def unique(a: np.ndarray) -> np.ndarray:
    """``np.unique(a)``: the sorted distinct values (of ``a`` flattened), by a sort.

    numpy 2's ``np.unique`` hashes and then sorts the distinct values: ten times
    slower than a sort on the thousands of addresses the simulator checks per
    instruction (an operand tile, a copy), where it was a tenth of a run's time."""
    s = np.sort(a, axis=None)
    return s[_first_of_runs(s)]


def unique_counts(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, return_counts=True)`` by a sort (``unique``)."""
    s = np.sort(a, axis=None)
    starts = np.flatnonzero(_first_of_runs(s))
    return s[starts], np.diff(np.append(starts, len(s)))


def unique_inverse(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, return_inverse=True)`` of a 1-D ``a`` by a sort (``unique``)."""
    order = np.argsort(a, kind="stable")
    s = a[order]
    keep = _first_of_runs(s)
    inverse = np.empty(len(a), dtype=np.intp)
    inverse[order] = np.cumsum(keep) - 1
    return s[keep], inverse
