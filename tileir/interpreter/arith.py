"""Elementwise cuda_tile ops: floating point, integer, bitwise, comparisons,
conversions and `select`.

Implementations are shape-agnostic (they never consult the op's result shape), so
the same code runs a reduction body on whole batches of elements at once.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from xdsl.dialects.builtin import FloatTF32Type
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Attribute, Operation

import tileir.dialects.cuda_tile.ops as ct
from tileir.dialects.cuda_tile.attributes import (
    ComparisonOrdering,
    ComparisonPredicate,
    Overflow,
    RoundingMode,
    Signedness,
)
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.interpreter.numerics import (
    F32,
    F64,
    as_unsigned,
    directed,
    dtype_of,
    exact_ints,
    float_op,
    flush_subnormals,
    from_unsigned,
    int_range,
    negative_zero_sums,
    round_to_tf32,
    to_float,
    widen,
    wrap,
)
from tileir.interpreter.state import state_of

Values = tuple[Any, ...]


# ---------------------------------------------------------------------------
# Property helpers.
# ---------------------------------------------------------------------------


def _enum(op: Operation, name: str, default: Any = None) -> Any:
    attr = op.properties.get(name)
    return getattr(attr, "data", default) if attr is not None else default


def rounding(op: Operation, name: str = "rounding_mode") -> RoundingMode:
    return _enum(op, name, RoundingMode.NEAREST_EVEN)


def ftz(op: Operation) -> bool:
    return "flush_to_zero" in op.properties


def signed(op: Operation, name: str = "signedness") -> bool:
    return _enum(op, name, Signedness.SIGNED) is Signedness.SIGNED


def result_dtype(op: Operation, index: int = 0) -> np.dtype:
    return dtype_of(element_type(op.results[index].type))


def element_of(t: Attribute) -> Attribute:
    return element_type(t)


# ---------------------------------------------------------------------------
# Floating point.
# ---------------------------------------------------------------------------


def _fma_wide(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a*b + c rounded to odd in the compute type (the product is exact there), so
    that rounding it once more to the element type is the correctly rounded fma."""
    p = a * b
    s = p + c
    bp = s - p
    err = (p - (s - bp)) + (c - bp)
    inexact = (err != 0) & np.isfinite(s)
    if not inexact.any():
        return s
    s = s.copy()
    toward_zero = inexact & ((err > 0) != (s > 0)) & (s != 0)
    s[toward_zero] = np.nextafter(s[toward_zero], np.zeros_like(s[toward_zero]))
    ints = s.view(np.uint64 if s.dtype == F64 else np.uint32)
    ints[inexact] |= 1
    return s


def _fma_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    out = (a * b + c).astype(F64)
    flat = out.reshape(-1)
    fa, fb, fc = (np.broadcast_to(x, out.shape).reshape(-1) for x in (a, b, c))
    for i in range(flat.size):
        if np.isfinite(fa[i]) and np.isfinite(fb[i]) and np.isfinite(fc[i]):
            exact = Fraction(float(fa[i])) * Fraction(float(fb[i])) + Fraction(float(fc[i]))
            try:
                flat[i] = float(exact)
            except OverflowError:
                flat[i] = np.inf if exact > 0 else -np.inf
    return out


def fma_values(a: np.ndarray, b: np.ndarray, c: np.ndarray, do_ftz: bool) -> np.ndarray:
    dt = np.asarray(a).dtype
    if do_ftz:
        a, b, c = flush_subnormals(a), flush_subnormals(b), flush_subnormals(c)
    with np.errstate(all="ignore"):
        if dt == F64:
            r = _fma_f64(np.asarray(a), np.asarray(b), np.asarray(c))
        else:
            r = to_float(_fma_wide(widen(a), widen(b), widen(c)), dt)
    return flush_subnormals(r) if do_ftz else r


_EXACT: dict[type[Operation], Callable[[tuple[Fraction, ...]], Fraction | None]] = {
    ct.AddFOp: lambda v: v[0] + v[1],
    ct.SubFOp: lambda v: v[0] - v[1],
    ct.MulFOp: lambda v: v[0] * v[1],
    ct.DivFOp: lambda v: v[0] / v[1] if v[1] != 0 else None,
    ct.FmaOp: lambda v: v[0] * v[1] + v[2],
}

