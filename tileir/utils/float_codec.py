"""Float element values to and from their bit patterns without numpy.

A compilation's constants are nearly all scalars or splats: reading one from the
bytecode, rounding a folded value to its element type and writing it back need one
element's bits, and importing numpy and ml_dtypes for that was ~70 ms of a cold
process.  These functions give the bits numpy and ml_dtypes give (`astype` from a
Python float, `view`, `float()` of the element), NaN payloads and signs included, with
`struct` and integer arithmetic; tests/pytest/test_float_codec.py compares them with
ml_dtypes over every 8- and 16-bit pattern and samples of f32 and f64.

Formats by their MLIR names: f16, bf16, f32, f64, tf32 (19 bits; its *value* rounding is
f32's, as numpy's float32 stands for it), f8E4M3FN, f8E5M2, f8E8M0FNU, f4E2M1FN.
"""

from __future__ import annotations

import math
import struct

_F64 = struct.Struct("<d")
_U64 = struct.Struct("<Q")
_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


class _Format:
    """A small float format (a plain class: a dataclass's creation cost a millisecond
    of every process's start)."""

    __slots__ = ("bias", "exponent_bits", "kind", "mantissa_bits", "width")

    def __init__(self, exponent_bits: int, mantissa_bits: int, bias: int, kind: str) -> None:
        self.exponent_bits = exponent_bits
        self.mantissa_bits = mantissa_bits
        self.bias = bias
        #: "ieee" (all-ones exponent: inf and NaNs), "fn" (no inf; all ones is NaN),
        #: "finite" (neither), "e8m0" (unsigned powers of two, 0xFF NaN).
        self.kind = kind
        self.width = exponent_bits + mantissa_bits + (kind != "e8m0")


FORMATS: dict[str, _Format] = {
    "f16": _Format(5, 10, 15, "ieee"),
    "bf16": _Format(8, 7, 127, "ieee"),
    "f32": _Format(8, 23, 127, "ieee"),
    "f64": _Format(11, 52, 1023, "ieee"),
    "f8E4M3FN": _Format(4, 3, 7, "fn"),
    "f8E5M2": _Format(5, 2, 15, "ieee"),
    "f8E8M0FNU": _Format(8, 0, 127, "e8m0"),
    "f4E2M1FN": _Format(2, 1, 1, "finite"),
}

#: Bytes numpy stores an element of each format in (tf32 as float32, f4 in a byte).
ITEM_BYTES: dict[str, int] = {
    "f16": 2,
    "bf16": 2,
    "f32": 4,
    "f64": 8,
    "tf32": 4,
    "f8E4M3FN": 1,
    "f8E5M2": 1,
    "f8E8M0FNU": 1,
    "f4E2M1FN": 1,
}


def f64_bits(value: float) -> int:
    return _U64.unpack(_F64.pack(value))[0]


def f64_from_bits(bits: int) -> float:
    return _F64.unpack(_U64.pack(bits))[0]


def to_f32(value: float) -> float:
    """`value` rounded to float32 (C's cast: to nearest, ties to even; a NaN keeps its
    sign and the top of its payload, quieted), as a Python float."""
    return _F32.unpack(_F32.pack(_f32_safe(value)))[0]


def f32_bits(value: float) -> int:
    """float32's bits of `value` rounded to float32."""
    return _U32.unpack(_F32.pack(_f32_safe(value)))[0]


def _f32_safe(value: float) -> float:
    # struct refuses a finite value that rounds to an f32 infinity; C's cast gives inf.
    if math.isfinite(value) and abs(value) >= 3.4028235677973366e38:
        return math.copysign(math.inf, value)
    return value


def _round_shift(significand: int, shift: int) -> int:
    """`significand >> shift` rounded to nearest, ties to even (exact)."""
    if shift <= 0:
        return significand << -shift
    quotient = significand >> shift
    dropped = significand & ((1 << shift) - 1)
    half = 1 << (shift - 1)
    if dropped > half or (dropped == half and quotient & 1):
        quotient += 1
    return quotient


def _encode_finite(magnitude_bits: int, fmt: _Format) -> int | None:
    """The bits (without sign) of the nearest value of `fmt` to the positive finite f64
    with bits `magnitude_bits`, or None where it rounds past the largest exponent."""
    exponent = magnitude_bits >> 52
    fraction = magnitude_bits & ((1 << 52) - 1)
    if exponent:
        significand, power = fraction | (1 << 52), exponent - 1075
    else:
        significand, power = fraction, -1074
    m = fmt.mantissa_bits
    # The quantum of the result: that of the value's binade, or the subnormals'.
    top = significand.bit_length() - 1 + power
    quantum = max(top - m, 1 - fmt.bias - m)
    n = _round_shift(significand, quantum - power)
    if n >> (m + 1):  # rounding carried into the next binade
        n >>= 1
        quantum += 1
    if n >> m == 0:  # subnormal (or zero)
        return n
    biased = quantum + m + fmt.bias
    if biased >= (1 << fmt.exponent_bits) - (fmt.kind == "ieee"):
        return None
    return (biased << m) | (n & ((1 << m) - 1))


