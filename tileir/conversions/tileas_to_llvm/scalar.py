"""Scalar semantics of the cuda_tile compute ops, as llvm ops.

A tile op is lowered register by register; this module says what one element
becomes.  f16 and bf16 arithmetic is computed in f32 and rounded back once: for a
single +, -, *, / or sqrt that gives the correctly rounded result (f32 carries more
than twice the significand bits plus two), and the fma keeps its native half
instruction so it stays a single rounding.  Directed rounding modes on f16/bf16 and
transcendental functions without an implementation here are reported as not
supported, never silently approximated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    f32,
    f64,
    i1,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

import tileir.conversions.tileas_to_llvm.fp8 as fp8
import tileir.conversions.tileas_to_llvm.math_functions as mf
import tileir.conversions.tileas_to_llvm.math_functions_f64 as mf64
import tileir.conversions.tileas_to_llvm.remainder_functions as rf
import tileir.conversions.tileas_to_llvm.tf32 as tf32
import tileir.conversions.tileas_to_llvm.trig_functions as tf
import tileir.conversions.tileas_to_llvm.trig_functions_f64 as tf64
from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import GLOBAL_PTR, element_llvm_type
from tileir.diagnostics import not_supported
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import (
    ComparisonPredicate,
    RoundingMode,
    Signedness,
)
from tileir.dialects.cuda_tile.carriers import element_type

ScalarLowering = Callable[[LLBuilder, Operation, Sequence[SSAValue]], SSAValue]

#: What to do instead of an arithmetic op tileir has no lowering for at this type.
_IN_F32 = "compute in f32 (ct.astype) and convert the result"

ROUNDING_SUFFIX = {
    RoundingMode.NEAREST_EVEN: "rn",
    RoundingMode.ZERO: "rz",
    RoundingMode.NEGATIVE_INF: "rm",
    RoundingMode.POSITIVE_INF: "rp",
}

PREDICATE = {
    ComparisonPredicate.EQUAL: "eq",
    ComparisonPredicate.NOT_EQUAL: "ne",
    ComparisonPredicate.LESS_THAN: "lt",
    ComparisonPredicate.LESS_THAN_OR_EQUAL: "le",
    ComparisonPredicate.GREATER_THAN: "gt",
    ComparisonPredicate.GREATER_THAN_OR_EQUAL: "ge",
}

# LLVM fcmp predicates, ordered and unordered.
FCMP_ORDERED = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
FCMP_UNORDERED = {"eq": "ueq", "ne": "une", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


def is_half(t: Attribute) -> bool:
    return isinstance(t, Float16Type | BFloat16Type)


def _nvvm_float_suffix(t: Attribute) -> str:
    return "d" if isinstance(t, Float64Type) else "f"


class HalfPrecision:
    """Widen f16/bf16 operands to f32 and round results back."""

    def __init__(self, b: LLBuilder, t: Attribute):
        self.b = b
        self.t = t

    def widen(self, v: SSAValue) -> SSAValue:
        return self.b.fpext(v, f32) if is_half(self.t) else v

    def narrow(self, v: SSAValue) -> SSAValue:
        return self.b.fptrunc(v, self.t) if is_half(self.t) else v

    @property
    def compute_type(self) -> Attribute:
        return f32 if is_half(self.t) else self.t


# ---------------------------------------------------------------------------
# Floating point.
# ---------------------------------------------------------------------------


def _rounded_binary(kind: str) -> ScalarLowering:
    """addf / subf / mulf / divf with IEEE rounding modes and flush_to_zero."""

    def lower(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        assert isinstance(op, ct.FloatOp)
        t = args[0].type
        mode = op.rounding()
        ftz = op.flush_to_zero
        h = HalfPrecision(b, t)
        lhs, rhs = h.widen(args[0]), h.widen(args[1])
        if is_half(t) and mode not in (
            RoundingMode.NEAREST_EVEN,
            RoundingMode.APPROX,
            RoundingMode.FULL,
        ):
            raise not_supported(
                op,
                f"rounding<{mode.value}> on {t}",
                instead="use rounding<nearest_even> or <approx>, or " + _IN_F32,
            )
        if kind == "div" and mode is RoundingMode.APPROX:
            name = "llvm.nvvm.div.approx" + (".ftz" if ftz else "") + ".f"
            return h.narrow(b.intrinsic(name, [lhs, rhs], h.compute_type))
        if kind == "div" and mode is RoundingMode.FULL:
            name = "llvm.nvvm.div.full" + (".ftz" if ftz else "")
            return h.narrow(b.intrinsic(name, [lhs, rhs], h.compute_type))
        if mode is RoundingMode.NEAREST_EVEN and not ftz:
            fn = {"add": b.fadd, "sub": b.fsub, "mul": b.fmul, "div": b.fdiv}[kind]
            return h.narrow(fn(lhs, rhs))
        # Directed rounding or flush-to-zero: NVVM's rounding-mode intrinsics.
        suffix = (
            ROUNDING_SUFFIX[mode]
            + (".ftz" if ftz else "")
            + "."
            + _nvvm_float_suffix(h.compute_type)
        )
        name = kind
        if kind == "sub":
            name, rhs = "add", b.fneg(rhs)
        return h.narrow(b.intrinsic(f"llvm.nvvm.{name}.{suffix}", [lhs, rhs], h.compute_type))

    return lower


def lower_fma(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ct.FmaOp)
    t = args[0].type
    mode = op.rounding()
    if mode is RoundingMode.NEAREST_EVEN and not op.flush_to_zero:
        return b.fma(args[0], args[1], args[2])
    if is_half(t):
        raise not_supported(
            op,
            f"rounding<{mode.value}> or flush_to_zero on {t}",
            instead="use the default rounding without flush_to_zero, or " + _IN_F32,
        )
    suffix = (
        ROUNDING_SUFFIX[mode] + (".ftz" if op.flush_to_zero else "") + "." + _nvvm_float_suffix(t)
    )
    return b.intrinsic(f"llvm.nvvm.fma.{suffix}", list(args), t)


def _min_max(kind: str) -> ScalarLowering:
    def lower(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        t = args[0].type
        h = HalfPrecision(b, t)
        lhs, rhs = h.widen(args[0]), h.widen(args[1])
        nan = "propagate_nan" in op.properties
        ct_ = h.compute_type
        if "flush_to_zero" in op.properties:
            name = f"llvm.nvvm.f{kind}.ftz" + (".nan" if nan else "") + ".f"
        else:
            base = {"max": "maximum" if nan else "maxnum", "min": "minimum" if nan else "minnum"}[
                kind
            ]
            name = f"llvm.{base}.{ct_}"
        return h.narrow(b.intrinsic(name, [lhs, rhs], ct_))

    return lower


def lower_absf(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    t = args[0].type
    if is_half(t):
        bits = b.bitcast(args[0], i16)
        return b.bitcast(b.and_(bits, b.const(0x7FFF, i16)), t)
    return b.intrinsic(f"llvm.fabs.{t}", [args[0]], t)


def lower_negf(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    t = args[0].type
    if is_half(t):
        bits = b.bitcast(args[0], i16)
        return b.bitcast(b.xor(bits, b.const(-0x8000, i16)), t)
    return b.fneg(args[0])


def _computed_in_f32(
    compute: Callable[..., SSAValue], *, f64_compute: Callable[..., SSAValue] | None = None
) -> ScalarLowering:
    """A function of the op's operands computed in f32 (halves widened, the result
    rounded back once); f64 operands by `f64_compute` (not supported without one)."""

    def lower(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        t = args[0].type
        if isinstance(t, Float64Type):
            if f64_compute is None:
                raise not_supported(op, "f64 operands", instead=_IN_F32)
            return f64_compute(b, *args)
        h = HalfPrecision(b, t)
        return h.narrow(compute(b, *(h.widen(a) for a in args)))

    return lower


def lower_exp(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ct.ExpOp)
    if op.rounding() is RoundingMode.APPROX:
        return _computed_in_f32(
            lambda bb, x: bb.intrinsic(
                "llvm.nvvm.ex2.approx.f", [bb.fmul(x, bb.const(mf.LOG2E, f32))], f32
            )
        )(b, op, args)
    return _computed_in_f32(mf.exp_f32, f64_compute=mf64.exp_f64)(b, op, args)


def lower_tanh(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ct.TanHOp)
    if op.rounding() is RoundingMode.APPROX:
        return _computed_in_f32(lambda bb, x: bb.intrinsic("llvm.nvvm.tanh.approx.f32", [x], f32))(
            b, op, args
        )
    return _computed_in_f32(mf.tanh_f32, f64_compute=mf64.tanh_f64)(b, op, args)


def lower_exp2(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    name = "llvm.nvvm.ex2.approx" + (".ftz" if "flush_to_zero" in op.properties else "") + ".f"
    return _computed_in_f32(lambda bb, x: bb.intrinsic(name, [x], f32), f64_compute=mf64.exp2_f64)(
        b, op, args
    )


def rsqrt_f64(b: LLBuilder, x: SSAValue) -> SSAValue:
    """1/sqrt(x) to f64 accuracy: `rsqrt.approx.f64` (about 2^-22 relative) refined by
    two Newton steps y += y/2 (1 - x y^2), each squaring the error.  x y^2 is formed
    as (x y) y so that it neither overflows nor underflows for subnormal or huge x.
    Zeros, infinities, negatives and NaN keep the approximation's IEEE result."""
    y = b.intrinsic("llvm.nvvm.rsqrt.approx.d", [x], f64)
    refined = y
    half = b.const(0.5, f64)
    one = b.const(1.0, f64)
    for _ in range(2):
        xy = b.fmul(x, refined)
        residual = b.fma(b.fneg(xy), refined, one)
        refined = b.fma(b.fmul(refined, half), residual, refined)
    inf = b.const(math.inf, f64)
    special = b.or_(
        b.fcmp("ule", x, b.const(0.0, f64)),  # zero, negative or NaN
        b.fcmp("oeq", x, inf),
    )
    return b.select(special, y, refined)