#: The terms a sum adds, per element (`numerics.negative_zero_sums`).
_ADDENDS: dict[type[Operation], Callable[[list[np.floating[Any]]], list[np.floating[Any]]]] = {
    ct.AddFOp: lambda v: [v[0], v[1]],
    ct.SubFOp: lambda v: [v[0], -v[1]],
    ct.FmaOp: lambda v: [v[0] * v[1], v[2]],
}

_NUMPY_BINARY: dict[type[Operation], Callable[..., np.ndarray]] = {
    ct.AddFOp: np.add,
    ct.SubFOp: np.subtract,
    ct.MulFOp: np.multiply,
    ct.DivFOp: np.divide,
}


def _sqrt_compare(r: Fraction, v: tuple[Fraction, ...]) -> int:
    if r < 0:
        return -1
    sq = r * r
    return (sq > v[0]) - (sq < v[0])


_UNARY_MATH: dict[type[Operation], Callable[[np.ndarray], np.ndarray]] = {
    ct.CosOp: np.cos,
    ct.CosHOp: np.cosh,
    ct.SinOp: np.sin,
    ct.SinHOp: np.sinh,
    ct.TanOp: np.tan,
    ct.TanHOp: np.tanh,
    ct.ExpOp: np.exp,
    ct.Exp2Op: np.exp2,
    ct.LogOp: np.log,
    ct.Log2Op: np.log2,
    ct.CeilOp: np.ceil,
    ct.FloorOp: np.floor,
    ct.RsqrtOp: lambda x: 1.0 / np.sqrt(x),
}


def min_max_f(op: Operation, a: np.ndarray, b: np.ndarray, is_max: bool) -> np.ndarray:
    """maxf/minf: NaN ignored (maximumNumber) unless propagate_nan; +0 > -0."""
    if ftz(op):
        a, b = flush_subnormals(a), flush_subnormals(b)
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    with np.errstate(invalid="ignore"):
        pick_a = a > b if is_max else a < b
        r = np.where(pick_a, a, b)
        zeros = (a == 0) & (b == 0)
        if zeros.any():
            neg = np.signbit(a.astype(F32)) & np.signbit(b.astype(F32))
            pos = ~np.signbit(a.astype(F32)) & ~np.signbit(b.astype(F32))
            zero_is_negative = ~pos if not is_max else neg
            signed_zero = np.where(zero_is_negative, -0.0, 0.0).astype(a.dtype)
            r = np.where(zeros, signed_zero, r)
        nan_a = np.isnan(a.astype(F32))
        nan_b = np.isnan(b.astype(F32))
        nan = np.asarray(float("nan")).astype(a.dtype)
        if "propagate_nan" in op.properties:
            r = np.where(nan_a | nan_b, nan, r)
        else:
            r = np.where(nan_a & ~nan_b, b, np.where(nan_b & ~nan_a, a, r))
            r = np.where(nan_a & nan_b, nan, r)
    return np.asarray(r, dtype=a.dtype)


_CMP: dict[ComparisonPredicate, Callable[[Any, Any], Any]] = {
    ComparisonPredicate.EQUAL: np.equal,
    ComparisonPredicate.NOT_EQUAL: np.not_equal,
    ComparisonPredicate.LESS_THAN: np.less,
    ComparisonPredicate.LESS_THAN_OR_EQUAL: np.less_equal,
    ComparisonPredicate.GREATER_THAN: np.greater,
    ComparisonPredicate.GREATER_THAN_OR_EQUAL: np.greater_equal,
}


# ---------------------------------------------------------------------------
# Integers.
# ---------------------------------------------------------------------------


def _int_view(x: np.ndarray, is_signed: bool) -> np.ndarray:
    x = np.asarray(x)
    if x.dtype == np.bool_:
        v = x.astype(np.int8)
        return -v if is_signed else v
    return x if is_signed else as_unsigned(x)


def readings(flag: Overflow) -> list[Overflow]:
    """The promises an `overflow<...>` flag makes, one per reading of the bits."""
    out = []
    if flag in (Overflow.NO_SIGNED_WRAP, Overflow.NO_WRAP):
        out.append(Overflow.NO_SIGNED_WRAP)
    if flag in (Overflow.NO_UNSIGNED_WRAP, Overflow.NO_WRAP):
        out.append(Overflow.NO_UNSIGNED_WRAP)
    return out


def _shift_amounts(b: np.ndarray) -> np.ndarray:
    return as_unsigned(np.asarray(b)).astype(np.uint64).astype(object)


