"""Element arithmetic as cuda_tile defines it, on numpy arrays.

* Floats: every result is rounded once to the element type.  f16 and bf16 are
  computed in f32 and f32 in f64 (both wide enough that rounding twice gives the
  correctly rounded result for + - * / sqrt and fma); math functions follow the
  specification's note and run f16/bf16 in f32.  Directed rounding modes are exact:
  the round-to-nearest result is moved by one ulp where the exact (rational) value
  says it must.
* Integers: two's-complement wrap-around; `unsigned` reinterprets the same bits.
* `flush_to_zero` (f32 only) flushes subnormal inputs and results to a zero of the
  same sign.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute

from tileir.dialects.cuda_tile.attributes import RoundingMode
from tileir.dialects.cuda_tile.types import PointerType
from tileir.utils.numeric import numpy_dtype, unsigned_dtype

F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)

#: Pointers are byte addresses in the interpreter's address space.
POINTER_DTYPE = np.dtype(np.int64)


def dtype_of(element: Attribute) -> np.dtype:
    """The numpy dtype holding values of a tile element type (pointers: addresses)."""
    if isinstance(element, PointerType):
        return POINTER_DTYPE
    return numpy_dtype(element)


def is_float_element(element: Attribute) -> bool:
    return isinstance(element, AnyFloat)


def int_width(element: Attribute) -> int:
    assert isinstance(element, IntegerType)
    return element.width.data


def compute_dtype(dt: np.dtype) -> np.dtype:
    """The wider type a float op of element type `dt` is evaluated in."""
    return F64 if dt in (F32, F64) else F32


# ---------------------------------------------------------------------------
# Rounding to an element type.
# ---------------------------------------------------------------------------


def _round_to_odd_f32(x: np.ndarray) -> np.ndarray:
    """f64 -> f32 rounding to odd: rounding that result once more to any format with
    at most 22 significand bits equals rounding `x` directly."""
    with np.errstate(over="ignore", invalid="ignore"):
        t = x.astype(F32)
        back = t.astype(F64)
    finite = np.isfinite(x) & np.isfinite(t)
    inexact = finite & (back != x)
    if not inexact.any():
        return t
    t = t.copy()
    away = inexact & (np.abs(back) > np.abs(x))
    t[away] = np.nextafter(t[away], np.float32(0))
    bits = t.view(np.uint32)
    bits[inexact] |= np.uint32(1)
    return t


def to_float(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """`x` (f32 or f64) rounded to nearest-even in `dt`."""
    x = np.asarray(x)
    with np.errstate(over="ignore", invalid="ignore"):
        if dt in (F16, F32, F64):
            return x.astype(dt)
        if x.dtype == F64:
            x = _round_to_odd_f32(x)
        return x.astype(dt)


#: tf32 keeps the sign, the exponent and the top 10 fraction bits of an f32 (its upper
#: 19 bits); the other 13 are zero in a tf32 value held in f32.
TF32_DROPPED = 0x1FFF
_TF32_ADDEND: dict[RoundingMode, int | None] = {
    RoundingMode.NEAREST_EVEN: None,  # 0xFFF plus the lowest kept bit
    RoundingMode.NEAREST_AWAY: 0x1000,
    RoundingMode.ZERO: 0,
    RoundingMode.NEGATIVE_INF: TF32_DROPPED,  # negative values only
    RoundingMode.POSITIVE_INF: TF32_DROPPED,  # positive values only
}


def round_to_tf32(x: np.ndarray, mode: RoundingMode = RoundingMode.NEAREST_EVEN) -> np.ndarray:
    """Float values rounded to tf32 in `mode`, held in f32 (tf32 tiles are f32 arrays
    whose low 13 bits are zero).

    The source is first made an f32 rounded to odd (exact for every source but f64;
    f64 values beyond f32's range become the largest f32, which is odd), so the
    rounding at tf32's 10th fraction bit is the only one: add a mode's addend to the
    f32 bits and clear the low 13 (a carry moves into the exponent, past the largest
    tf32 into infinity).  Round to nearest even adds 0xFFF plus the lowest kept bit;
    ties away from zero 0x1000; toward zero nothing; toward -inf (+inf) 0x1FFF to
    negative (positive) values.  Infinities stay; a NaN becomes its quiet form with
    the low 13 bits cleared."""
    if mode not in _TF32_ADDEND:
        raise ValueError(f"rounding<{mode.value}> to tf32")
    x = np.asarray(x)
    if x.dtype == F64:
        big = float(np.finfo(F32).max)
        with np.errstate(invalid="ignore"):
            x = np.where(np.isfinite(x) & (np.abs(x) > big), np.copysign(big, x), x)
        f = _round_to_odd_f32(x)
    else:
        f = x.astype(F32)
    bits = np.ascontiguousarray(f, dtype=F32).view(np.uint32).astype(np.uint64)
    negative = (bits >> 31) == 1
    addend = _TF32_ADDEND[mode]
    if addend is None:
        add = 0xFFF + ((bits >> 13) & 1)
    elif mode is RoundingMode.NEGATIVE_INF:
        add = np.where(negative, addend, 0)
    elif mode is RoundingMode.POSITIVE_INF:
        add = np.where(negative, 0, addend)
    else:
        add = np.full(bits.shape, addend)
    keep = np.uint64(0xFFFFFFFF & ~TF32_DROPPED)
    rounded = (bits + add.astype(np.uint64)) & keep
    quiet = (bits | np.uint64(0x400000)) & keep
    out = np.where(np.isnan(f), quiet, rounded)
    return out.astype(np.uint32).view(F32).reshape(f.shape)


def widen(x: np.ndarray) -> np.ndarray:
    """A float tile in its compute type."""
    return np.asarray(x).astype(compute_dtype(np.asarray(x).dtype))


def flush_subnormals(x: np.ndarray) -> np.ndarray:
    """f32 subnormals to a zero of the same sign (flush_to_zero)."""
    x = np.asarray(x)
    tiny = np.finfo(np.float32).tiny
    small = (x != 0) & (np.abs(x) < tiny)
    if not small.any():
        return x
    return np.where(small, np.copysign(np.zeros_like(x), x), x)


def float_op(
    fn: Callable[..., np.ndarray],
    args: Sequence[np.ndarray],
    *,
    ftz: bool = False,
) -> np.ndarray:
    """Apply `fn` elementwise in the compute type and round the result once."""
    dt = np.asarray(args[0]).dtype
    if ftz:
        args = [flush_subnormals(a) for a in args]
    with np.errstate(all="ignore"):
        wide = fn(*[widen(a) for a in args])
    result = to_float(np.asarray(wide), dt)
    return flush_subnormals(result) if ftz else result


# ---------------------------------------------------------------------------
# Directed rounding.
# ---------------------------------------------------------------------------


def _fraction(x: np.generic) -> Fraction | None:
    v = float(x)
    if v != v or v in (float("inf"), float("-inf")):
        return None
    return Fraction(v)


def directed(
    nearest: np.ndarray,
    exact: Callable[[tuple[Fraction, ...]], Fraction | None],
    args: Sequence[np.ndarray],
    mode: RoundingMode,
    compare: Callable[[Fraction, tuple[Fraction, ...]], int] | None = None,
) -> np.ndarray:
    """Move each round-to-nearest result by one ulp where `mode` requires it.

    `exact(args)` is the exact rational result of one element (None when there is
    none, e.g. inf - inf); for irrational results (sqrt) `compare(r, args)` gives the
    sign of `r - exact` instead.
    """
    if mode in (RoundingMode.NEAREST_EVEN, RoundingMode.APPROX, RoundingMode.FULL):
        return nearest
    out = np.array(nearest, copy=True)
    flat = out.reshape(-1)
    flat_args = [np.broadcast_to(np.asarray(a), out.shape).reshape(-1) for a in args]
    dt = out.dtype
    big = np.finfo(dt).max if dt not in (BF16,) else ml_dtypes.finfo(dt).max
    for i in range(flat.size):
        inputs = [_fraction(a[i]) for a in flat_args]
        if any(v is None for v in inputs):
            continue
        vals = tuple(v for v in inputs if v is not None)
        r = flat[i]
        e = exact(vals) if compare is None else None
        if compare is None and e is None:
            continue
        sign_of_exact = 1 if e is None else (e > 0) - (e < 0)

        def above(c: np.generic, e: Fraction | None = e, vals: tuple[Fraction, ...] = vals) -> int:
            """The sign of `c - exact`."""
            f = _fraction(c)
            if f is None:
                return 1 if float(c) > 0 else -1
            if e is not None:
                return (f > e) - (f < e)
            assert compare is not None
            return compare(f, vals)

        if np.isinf(r):
            positive = float(r) > 0
            toward_zero = mode is RoundingMode.ZERO
            down = mode is RoundingMode.NEGATIVE_INF
            up = mode is RoundingMode.POSITIVE_INF
            if toward_zero or (down and positive) or (up and not positive):
                flat[i] = dt.type(big if positive else -big)
            continue
        want_down = mode is RoundingMode.NEGATIVE_INF or (
            mode is RoundingMode.ZERO and sign_of_exact >= 0
        )
        c = r
        if want_down:
            while above(c) > 0:
                c = np.nextafter(c, dt.type(-np.inf))
        else:
            while above(c) < 0:
                c = np.nextafter(c, dt.type(np.inf))
        flat[i] = c
    return out


def negative_zero_sums(
    result: np.ndarray,
    args: Sequence[np.ndarray],
    exact: Callable[[tuple[Fraction, ...]], Fraction | None],
    addends: Callable[[list[np.floating[Any]]], list[np.floating[Any]]],
) -> np.ndarray:
    """`result` of a sum under rounding toward negative infinity, with IEEE 754's zero
    sign (section 6.3): an exact zero sum is -0 unless every addend is +0 (x + x keeps
    the sign of x).  Moving the round-to-nearest result (`directed`) keeps its +0, and a
    zero that is a rounded tiny positive sum stays +0.  `addends(element operands)` are
    the terms summed: `a, b` for `addf`, `a, -b` for `subf`, `a * b, c` for `fma`."""
    out = np.array(result, copy=True)
    flat = out.reshape(-1)
    flat_args = [np.broadcast_to(np.asarray(a), out.shape).reshape(-1) for a in args]
    for i in np.flatnonzero(flat == 0):
        values = [a[i] for a in flat_args]
        fractions = [_fraction(v) for v in values]
        if any(f is None for f in fractions):
            continue
        if exact(tuple(f for f in fractions if f is not None)) != 0:
            continue
        terms = addends(values)
        if all(t == 0 and not np.signbit(t) for t in terms):
            continue
        flat[i] = -flat.dtype.type(0)
    return out


# ---------------------------------------------------------------------------
# Integers.
# ---------------------------------------------------------------------------


def as_unsigned(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return x.astype(np.uint8)
    return x.view(unsigned_dtype(x.dtype.itemsize * 8))


def from_unsigned(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    if dt == np.bool_:
        return (np.asarray(x) & 1).astype(np.bool_)
    return np.asarray(x).astype(unsigned_dtype(dt.itemsize * 8)).view(dt)


def exact_ints(x: np.ndarray, signed: bool) -> np.ndarray:
    """Integers as Python ints (object array): exact arithmetic for overflow checks."""
    x = np.asarray(x)
    if x.dtype == np.bool_:
        v = x.astype(np.int64)
        return (-v if signed else v).astype(object)
    return (x if signed else as_unsigned(x)).astype(object)


def wrap(values: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Exact integers (object array) wrapped to `dt`'s width, two's complement."""
    if dt == np.bool_:
        return (np.vectorize(lambda v: int(v) & 1, otypes=[np.int64])(values)).astype(np.bool_)
    bits = dt.itemsize * 8
    mask = (1 << bits) - 1
    udt = unsigned_dtype(bits)
    wrapped = np.vectorize(lambda v: int(v) & mask, otypes=[object])(values)
    return np.asarray(wrapped, dtype=object).astype(udt).view(dt)


def int_range(dt: np.dtype, signed: bool) -> tuple[int, int]:
    if dt == np.bool_:
        return (-1, 0) if signed else (0, 1)
    bits = dt.itemsize * 8
    if signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1