def lower_rsqrt(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    t = args[0].type
    ftz = ".ftz" if "flush_to_zero" in op.properties else ""
    if isinstance(t, Float64Type):
        return rsqrt_f64(b, args[0])
    return _computed_in_f32(lambda bb, x: bb.intrinsic(f"llvm.nvvm.rsqrt.approx{ftz}.f", [x], f32))(
        b, op, args
    )


def lower_sqrt(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ct.SqrtOp)
    t = args[0].type
    mode = op.rounding()
    ftz = op.flush_to_zero
    h = HalfPrecision(b, t)
    x = h.widen(args[0])
    ct_ = h.compute_type
    if mode is RoundingMode.APPROX:
        return h.narrow(
            b.intrinsic("llvm.nvvm.sqrt.approx" + (".ftz" if ftz else "") + ".f", [x], ct_)
        )
    if mode is RoundingMode.NEAREST_EVEN and not ftz:
        return h.narrow(b.intrinsic(f"llvm.sqrt.{ct_}", [x], ct_))
    if is_half(t):
        raise not_supported(
            op,
            f"rounding<{mode.value}> on {t}",
            instead="use rounding<nearest_even> or <approx>, or " + _IN_F32,
        )
    suffix = ROUNDING_SUFFIX[mode] + (".ftz" if ftz else "") + "." + _nvvm_float_suffix(t)
    return b.intrinsic(f"llvm.nvvm.sqrt.{suffix}", [x], t)


def _rounding_intrinsic(base: str) -> ScalarLowering:
    """floor / ceil: exact in any precision."""

    def lower(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        t = args[0].type
        h = HalfPrecision(b, t)
        return h.narrow(
            b.intrinsic(f"llvm.{base}.{h.compute_type}", [h.widen(args[0])], h.compute_type)
        )

    return lower


def lower_cmpf(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ct.CmpFOp)
    t = args[0].type
    h = HalfPrecision(b, t)  # widening is exact, so comparisons are unchanged
    pred = PREDICATE[op.predicate]
    table = FCMP_ORDERED if op.ordered else FCMP_UNORDERED
    return b.fcmp(table[pred], h.widen(args[0]), h.widen(args[1]))


# ---------------------------------------------------------------------------
# Integers.
# ---------------------------------------------------------------------------


def _signed(op: Operation) -> bool:
    s = op.properties.get("signedness")
    return s is None or s.data is Signedness.SIGNED  # pyright: ignore[reportAttributeAccessIssue]


def _binary(fn: Callable[[LLBuilder], Callable[[SSAValue, SSAValue], SSAValue]]) -> ScalarLowering:
    return lambda b, op, args: fn(b)(args[0], args[1])


def lower_addi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    if args[0].type == i1:
        return b.xor(args[0], args[1])
    return b.add(args[0], args[1])


def lower_subi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    if args[0].type == i1:
        return b.xor(args[0], args[1])
    return b.sub(args[0], args[1])


def lower_muli(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    if args[0].type == i1:
        return b.and_(args[0], args[1])
    return b.mul(args[0], args[1])


def lower_divi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ct.DivIOp)
    x, y = args
    t = x.type
    signed = _signed(op)
    q = b.sdiv(x, y) if signed else b.udiv(x, y)
    mode = op.rounding.data
    if mode is RoundingMode.ZERO:
        return q
    r = b.srem(x, y) if signed else b.urem(x, y)
    zero = b.const(0, t)
    inexact = b.icmp("ne", r, zero)
    if signed:
        # sign(r) != sign(y) <=> the true quotient is below the truncated one.
        opposite = b.icmp("lt", b.xor(r, y), zero)
        if mode is RoundingMode.NEGATIVE_INF:
            adjust = b.and_(inexact, opposite)
            return b.sub(q, b.zext(adjust, t))
        same = b.xor(opposite, b.const(1, i1))
        return b.add(q, b.zext(b.and_(inexact, same), t))
    return b.add(q, b.zext(inexact, t))


def lower_remi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return b.srem(args[0], args[1]) if _signed(op) else b.urem(args[0], args[1])


def _int_intrinsic_minmax(kind: str) -> ScalarLowering:
    def lower(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
        t = args[0].type
        prefix = "s" if _signed(op) else "u"
        if t == i1:
            fn = b.or_ if (kind == "max") == (prefix == "u") else b.and_
            return fn(args[0], args[1])
        return b.intrinsic(f"llvm.{prefix}{kind}.{t}", [args[0], args[1]], t)

    return lower


def lower_absi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    t = args[0].type
    return b.intrinsic(f"llvm.abs.{t}", [args[0], b.const(0, i1)], t)


def lower_negi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    t = args[0].type
    return b.sub(b.const(0, t), args[0])


def lower_shri(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return b.ashr(args[0], args[1]) if _signed(op) else b.lshr(args[0], args[1])


def lower_mulhii(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    t = args[0].type
    assert isinstance(t, IntegerType)
    name = {16: "us", 32: "ui", 64: "ull"}.get(t.width.data)
    if name is None:
        raise not_supported(op, f"mulhii on {t}", instead="use i16, i32 or i64 operands")
    return b.intrinsic(f"llvm.nvvm.mulhi.{name}", list(args), t)


def lower_cmpi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    assert isinstance(op, ct.CmpIOp)
    return b.icmp(PREDICATE[op.predicate], args[0], args[1], _signed(op))


def lower_select(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return b.select(args[0], args[1], args[2])


# ---------------------------------------------------------------------------
# Conversions.
# ---------------------------------------------------------------------------


def lower_exti(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    to = element_type(op.results[0].type)
    return b.sext(args[0], to) if _signed(op) else b.zext(args[0], to)


def lower_trunci(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return b.trunc(args[0], element_type(op.results[0].type))


def convert_float(b: LLBuilder, v: SSAValue, to: Attribute) -> SSAValue:
    src = v.type
    if src == to:
        return v
    if is_half(src) and is_half(to):
        return b.fptrunc(b.fpext(v, f32), to)
    width = {Float16Type: 16, BFloat16Type: 16, Float32Type: 32, Float64Type: 64}
    ws = next(w for c, w in width.items() if isinstance(src, c))
    wt = next(w for c, w in width.items() if isinstance(to, c))
    return b.fpext(v, to) if wt > ws else b.fptrunc(v, to)


def lower_fpowi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    """`x ** n` for an integer `n`: `|x| ** n` by `pow` (n converted to f32), with the
    sign of `x` when `n` is odd, read from the integer itself (so exponents past 2^24
    keep their parity)."""
    x, n = args
    if isinstance(x.type, Float64Type):
        return mf64.powi_f64(b, x, n)
    h = HalfPrecision(b, x.type)
    wide = h.widen(x)
    magnitude = mf.pow_f32(b, b.intrinsic("llvm.fabs.f32", [wide], f32), b.sitofp(n, f32))
    odd = b.icmp("ne", b.and_(n, b.const(1, n.type)), b.const(0, n.type))
    sign = b.select(odd, b.and_(b.bitcast(wide, i32), b.const(-0x80000000, i32)), b.const(0, i32))
    return h.narrow(b.bitcast(b.or_(b.bitcast(magnitude, i32), sign), f32))


def lower_ftof(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    to = element_type(op.results[0].type)
    src = element_type(op.operands[0].type)
    assert isinstance(op, ct.FToFOp)
    mode = op.rounding_mode.data
    if tf32.is_tf32(to):
        if fp8.is_fp8(src):
            return tf32.round_to_tf32(b, fp8.decode_to_f32(b, args[0], src), mode)
        return tf32.round_to_tf32(b, args[0], mode)
    if tf32.is_tf32(src):
        # A tf32 register is the f32 of the same value.
        src = f32
    if mode is RoundingMode.NEAREST_AWAY:
        raise not_supported(
            op,
            f"rounding<{mode.value}> to {to}",
            instead="use rounding<nearest_even> (ct.astype's default) or a directed rounding",
        )
    if fp8.is_fp8(src) or fp8.is_fp8(to):
        assert isinstance(op, ct.FToFOp)
        plain = Float16Type | BFloat16Type | Float32Type | Float64Type
        if not (fp8.is_fp8(src) or isinstance(src, plain)) or not (
            fp8.is_fp8(to) or isinstance(to, plain)
        ):
            raise not_supported(
                op,
                f"conversion from {src} to {to}",
                instead="convert in two steps through f32 (two ct.astype)",
            )
        return fp8.convert(b, op, args[0], src, to, mode, convert_float)
    if not isinstance(to, Float16Type | BFloat16Type | Float32Type | Float64Type) or not isinstance(
        args[0].type, Float16Type | BFloat16Type | Float32Type | Float64Type
    ):
        raise not_supported(
            op,
            f"conversion from {args[0].type} to {to}",
            instead="convert in two steps through f32 (two ct.astype)",
        )
    if mode is RoundingMode.NEAREST_EVEN:
        return convert_float(b, args[0], to)
    return narrow_directed(b, args[0], to, ROUNDING_SUFFIX[mode])


#: PTX type of the float registers.
_CVT_TYPE = {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32", Float64Type: "f64"}


def narrow_directed(b: LLBuilder, x: SSAValue, to: Attribute, rounding: str) -> SSAValue:
    """A narrowing conversion rounded toward zero (`rz`), -inf (`rm`) or +inf (`rp`):
    one `cvt.rz|rm|rp`.  f64 to bf16 goes through f32 (PTX has no `cvt.bf16.f64`
    before sm_90); two directed roundings the same way are one, as f32 holds every
    bf16 value."""
    if isinstance(to, BFloat16Type) and isinstance(x.type, Float64Type):
        x = narrow_directed(b, x, f32, rounding)
    cvt = ptx.PtxAsm(scoped=False)
    result, source = cvt.output(to), cvt.input(x)
    cvt.instr(
        ptx.opcode("cvt", rounding, _CVT_TYPE[type(to)], _CVT_TYPE[type(x.type)]), result, source
    )  # pyright: ignore[reportArgumentType]
    return b.asm(cvt, side_effects=False)[0]


def lower_itof(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    to = element_type(op.results[0].type)
    x = args[0]
    src = x.type
    assert isinstance(src, IntegerType)
    if not isinstance(to, Float16Type | BFloat16Type | Float32Type | Float64Type):
        raise not_supported(
            op,
            f"conversion to {to}",
            instead="convert to f32 first, then to the type (two ct.astype)",
        )
    signed = _signed(op)
    wide = i64 if src.width.data == 64 else i32
    x = b.int_cast(x, wide, signed) if src != wide else x
    # Through f32 (f64 for 64-bit sources / f64 targets): exact below 2^24, one
    # rounding to the half types.
    via: Attribute = Float64Type() if isinstance(to, Float64Type) else f32
    if signed:
        y = b.sitofp(x, via)
    else:
        name = {
            (32, 32): "ui2f.rn",
            (64, 32): "ull2f.rn",
            (32, 64): "ui2d.rn",
            (64, 64): "ull2d.rn",
        }[(wide.width.data, 64 if isinstance(via, Float64Type) else 32)]
        y = b.intrinsic(f"llvm.nvvm.{name}", [x], via)
    return convert_float(b, y, to)


def lower_ftoi(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    """Round toward zero (`cvt.rzi`: saturating, NaN to 0).  Out-of-range values are
    undefined in cuda_tile; tileir gives what tileiras gives: i16 saturates, i8
    saturates to 16 bits and keeps the low byte, and i1 means "non-zero" (NaN is
    true), as cuTile's `astype(bool)` expects."""
    to = element_type(op.results[0].type)
    assert isinstance(to, IntegerType)
    x = args[0]
    if is_half(x.type):
        x = b.fpext(x, f32)
    if not isinstance(x.type, Float32Type | Float64Type):
        raise not_supported(
            op,
            f"conversion from {args[0].type}",
            instead="convert to f32 first, then to the integer type (two ct.astype)",
        )
    width = to.width.data
    if width == 1:
        return b.fcmp("une", x, b.const(0.0, x.type))
    signed = _signed(op)
    src = "d" if isinstance(x.type, Float64Type) else "f"
    wide = i64 if width == 64 else i32
    kind = ("ll" if wide == i64 else "i") if signed else ("ull" if wide == i64 else "ui")
    y = b.intrinsic(f"llvm.nvvm.{src}2{kind}.rz", [x], wide)
    if width < 32:
        # Saturate to the 16-bit range, as the hardware's 16-bit conversion does.
        lo, hi = (-(1 << 15), (1 << 15) - 1) if signed else (0, (1 << 16) - 1)
        prefix = "s" if signed else "u"
        y = b.intrinsic(f"llvm.{prefix}min.i32", [y, b.const(hi, i32)], i32)
        if signed:
            y = b.intrinsic("llvm.smax.i32", [y, b.const(lo, i32)], i32)
    return b.int_cast(y, to, signed) if to != wide else y


def lower_bitcast(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    to = element_llvm_type(op.results[0].type)  # 8-bit floats are i8 registers
    return args[0] if args[0].type == to else b.bitcast(args[0], to)


def lower_int_to_ptr(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    """A 64-bit address to a global pointer (cuTile's list-of-arrays table entries)."""
    return b.v(llvm.IntToPtrOp.create(operands=[args[0]], result_types=[GLOBAL_PTR]))


def lower_ptr_to_int(b: LLBuilder, op: Operation, args: Sequence[SSAValue]) -> SSAValue:
    return b.v(llvm.PtrToIntOp(args[0], element_llvm_type(op.results[0].type)))


SCALAR_LOWERINGS: dict[type[Operation], ScalarLowering] = {
    ct.AddFOp: _rounded_binary("add"),
    ct.SubFOp: _rounded_binary("sub"),
    ct.MulFOp: _rounded_binary("mul"),
    ct.DivFOp: _rounded_binary("div"),
    ct.FmaOp: lower_fma,
    ct.MaxFOp: _min_max("max"),
    ct.MinFOp: _min_max("min"),
    ct.AbsFOp: lower_absf,
    ct.NegFOp: lower_negf,
    ct.ExpOp: lower_exp,
    ct.Exp2Op: lower_exp2,
    ct.LogOp: _computed_in_f32(mf.log_f32, f64_compute=mf64.log_f64),
    ct.Log2Op: _computed_in_f32(mf.log2_f32, f64_compute=mf64.log2_f64),
    ct.TanHOp: lower_tanh,
    ct.SinOp: _computed_in_f32(tf.sin_f32, f64_compute=tf64.sin_f64),
    ct.CosOp: _computed_in_f32(tf.cos_f32, f64_compute=tf64.cos_f64),
    ct.TanOp: _computed_in_f32(tf.tan_f32, f64_compute=tf64.tan_f64),
    ct.Atan2Op: _computed_in_f32(tf.atan2_f32, f64_compute=tf64.atan2_f64),
    ct.SinHOp: _computed_in_f32(mf.sinh_f32, f64_compute=mf64.sinh_f64),
    ct.CosHOp: _computed_in_f32(mf.cosh_f32, f64_compute=mf64.cosh_f64),
    ct.PowOp: _computed_in_f32(mf.pow_f32, f64_compute=mf64.pow_f64),
    ct.FPowFOp: _computed_in_f32(mf.pow_f32, f64_compute=mf64.pow_f64),
    ct.FPowIOp: lower_fpowi,
    ct.RemFOp: _computed_in_f32(rf.fmod_f32, f64_compute=mf64.fmod_f64),
    ct.RsqrtOp: lower_rsqrt,
    ct.SqrtOp: lower_sqrt,
    ct.FloorOp: _rounding_intrinsic("floor"),
    ct.CeilOp: _rounding_intrinsic("ceil"),
    ct.CmpFOp: lower_cmpf,
    ct.AddIOp: lower_addi,
    ct.SubIOp: lower_subi,
    ct.MulIOp: lower_muli,
    ct.DivIOp: lower_divi,
    ct.RemIOp: lower_remi,
    ct.MaxIOp: _int_intrinsic_minmax("max"),
    ct.MinIOp: _int_intrinsic_minmax("min"),
    ct.AbsIOp: lower_absi,
    ct.NegIOp: lower_negi,
    ct.ShLIOp: _binary(lambda b: b.shl),
    ct.ShRIOp: lower_shri,
    ct.AndIOp: _binary(lambda b: b.and_),
    ct.OrIOp: _binary(lambda b: b.or_),
    ct.XOrIOp: _binary(lambda b: b.xor),
    ct.MulhiIOp: lower_mulhii,
    ct.CmpIOp: lower_cmpi,
    ct.SelectOp: lower_select,
    ct.ExtIOp: lower_exti,
    ct.TruncIOp: lower_trunci,
    ct.FToFOp: lower_ftof,
    ct.IToFOp: lower_itof,
    ct.FToIOp: lower_ftoi,
    ct.BitcastOp: lower_bitcast,
    ct.IntToPtrOp: lower_int_to_ptr,
    ct.PtrToIntOp: lower_ptr_to_int,
}

_ = AnyFloat