def int_binary(interpreter: Interpreter, op: Operation, a: Any, b: Any) -> np.ndarray:
    """addi/subi/muli/shli: wrap-around results, overflow flags checked exactly."""
    dt = np.asarray(a).dtype
    flag = _enum(op, "overflow", Overflow.NONE)
    ua, ub = as_unsigned(a), as_unsigned(b)
    width = 1 if dt == np.bool_ else dt.itemsize * 8
    with np.errstate(all="ignore"):
        if isinstance(op, ct.AddIOp):
            r = ua + ub
        elif isinstance(op, ct.SubIOp):
            r = ua - ub
        elif isinstance(op, ct.MulIOp):
            r = ua * ub
        else:  # shli: rhs unsigned; shifting by the width or more gives 0
            amount = as_unsigned(b).astype(np.uint64)
            big = amount >= width
            r = np.left_shift(ua, np.where(big, 0, amount).astype(ua.dtype))
            r = np.where(big, 0, r).astype(ua.dtype)
    result = from_unsigned(np.asarray(r), dt)
    for reading in readings(flag):
        exact = _exact_int_result(op, a, b, reading is Overflow.NO_SIGNED_WRAP)
        check_overflow_flag(interpreter, op, exact, dt, reading)
    return result


def _exact_int_result(op: Operation, a: Any, b: Any, is_signed: bool) -> np.ndarray:
    """The exact result under one reading of the bits (signed or unsigned)."""
    xa, xb = exact_ints(a, is_signed), exact_ints(b, is_signed)
    if isinstance(op, ct.AddIOp):
        return xa + xb
    if isinstance(op, ct.SubIOp):
        return xa - xb
    if isinstance(op, ct.MulIOp):
        return xa * xb
    shift = _shift_amounts(b)
    return np.vectorize(lambda x, s: x << min(int(s), 4096), otypes=[object])(xa, shift)


def divide(a: np.ndarray, b: np.ndarray, is_signed: bool, mode: RoundingMode) -> np.ndarray:
    """Integer division with the given rounding; x/0 gives all ones (as PTX's div)."""
    dt = np.asarray(a).dtype
    xa, xb = exact_ints(a, is_signed), exact_ints(b, is_signed)
    xa, xb = np.broadcast_arrays(xa, xb)

    def one(x: int, y: int) -> int:
        if y == 0:
            return -1
        q = x // y  # floor
        toward_zero = mode is RoundingMode.ZERO and (x < 0) != (y < 0)
        if q * y != x and (toward_zero or mode is RoundingMode.POSITIVE_INF):
            q += 1
        return q

    out = np.vectorize(one, otypes=[object])(xa, xb) if xa.size else xa
    return wrap(np.asarray(out, dtype=object), dt)


def remainder(a: np.ndarray, b: np.ndarray, is_signed: bool) -> np.ndarray:
    """Truncated remainder (the sign of the dividend); x % 0 gives x."""
    dt = np.asarray(a).dtype
    xa, xb = np.broadcast_arrays(exact_ints(a, is_signed), exact_ints(b, is_signed))

    def one(x: int, y: int) -> int:
        if y == 0:
            return x
        r = abs(x) % abs(y)
        return -r if x < 0 else r

    out = np.vectorize(one, otypes=[object])(xa, xb) if xa.size else xa
    return wrap(np.asarray(out, dtype=object), dt)


def shift_right(a: np.ndarray, b: np.ndarray, is_signed: bool) -> np.ndarray:
    dt = np.asarray(a).dtype
    width = 1 if dt == np.bool_ else dt.itemsize * 8
    amount = as_unsigned(b).astype(np.uint64)
    clipped = np.minimum(amount, width - 1 if is_signed else width).astype(np.int64)
    if dt == np.bool_:
        v = np.asarray(a).astype(np.uint8)
        return np.where(clipped == 0, v, 0 if not is_signed else v).astype(np.bool_)
    if is_signed:
        return np.right_shift(np.asarray(a), clipped.astype(dt)).astype(dt)
    ua = as_unsigned(a)
    big = clipped >= width
    r = np.right_shift(ua, np.where(big, 0, clipped).astype(ua.dtype))
    return from_unsigned(np.where(big, 0, r).astype(ua.dtype), dt)


