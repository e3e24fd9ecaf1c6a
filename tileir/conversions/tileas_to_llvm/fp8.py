"""8- and 4-bit float conversions (`ftof` to and from f8E4M3FN, f8E5M2, f8E8M0FNU
and f4E2M1FN).

PTX has no 8-bit float registers: an 8-bit float element is its bits in an i8
register (`context.llvm_scalar_type`), and an f4E2M1FN element its four bits in the
low half of an i8 register, the high half zero (one element per byte, as
`reinterpret` (`slices.py`) unpacks them from bytes, low nibble first).
Conversions go through f32, which holds every 8- and 4-bit float value exactly,
with integer operations only, so they are the same on every target (sm_80 has no
fp8 `cvt`, only sm_100a and newer have `cvt` from and to `.e2m1x2`) and match
`tileir.interpreter` bit for bit.  (Tensor-core operands, whose NaN bits do not
matter, are widened to f16 by the hardware from sm_89 on: `widen_pair_to_f16`.)

* widening (f8 to f16/bf16/f32/f64) is exact: the f8 bits are placed in an f32's
  exponent and fraction fields and scaled by a power of two (subnormals included);
  f8E4M3FN `0x7f`/`0xff` and f8E5M2 exponent 31 give NaN and infinities.
* narrowing to f8E4M3FN/f8E5M2 rounds to nearest-even once (f64 sources are first
  rounded to odd in f32, so the second rounding is exact).  Out-of-range values and
  infinities saturate to +-448 (f8E4M3FN) or +-57344 (f8E5M2), as NVIDIA's tileiras
  does (`F2FP.SATFINITE` in its SASS, PTX `cvt.rn.satfinite`) and the interpreter
  follows; NaN stays NaN (ml_dtypes' bits, sign kept).
* f4E2M1FN (sign, 2 exponent bits with bias 1, 1 fraction bit: 0, 0.5, 1, 1.5, 2,
  3, 4, 6 and their negatives) is the same scheme with its own fields: widening
  is exact (no NaN or infinity codes); narrowing rounds to nearest-even once and
  saturates beyond +-6 (infinities included) as PTX's only e2m1 conversion
  (`cvt.rn.satfinite.e2m1x2.f32`) does.  NaN has no f4E2M1FN code: it becomes
  +6 (`0x7`), in the interpreter too.
* to f8E8M0FNU (powers of two 2^(e-127)): round down (`zero`) or up
  (`positive_inf`), clamped to [2^-127, 2^127]; zero, negative and NaN values give
  NaN (`0xff`), +inf gives 2^127.  From f8E8M0FNU: 2^(e-127), `0xff` is NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float32Type,
    Float64Type,
    IntegerType,
    f16,
    f32,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.diagnostics import not_supported
from tileir.dialects.cuda_tile.attributes import RoundingMode


@dataclass(frozen=True)
class Fp8Format:
    """An 8- or 4-bit float format: a sign, exponent and `mbits` fraction bits."""

    mbits: int
    bias: int
    #: The sign bit; the bits below it are the magnitude.
    sign: int
    #: The bits of a NaN (sign clear), and the code an overflow rounds to.
    nan: int
    overflow: int
    #: f32 magnitudes (as bits) from which the result is `overflow`.
    overflow_from: int


# Overflow saturates to the largest finite value (448, 57344), as tileiras's
# `cvt.rn.satfinite` does; it starts where round-to-nearest-even would pass it.
E4M3FN = Fp8Format(mbits=3, bias=7, sign=0x80, nan=0x7F, overflow=0x7E, overflow_from=0x43E80001)
E5M2 = Fp8Format(mbits=2, bias=15, sign=0x80, nan=0x7E, overflow=0x7B, overflow_from=0x47700000)
# f4E2M1FN has no NaN: `nan` is the code NaN sources give (+6).  Magnitudes from 7
# (the tie between 6 and 8, which is even) saturate to 6; below, rounding stays <= 6.
E2M1FN = Fp8Format(mbits=1, bias=1, sign=0x8, nan=0x7, overflow=0x7, overflow_from=0x40E00000)


def is_fp8(t: Attribute) -> bool:
    """An 8-bit float or f4E2M1FN: a float held as its bits in an i8 register."""
    return isinstance(t, Float8E4M3FNType | Float8E5M2Type | Float8E8M0FNUType | Float4E2M1FNType)


def _format(t: Attribute) -> Fp8Format:
    if isinstance(t, Float4E2M1FNType):
        return E2M1FN
    return E4M3FN if isinstance(t, Float8E4M3FNType) else E5M2


def _u32(b: LLBuilder, v: int) -> SSAValue:
    return b.const(v - (1 << 32) if v >= 1 << 31 else v, i32)


def decode_to_f32(b: LLBuilder, bits: SSAValue, t: Attribute) -> SSAValue:
    """The f32 value of the 8- or 4-bit float `bits` (i8) of type `t`; exact."""
    x = b.zext(bits, i32)
    if isinstance(t, Float8E8M0FNUType):
        # 2^(e-127): e << 23, except 2^-127 (an f32 subnormal) and NaN.
        word = b.shl(x, b.const(23, i32))
        word = b.select(b.icmp("eq", x, b.const(0, i32)), b.const(0x400000, i32), word)
        word = b.select(b.icmp("eq", x, b.const(0xFF, i32)), b.const(0x7FC00000, i32), word)
        return b.bitcast(word, f32)
    fmt = _format(t)
    magnitude = b.and_(x, b.const(fmt.sign - 1, i32))
    sign = b.shl(b.and_(x, b.const(fmt.sign, i32)), b.const(32 - fmt.sign.bit_length(), i32))
    # Exponent and fraction fields moved into an f32's: the value times 2^(bias-127)
    # (an f32 subnormal for f8 subnormals); the power-of-two scale is exact.
    shifted = b.bitcast(b.shl(magnitude, b.const(23 - fmt.mbits, i32)), f32)
    scaled = b.bitcast(b.fmul(shifted, b.const(2.0 ** (127 - fmt.bias), f32)), i32)
    if isinstance(t, Float4E2M1FNType):
        word = scaled  # every code is a number
    elif isinstance(t, Float8E4M3FNType):
        special = b.icmp("eq", magnitude, b.const(0x7F, i32))
        word = b.select(special, b.const(0x7FC00000, i32), scaled)
    else:
        special = b.icmp("uge", magnitude, b.const(0x7C, i32), signed=False)
        inf_or_nan = b.select(
            b.icmp("eq", magnitude, b.const(0x7C, i32)),
            b.const(0x7F800000, i32),
            b.const(0x7FC00000, i32),
        )
        word = b.select(special, inf_or_nan, scaled)
    return b.bitcast(b.or_(word, sign), f32)


#: The first compute capability with `cvt.rn.f16x2.e4m3x2` / `.e5m2x2` (ptxas wants PTX ISA 8.1).
FLOAT8_CVT_CC = 89


def widen_pair_to_f16(
    b: LLBuilder, lo: SSAValue, hi: SSAValue, t: Attribute
) -> tuple[SSAValue, SSAValue]:
    """Two f8E4M3FN or f8E5M2 values (i8 bits) as f16, with the hardware's one
    `cvt.rn.f16x2.{e4m3x2|e5m2x2}` (sm_89 and later).  Exact for every number, as
    `decode_to_f32` is; a NaN code gives an f16 NaN whose bits are the GPU's, so this
    serves where only NaN-ness counts (tensor-core operands: `mma.widened_to_f16`), not
    `ftof`, which keeps `decode_to_f32`'s bits, the interpreter's."""
    kind = "e4m3x2" if isinstance(t, Float8E4M3FNType) else "e5m2x2"
    pair = b.or_(b.zext(lo, i16), b.shl(b.zext(hi, i16), b.const(8, i16)))
    cvt = ptx.PtxAsm(scoped=False)
    result, source = cvt.output(i32), cvt.input(pair)
    cvt.instr(f"cvt.rn.f16x2.{kind}", result, source)
    (word,) = b.asm(cvt, side_effects=False, min_ptx_isa="8.1")
    low = b.bitcast(b.trunc(word, i16), f16)
    high = b.bitcast(b.trunc(b.lshr(word, b.const(16, i32)), i16), f16)
    return low, high


def f64_to_f32_odd(b: LLBuilder, x: SSAValue) -> SSAValue:
    """f64 -> f32 rounded to odd (toward zero, low bit set when inexact): rounding
    that once more to a format of at most 22 significand bits (an 8-bit float, tf32)
    equals rounding `x` directly."""
    cvt = ptx.PtxAsm(scoped=False)
    result, source = cvt.output(f32), cvt.input(x)
    cvt.instr("cvt.rz.f32.f64", result, source)
    (t,) = b.asm(cvt, side_effects=False)
    inexact = b.fcmp("one", b.fpext(t, Float64Type()), x)
    word = b.bitcast(t, i32)
    odd = b.or_(word, b.const(1, i32))
    return b.bitcast(b.select(inexact, odd, word), f32)


def _to_f32(b: LLBuilder, x: SSAValue) -> SSAValue:
    if isinstance(x.type, Float64Type):
        return f64_to_f32_odd(b, x)
    if isinstance(x.type, Float32Type):
        return x
    return b.fpext(x, f32)


def _sign_bit(b: LLBuilder, x: SSAValue, bit: int = 0x80) -> SSAValue:
    """`bit` (i32) where `x` has its sign set, NaN included (PTX's `cvt` between
    float types drops a NaN's sign, ml_dtypes keeps it)."""
    width = {Float64Type: 64, Float32Type: 32}.get(type(x.type), 16)  # pyright: ignore[reportArgumentType]
    it = IntegerType(width)
    top = b.lshr(b.bitcast(x, it), b.const(width - bit.bit_length(), it))
    top = b.trunc(top, i32) if width > 32 else top if width == 32 else b.zext(top, i32)
    return b.and_(top, b.const(bit, i32))


def encode_from_f32(b: LLBuilder, x: SSAValue, t: Attribute, sign: SSAValue) -> SSAValue:
    """f32 `x` rounded to nearest-even in f8E4M3FN/f8E5M2/f4E2M1FN, saturating to the
    largest finite value, as i8 bits; `sign` (0 or the format's sign bit, i32) is the
    source's sign (dropped for NaN where the format has none)."""
    fmt = _format(t)
    word = b.bitcast(x, i32)
    a = b.and_(word, b.const(0x7FFFFFFF, i32))
    drop = 23 - fmt.mbits
    # Normal results: round the f32 bits at the f8 fraction's last place (a carry
    # moves into the exponent), then rebias.
    lsb = b.and_(b.lshr(a, b.const(drop, i32)), b.const(1, i32))
    rounded = b.add(b.add(a, b.const((1 << (drop - 1)) - 1, i32)), lsb)
    normal = b.sub(b.lshr(rounded, b.const(drop, i32)), b.const((127 - fmt.bias) << fmt.mbits, i32))
    # Subnormal results: the significand (implicit bit set) shifted right by
    # `shift` with round-to-nearest-even; far too small values give 0.
    exponent = b.lshr(a, b.const(23, i32))
    significand = b.or_(b.and_(a, b.const(0x7FFFFF, i32)), b.const(0x800000, i32))
    shift = b.sub(b.const(drop + 128 - fmt.bias, i32), exponent)
    shift = b.intrinsic("llvm.umin.i32", [shift, b.const(31, i32)], i32)
    quotient = b.lshr(significand, shift)
    remainder = b.and_(significand, b.sub(b.shl(b.const(1, i32), shift), b.const(1, i32)))
    half = b.shl(b.const(1, i32), b.sub(shift, b.const(1, i32)))
    above = b.icmp("ugt", remainder, half, signed=False)
    tie_odd = b.and_(
        b.icmp("eq", remainder, half),
        b.icmp("ne", b.and_(quotient, b.const(1, i32)), b.const(0, i32)),
    )
    up = b.or_(above, tie_odd)
    subnormal = b.add(quotient, b.zext(up, i32))
    min_normal = (128 - fmt.bias) << 23  # 2^(1-bias) as f32 bits
    code = b.select(b.icmp("ult", a, b.const(min_normal, i32), signed=False), subnormal, normal)
    code = b.select(
        b.icmp("uge", a, _u32(b, fmt.overflow_from), signed=False),
        b.const(fmt.overflow, i32),
        code,
    )
    is_nan = b.icmp("ugt", a, b.const(0x7F800000, i32), signed=False)
    if isinstance(t, Float4E2M1FNType):
        sign = b.select(is_nan, b.const(0, i32), sign)
    code = b.select(is_nan, b.const(fmt.nan, i32), code)
    return b.trunc(b.or_(code, sign), i8)


def encode_e8m0(b: LLBuilder, x: SSAValue, up: bool) -> SSAValue:
    """A power of two 2^(e-127) as f8E8M0FNU bits: `x` rounded down (or up when
    `up`), clamped to [2^-127, 2^127]; non-positive and NaN values give NaN."""
    wide = isinstance(x.type, Float64Type)
    if not wide and not isinstance(x.type, Float32Type):
        x = b.fpext(x, f32)
    it = i64 if wide else i32
    frac_bits, src_bias = (52, 1023) if wide else (23, 127)
    word = b.bitcast(x, it)
    exponent = b.lshr(word, b.const(frac_bits, it))  # includes the sign for negatives
    fraction = b.and_(word, b.const((1 << frac_bits) - 1, it))
    code = b.add(exponent, b.const(127 - src_bias, it))
    if up:
        code = b.add(code, b.zext(b.icmp("ne", fraction, b.const(0, it)), it))
    code = b.intrinsic(f"llvm.smax.i{it.width.data}", [code, b.const(0, it)], it)
    code = b.intrinsic(f"llvm.smin.i{it.width.data}", [code, b.const(254, it)], it)
    if not wide:
        # f32 subnormals: 2^-127 rounded down; up, 2^-126 when above 2^-127.
        tiny = b.icmp("eq", exponent, b.const(0, it))
        tiny_up = b.zext(b.icmp("ugt", fraction, b.const(0x400000, it), signed=False), it)
        code = b.select(tiny, tiny_up if up else b.const(0, it), code)
    zero = b.const(0.0, x.type)
    positive = b.fcmp("ogt", x, zero)  # false for NaN, zero and negatives
    code = b.select(positive, code, b.const(0xFF, it))
    return b.trunc(code, i8)


def convert(
    b: LLBuilder,
    op: Operation,
    x: SSAValue,
    src: Attribute,
    to: Attribute,
    mode: RoundingMode,
    widen: Callable[[LLBuilder, SSAValue, Attribute], SSAValue],
) -> SSAValue:
    """`ftof` of `x` (element type `src`) to `to` where either side is 8- or 4-bit.
    `widen(b, v, to)` converts an f32 to a wider-than-8-bit float type."""
    value = decode_to_f32(b, x, src) if is_fp8(src) else x
    if isinstance(to, Float8E8M0FNUType):
        return encode_e8m0(b, value, mode is RoundingMode.POSITIVE_INF)
    if is_fp8(to):
        if mode is not RoundingMode.NEAREST_EVEN:
            raise not_supported(
                op,
                f"rounding<{mode.value}> to {to}",
                instead="use rounding<nearest_even>, ct.astype's default",
            )
        bit = _format(to).sign
        sign = _sign_bit(b, x, bit) if not is_fp8(src) else _sign_bit(b, value, bit)
        return encode_from_f32(b, _to_f32(b, value), to, sign)
    return widen(b, value, to)