def encode(value: float, name: str) -> int:
    """The bits of `value` converted to format `name` as numpy/ml_dtypes's `astype`
    from a float64 converts it (tf32: float32's bits, shifted to its 19)."""
    if name == "f64":
        return f64_bits(value)
    if name == "f32":
        return f32_bits(value)
    if name == "tf32":
        return f32_bits(value) >> 13
    if name == "bf16":
        return _encode_bf16(value)
    if name == "f8E8M0FNU":
        return _encode_e8m0(value)
    fmt = FORMATS[name]
    # numpy's float16 rounds the float64 once; ml_dtypes's 8- and 4-bit floats round it to
    # float32 first (C's cast), then that to the format.
    bits = f64_bits(value if name == "f16" else to_f32(value))
    sign = bits >> 63
    magnitude = bits & ((1 << 63) - 1)
    sign_bit = sign << (fmt.width - 1)
    all_ones = (1 << (fmt.width - 1)) - 1
    if magnitude > 0x7FF0000000000000:  # NaN
        if name == "f16":
            # numpy keeps the payload's top ten bits (at least one set).
            return sign_bit | 0x7C00 | ((magnitude >> 42) & 0x3FF or 1)
        if fmt.kind == "ieee":
            return sign_bit | (all_ones >> (fmt.mantissa_bits - 1) << (fmt.mantissa_bits - 1))
        if fmt.kind == "fn":
            return sign_bit | all_ones
        # ml_dtypes's f4E2M1FN: a NaN becomes a zero of the other sign.
        return (sign ^ 1) << (fmt.width - 1)
    if magnitude == 0x7FF0000000000000:
        return sign_bit | _overflow(fmt)
    fields = _encode_finite(magnitude, fmt)
    return sign_bit | (_overflow(fmt) if fields is None else fields)


def _overflow(fmt: _Format) -> int:
    """The bits (without sign) an overflow gives: inf, NaN, or the largest value."""
    all_ones = (1 << (fmt.width - 1)) - 1
    if fmt.kind == "ieee":
        return all_ones >> fmt.mantissa_bits << fmt.mantissa_bits
    return all_ones  # "fn": the NaN; "finite": the largest value


def _encode_bf16(value: float) -> int:
    # ml_dtypes converts a float64 to float32 first, then rounds to bfloat16 (ties to
    # even); a NaN becomes the quiet NaN of its sign.
    bits = f32_bits(value)
    if bits & 0x7FFFFFFF > 0x7F800000:
        return (bits >> 16 & 0x8000) | 0x7FC0
    return (bits + 0x7FFF + (bits >> 16 & 1)) >> 16


def _encode_e8m0(value: float) -> int:
    # ml_dtypes: through float32; NaN, infinities, zeros and negatives become the NaN
    # 0xFF; the exponent rounds half up (a subnormal f32 above 2^-127 up to 2^-126,
    # the rest to 2^-127); past 2^127 it is NaN.
    bits = f32_bits(value)
    if bits >> 31 or bits & 0x7FFFFFFF in (0, 0x7F800000) or bits > 0x7F800000:
        return 0xFF
    exponent = bits >> 23
    if exponent == 0:  # an f32 subnormal: 2^-126 above 2^-127, else 2^-127
        return 1 if bits > 0x400000 else 0
    biased = exponent + (1 if bits & 0x7FFFFF >= 0x400000 else 0)
    return 0xFF if biased > 254 else biased


def decode(bits: int, name: str) -> float:
    """The value of bits `bits` of format `name` as a Python float, as `float()` of a
    numpy/ml_dtypes element gives it (a NaN's payload as their conversion leaves it)."""
    if name == "f64":
        return f64_from_bits(bits)
    if name in ("f32", "tf32", "bf16"):
        shift = {"f32": 0, "tf32": 13, "bf16": 16}[name]
        return _F32.unpack(_U32.pack(bits << shift))[0]
    fmt = FORMATS[name]
    m = fmt.mantissa_bits
    if fmt.kind == "e8m0":
        return math.nan if bits == 0xFF else math.ldexp(1.0, bits - 127)
    sign = bits >> (fmt.width - 1)
    exponent = (bits >> m) & ((1 << fmt.exponent_bits) - 1)
    mantissa = bits & ((1 << m) - 1)
    special = exponent == (1 << fmt.exponent_bits) - 1 and (
        fmt.kind == "ieee" or (fmt.kind == "fn" and mantissa == (1 << m) - 1)
    )
    if special:
        if fmt.kind == "ieee" and mantissa == 0:
            return -math.inf if sign else math.inf
        if name == "f16":  # numpy keeps the payload (not quieted)
            return f64_from_bits(sign << 63 | 0x7FF0000000000000 | mantissa << 42)
        return f64_from_bits(sign << 63 | 0x7FF8000000000000)
    if exponent:
        value = math.ldexp(mantissa | (1 << m), exponent - fmt.bias - m)
    else:
        value = math.ldexp(mantissa, 1 - fmt.bias - m)
    return -value if sign else value


def round_to(value: float, name: str) -> float:
    """`value` rounded to format `name` (tf32: to float32, as numpy's float32 stands for
    it) and back to a Python float."""
    if name == "f64":
        return value
    if name in ("f32", "tf32"):
        return to_f32(value)
    return decode(encode(value, name), name)