def mulhi(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    dt = np.asarray(a).dtype
    width = 1 if dt == np.bool_ else dt.itemsize * 8
    xa, xb = np.broadcast_arrays(exact_ints(a, False), exact_ints(b, False))
    return wrap(np.asarray((xa * xb) >> width, dtype=object), dt)


# ---------------------------------------------------------------------------
# Conversions.
# ---------------------------------------------------------------------------


def float_to_int(x: np.ndarray, to: np.dtype, is_signed: bool) -> np.ndarray:
    """ftoi as tileir compiles it (and tileiras does): round toward zero, NaN to 0,
    saturate; i16 saturates, i8 saturates to 16 bits and keeps the low byte; i1 is
    "non-zero" (NaN is true)."""
    v = np.asarray(x).astype(F64)
    if to == np.bool_:
        return (v != 0) | np.isnan(v)
    bits = to.itemsize * 8
    with np.errstate(invalid="ignore"):
        t = np.trunc(np.where(np.isnan(v), 0.0, v))
    sat_bits = max(bits, 16) if bits < 32 else bits
    lo, hi = int_range(np.dtype(f"i{sat_bits // 8}"), is_signed)
    exact = np.clip(t, float(lo), float(hi))
    if bits >= 64:
        as_obj = np.vectorize(lambda f: min(max(int(f), lo), hi), otypes=[object])(exact)
        return wrap(np.asarray(as_obj, dtype=object), to)
    return wrap(exact.astype(np.int64).astype(object), to)


def int_to_float(x: np.ndarray, to: np.dtype, is_signed: bool) -> np.ndarray:
    v = np.asarray(x)
    if v.dtype == np.bool_:
        wide = np.where(v, -1.0 if is_signed else 1.0, 0.0)
    else:
        wide = (v if is_signed else as_unsigned(v)).astype(F64)
    return to_float(wide, to)


def float_to_e8m0(x: np.ndarray, mode: RoundingMode) -> np.ndarray:
    """f8E8M0FNU holds powers of two; round down (`zero`) or up (`positive_inf`)."""
    import ml_dtypes

    v = np.asarray(x).astype(F64)
    out = np.full(v.shape, np.nan)
    with np.errstate(all="ignore"):
        positive = np.isfinite(v) & (v > 0)
        mant, exp = np.frexp(np.where(positive, v, 1.0))
        e = exp - 1  # v = (2*mant) * 2^(exp-1), 2*mant in [1, 2)
        if mode is RoundingMode.POSITIVE_INF:
            e = np.where(mant > 0.5, e + 1, e)
        e = np.clip(e, -127, 127)
        out = np.where(positive, np.ldexp(1.0, e), out)
        out = np.where(v == np.inf, np.ldexp(1.0, 127), out)
    return out.astype(ml_dtypes.float8_e8m0fnu)


def saturate_fp8(nearest: np.ndarray, x: np.ndarray) -> np.ndarray:
    """f8E4M3FN/f8E5M2 `ftof` results as tileiras computes them (`F2FP.SATFINITE` in its
    SASS): a finite or infinite source beyond the largest finite value gives that value
    with the source's sign, where ml_dtypes gives NaN (E4M3FN) or inf (E5M2); NaN stays
    NaN."""
    import ml_dtypes

    wide = nearest.astype(F64)
    over = ~np.isnan(x) & ~np.isfinite(wide)
    if not over.any():
        return nearest
    big = float(ml_dtypes.finfo(nearest.dtype).max)
    return np.where(over, np.where(x < 0, -big, big), wide).astype(nearest.dtype)


#: The directed rounding modes (a result moved off round-to-nearest).
DIRECTED = (RoundingMode.ZERO, RoundingMode.NEGATIVE_INF, RoundingMode.POSITIVE_INF)


def power_int(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """`x ** n` with a signed integer exponent (`fpowi`), C's `pow(x, n)` rounded once
    to x's type: the magnitude `|x| ** n` in f64, the sign from the exponent's parity
    (exact even where `n` is too large for an f64), so `(-2) ** 3 = -8`,
    `(-0) ** -1 = -inf` and `x ** 0 = 1` for every x, NaN included."""
    dt = x.dtype
    wide = x.astype(F64)
    exponent = np.broadcast_to(n, np.broadcast_shapes(x.shape, n.shape)).astype(np.int64)
    odd = (exponent & 1) == 1
    with np.errstate(all="ignore"):
        magnitude = np.power(np.abs(wide), exponent.astype(F64))
    result = np.where(np.signbit(wide) & odd, -magnitude, magnitude)
    return result.astype(F64) if dt == F64 else to_float(result, dt)


def ext_int(x: np.ndarray, from_el: Attribute, to: np.dtype, is_signed: bool) -> np.ndarray:
    width = from_el.width.data  # pyright: ignore[reportAttributeAccessIssue]
    v = np.asarray(x)
    if v.dtype == np.bool_:
        return (-(v.astype(np.int64)) if is_signed else v.astype(np.int64)).astype(to)
    if width == 4:
        nib = v.astype(np.int64) & 0xF
        return (((nib ^ 8) - 8) if is_signed else nib).astype(to)
    return (v if is_signed else as_unsigned(v)).astype(to)


def trunc_int(x: np.ndarray, to_el: Attribute, to: np.dtype) -> np.ndarray:
    width = to_el.width.data  # pyright: ignore[reportAttributeAccessIssue]
    v = np.asarray(x).astype(np.int64) if np.asarray(x).dtype != np.uint64 else np.asarray(x)
    if to == np.bool_:
        return (v & 1).astype(np.bool_)
    if width == 4:
        return (((v & 0xF) ^ 8) - 8).astype(to)
    with np.errstate(all="ignore"):
        return np.asarray(x).astype(to)


# ---------------------------------------------------------------------------
# The interpreter functions.
# ---------------------------------------------------------------------------


@register_impls
class CudaTileArithFunctions(InterpreterFunctions):
    """cuda_tile's elementwise ops over numpy."""

    # -- floating point -----------------------------------------------------
    def _rounded(self, op: Operation, args: Values) -> np.ndarray:
        mode = rounding(op)
        do_ftz = ftz(op)
        if isinstance(op, ct.FmaOp):
            nearest = fma_values(*args, do_ftz=do_ftz)
        else:
            nearest = float_op(_NUMPY_BINARY[type(op)], args, ftz=do_ftz)
        ins = [flush_subnormals(a) if do_ftz else np.asarray(a) for a in args]
        r = directed(nearest, _EXACT[type(op)], ins, mode)
        addends = _ADDENDS.get(type(op))
        if mode is RoundingMode.NEGATIVE_INF and addends is not None:
            r = negative_zero_sums(r, ins, _EXACT[type(op)], addends)
        return flush_subnormals(r) if do_ftz else r

    @impl(ct.AddFOp)
    def run_addf(self, interpreter: Interpreter, op: ct.AddFOp, args: Values) -> Values:
        return (self._rounded(op, args),)

    @impl(ct.SubFOp)
    def run_subf(self, interpreter: Interpreter, op: ct.SubFOp, args: Values) -> Values:
        return (self._rounded(op, args),)

    @impl(ct.MulFOp)
    def run_mulf(self, interpreter: Interpreter, op: ct.MulFOp, args: Values) -> Values:
        return (self._rounded(op, args),)

    @impl(ct.DivFOp)
    def run_divf(self, interpreter: Interpreter, op: ct.DivFOp, args: Values) -> Values:
        return (self._rounded(op, args),)

    @impl(ct.FmaOp)
    def run_fma(self, interpreter: Interpreter, op: ct.FmaOp, args: Values) -> Values:
        return (self._rounded(op, args),)

    @impl(ct.SqrtOp)
    def run_sqrt(self, interpreter: Interpreter, op: ct.SqrtOp, args: Values) -> Values:
        do_ftz = ftz(op)
        nearest = float_op(np.sqrt, args, ftz=do_ftz)
        x = flush_subnormals(args[0]) if do_ftz else np.asarray(args[0])
        r = directed(nearest, lambda v: None, [x], rounding(op), compare=_sqrt_compare)
        return (flush_subnormals(r) if do_ftz else r,)

    @impl(ct.RemFOp)
    def run_remf(self, interpreter: Interpreter, op: ct.RemFOp, args: Values) -> Values:
        return (float_op(np.fmod, args),)

    @impl(ct.PowOp)
    def run_pow(self, interpreter: Interpreter, op: ct.PowOp, args: Values) -> Values:
        return (float_op(np.power, args),)

    @impl(ct.FPowFOp)
    def run_fpowf(self, interpreter: Interpreter, op: ct.FPowFOp, args: Values) -> Values:
        return (float_op(np.power, args),)

    @impl(ct.FPowIOp)
    def run_fpowi(self, interpreter: Interpreter, op: ct.FPowIOp, args: Values) -> Values:
        return (power_int(np.asarray(args[0]), np.asarray(args[1])),)

    @impl(ct.Atan2Op)
    def run_atan2(self, interpreter: Interpreter, op: ct.Atan2Op, args: Values) -> Values:
        return (float_op(np.arctan2, args),)

    @impl(ct.MaxFOp)
    def run_maxf(self, interpreter: Interpreter, op: ct.MaxFOp, args: Values) -> Values:
        return (min_max_f(op, args[0], args[1], True),)

    @impl(ct.MinFOp)
    def run_minf(self, interpreter: Interpreter, op: ct.MinFOp, args: Values) -> Values:
        return (min_max_f(op, args[0], args[1], False),)

    @impl(ct.AbsFOp)
    def run_absf(self, interpreter: Interpreter, op: ct.AbsFOp, args: Values) -> Values:
        return (np.abs(np.asarray(args[0])),)

    @impl(ct.NegFOp)
    def run_negf(self, interpreter: Interpreter, op: ct.NegFOp, args: Values) -> Values:
        return (np.negative(np.asarray(args[0])),)

    def _unary(self, op: Operation, args: Values) -> Values:
        return (float_op(_UNARY_MATH[type(op)], args, ftz=ftz(op)),)

    @impl(ct.CosOp)
    def run_cos(self, interpreter: Interpreter, op: ct.CosOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.CosHOp)
    def run_cosh(self, interpreter: Interpreter, op: ct.CosHOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.SinOp)
    def run_sin(self, interpreter: Interpreter, op: ct.SinOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.SinHOp)
    def run_sinh(self, interpreter: Interpreter, op: ct.SinHOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.TanOp)
    def run_tan(self, interpreter: Interpreter, op: ct.TanOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.TanHOp)
    def run_tanh(self, interpreter: Interpreter, op: ct.TanHOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.ExpOp)
    def run_exp(self, interpreter: Interpreter, op: ct.ExpOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.Exp2Op)
    def run_exp2(self, interpreter: Interpreter, op: ct.Exp2Op, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.LogOp)
    def run_log(self, interpreter: Interpreter, op: ct.LogOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.Log2Op)
    def run_log2(self, interpreter: Interpreter, op: ct.Log2Op, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.CeilOp)
    def run_ceil(self, interpreter: Interpreter, op: ct.CeilOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.FloorOp)
    def run_floor(self, interpreter: Interpreter, op: ct.FloorOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.RsqrtOp)
    def run_rsqrt(self, interpreter: Interpreter, op: ct.RsqrtOp, args: Values) -> Values:
        return self._unary(op, args)

    @impl(ct.CmpFOp)
    def run_cmpf(self, interpreter: Interpreter, op: ct.CmpFOp, args: Values) -> Values:
        a, b = (np.asarray(x) for x in args)
        predicate = _enum(op, "comparison_predicate")
        ordered = _enum(op, "comparison_ordering") is ComparisonOrdering.ORDERED
        with np.errstate(invalid="ignore"):
            r = _CMP[predicate](a, b)
            nan = np.isnan(a.astype(F32)) | np.isnan(b.astype(F32))
        r = np.where(nan, not ordered, r)
        return (np.asarray(r, dtype=np.bool_),)

    # -- integer ------------------------------------------------------------
    @impl(ct.AddIOp)
    def run_addi(self, interpreter: Interpreter, op: ct.AddIOp, args: Values) -> Values:
        return (int_binary(interpreter, op, *args),)

    @impl(ct.SubIOp)
    def run_subi(self, interpreter: Interpreter, op: ct.SubIOp, args: Values) -> Values:
        return (int_binary(interpreter, op, *args),)

    @impl(ct.MulIOp)
    def run_muli(self, interpreter: Interpreter, op: ct.MulIOp, args: Values) -> Values:
        return (int_binary(interpreter, op, *args),)

    @impl(ct.ShLIOp)
    def run_shli(self, interpreter: Interpreter, op: ct.ShLIOp, args: Values) -> Values:
        return (int_binary(interpreter, op, *args),)

    @impl(ct.NegIOp)
    def run_negi(self, interpreter: Interpreter, op: ct.NegIOp, args: Values) -> Values:
        x = np.asarray(args[0])
        zero = np.zeros_like(x)
        negated = from_unsigned(np.asarray(as_unsigned(zero) - as_unsigned(x)), x.dtype)
        for reading in readings(_enum(op, "overflow", Overflow.NONE)):
            exact = -exact_ints(x, reading is Overflow.NO_SIGNED_WRAP)
            check_overflow_flag(interpreter, op, exact, x.dtype, reading)
        return (negated,)

    @impl(ct.AbsIOp)
    def run_absi(self, interpreter: Interpreter, op: ct.AbsIOp, args: Values) -> Values:
        x = np.asarray(args[0])
        if x.dtype == np.bool_:
            return (x.copy(),)
        with np.errstate(all="ignore"):
            return (np.abs(x).astype(x.dtype),)

    @impl(ct.DivIOp)
    def run_divi(self, interpreter: Interpreter, op: ct.DivIOp, args: Values) -> Values:
        return (divide(args[0], args[1], signed(op), rounding(op, "rounding")),)

    @impl(ct.RemIOp)
    def run_remi(self, interpreter: Interpreter, op: ct.RemIOp, args: Values) -> Values:
        return (remainder(args[0], args[1], signed(op)),)

    @impl(ct.MaxIOp)
    def run_maxi(self, interpreter: Interpreter, op: ct.MaxIOp, args: Values) -> Values:
        a, b = np.asarray(args[0]), np.asarray(args[1])
        s = signed(op)
        return (np.where(_int_view(a, s) >= _int_view(b, s), a, b).astype(a.dtype),)

    @impl(ct.MinIOp)
    def run_mini(self, interpreter: Interpreter, op: ct.MinIOp, args: Values) -> Values:
        a, b = np.asarray(args[0]), np.asarray(args[1])
        s = signed(op)
        return (np.where(_int_view(a, s) <= _int_view(b, s), a, b).astype(a.dtype),)

    @impl(ct.ShRIOp)
    def run_shri(self, interpreter: Interpreter, op: ct.ShRIOp, args: Values) -> Values:
        return (shift_right(args[0], args[1], signed(op)),)

    @impl(ct.MulhiIOp)
    def run_mulhii(self, interpreter: Interpreter, op: ct.MulhiIOp, args: Values) -> Values:
        return (mulhi(args[0], args[1]),)

    @impl(ct.AndIOp)
    def run_andi(self, interpreter: Interpreter, op: ct.AndIOp, args: Values) -> Values:
        return (np.bitwise_and(np.asarray(args[0]), np.asarray(args[1])),)

    @impl(ct.OrIOp)
    def run_ori(self, interpreter: Interpreter, op: ct.OrIOp, args: Values) -> Values:
        return (np.bitwise_or(np.asarray(args[0]), np.asarray(args[1])),)

    @impl(ct.XOrIOp)
    def run_xori(self, interpreter: Interpreter, op: ct.XOrIOp, args: Values) -> Values:
        return (np.bitwise_xor(np.asarray(args[0]), np.asarray(args[1])),)

    @impl(ct.CmpIOp)
    def run_cmpi(self, interpreter: Interpreter, op: ct.CmpIOp, args: Values) -> Values:
        s = signed(op)
        a, b = _int_view(args[0], s), _int_view(args[1], s)
        predicate = _enum(op, "comparison_predicate")
        return (np.asarray(_CMP[predicate](a, b), dtype=np.bool_),)

    # -- select and conversions ---------------------------------------------
    @impl(ct.SelectOp)
    def run_select(self, interpreter: Interpreter, op: ct.SelectOp, args: Values) -> Values:
        cond, a, b = (np.asarray(x) for x in args)
        return (np.where(cond, a, b).astype(a.dtype),)

    @impl(ct.BitcastOp)
    def run_bitcast(self, interpreter: Interpreter, op: ct.BitcastOp, args: Values) -> Values:
        x = np.ascontiguousarray(args[0])
        return (x.view(result_dtype(op)).reshape(x.shape),)

    @impl(ct.ExtIOp)
    def run_exti(self, interpreter: Interpreter, op: ct.ExtIOp, args: Values) -> Values:
        source = element_of(op.args[0].type)
        return (ext_int(args[0], source, result_dtype(op), signed(op)),)

    @impl(ct.TruncIOp)
    def run_trunci(self, interpreter: Interpreter, op: ct.TruncIOp, args: Values) -> Values:
        to_el = element_of(op.result.type)
        dt = result_dtype(op)
        r = trunc_int(args[0], to_el, dt)
        src = np.asarray(args[0])
        for reading in readings(_enum(op, "overflow", Overflow.NONE)):
            exact = exact_ints(src, reading is Overflow.NO_SIGNED_WRAP)
            check_overflow_flag(interpreter, op, exact, dt, reading)
        return (r,)

    @impl(ct.FToFOp)
    def run_ftof(self, interpreter: Interpreter, op: ct.FToFOp, args: Values) -> Values:
        import ml_dtypes

        dt = result_dtype(op)
        x = np.asarray(args[0]).astype(F64)
        if dt == np.dtype(ml_dtypes.float8_e8m0fnu):
            return (float_to_e8m0(x, rounding(op)),)
        mode = rounding(op)
        directed_mode = mode in DIRECTED
        if isinstance(element_of(op.result.type), FloatTF32Type):
            return (round_to_tf32(x, mode),)
        if mode is RoundingMode.NEAREST_AWAY:
            raise state_of(interpreter).error(
                op,
                f"rounding<{mode.value}> to {element_of(op.result.type)} is not supported by "
                "the interpreter yet",
            )
        nearest = to_float(x, dt)
        if not directed_mode and dt == np.dtype(ml_dtypes.float4_e2m1fn):
            # ml_dtypes saturates to +-6 already; NaN, which has no f4E2M1FN code,
            # becomes +6 as in the generated code (`fp8.py`).
            return (np.where(np.isnan(x), np.asarray(6.0, dt), nearest).astype(dt),)
        if not directed_mode and dt.itemsize == 1:
            return (saturate_fp8(nearest, x),)
        if not directed_mode or dt == F64:
            return (nearest,)
        if dt.itemsize < 2:
            raise state_of(interpreter).error(
                op,
                f"rounding<{mode.value}> to {element_of(op.result.type)} is not supported by "
                "the interpreter yet",
            )
        # The source is exact in f64: move the nearest result one step where it lies on
        # the wrong side of the source value (overflow gives the largest finite value
        # where the mode rounds toward zero).
        return (directed(nearest, lambda v: v[0], [x], mode),)

    @impl(ct.FToIOp)
    def run_ftoi(self, interpreter: Interpreter, op: ct.FToIOp, args: Values) -> Values:
        return (float_to_int(args[0], result_dtype(op), signed(op)),)

    @impl(ct.IToFOp)
    def run_itof(self, interpreter: Interpreter, op: ct.IToFOp, args: Values) -> Values:
        return (int_to_float(args[0], result_dtype(op), signed(op)),)

    @impl(ct.IntToPtrOp)
    def run_int_to_ptr(self, interpreter: Interpreter, op: ct.IntToPtrOp, args: Values) -> Values:
        return (np.asarray(args[0]).astype(np.int64),)

    @impl(ct.PtrToIntOp)
    def run_ptr_to_int(self, interpreter: Interpreter, op: ct.PtrToIntOp, args: Values) -> Values:
        return (np.asarray(args[0]).astype(np.int64),)

    @impl(ct.PtrToPtrOp)
    def run_ptr_to_ptr(self, interpreter: Interpreter, op: ct.PtrToPtrOp, args: Values) -> Values:
        return (np.asarray(args[0]).copy(),)


def check_overflow_flag(
    interpreter: Interpreter, op: Operation, exact: np.ndarray, dt: np.dtype, flag: Overflow
) -> None:
    """One reading (signed or unsigned) of an `overflow<...>` promise for trunci."""
    lo, hi = int_range(dt, flag is Overflow.NO_SIGNED_WRAP)
    bad = [v for v in np.asarray(exact, dtype=object).reshape(-1) if not lo <= v <= hi]
    if not bad:
        return
    state = state_of(interpreter)
    kind = "signed" if flag is Overflow.NO_SIGNED_WRAP else "unsigned"
    message = (
        f"overflow<{_enum(op, 'overflow').value}> promised no {kind} wrap, but {bad[0]} does "
        "not fit the result type (undefined behaviour; the wrapped value is used)"
    )
    if state.options.overflow == "error":
        raise state.error(op, message)
    if state.options.overflow == "warn":
        state.warn(op, message)
