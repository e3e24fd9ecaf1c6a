"""Numbers: element types as numpy dtypes, dense attributes as arrays, and MLIR's
textual spelling of element values.

numpy (with `ml_dtypes` for bf16 and the 8- and 4-bit floats) is the judge of
semantics in tileir, so every place that needs an element's value goes through here.
A scalar's or a splat's value needs no array: those paths use `float_codec` (the bits
numpy and ml_dtypes give, without importing them: ~70 ms of a cold process), and numpy
is imported inside the functions that make or read an array.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.parser import AttrParser
from xdsl.utils.exceptions import MultipleSpansParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tileir.diagnostics import SourceLocation
from tileir.utils import float_codec

if TYPE_CHECKING:
    import numpy as np

#: Float element types by their `float_codec` format.
_FLOAT_FORMATS: dict[type, str] = {
    Float16Type: "f16",
    BFloat16Type: "bf16",
    Float32Type: "f32",
    Float64Type: "f64",
    FloatTF32Type: "tf32",
    Float8E4M3FNType: "f8E4M3FN",
    Float8E5M2Type: "f8E5M2",
    Float8E8M0FNUType: "f8E8M0FNU",
    Float4E2M1FNType: "f4E2M1FN",
}


def float_format(el: Attribute) -> str:
    """`el`'s `float_codec` format (the float types `numpy_dtype` knows)."""
    for cls, name in _FLOAT_FORMATS.items():
        if isinstance(el, cls):
            return name
    raise ValueError(f"no numpy dtype for element type {el}")


def element_bytes(el: Attribute) -> int:
    """`numpy_dtype(el).itemsize` without numpy: bytes an element of `el` takes in an
    array (an i1 or i4 one, an f4 one: a byte; a tf32 one: four)."""
    if isinstance(el, IntegerType):
        width = el.width.data
        if width not in (1, 4, 8, 16, 32, 64):
            raise KeyError(width)
        return max(1, width // 8)
    return float_codec.ITEM_BYTES[float_format(el)]


def numpy_dtype(el: Attribute) -> np.dtype:
    """The numpy dtype holding values of element type `el` exactly."""
    import ml_dtypes
    import numpy as np

    if isinstance(el, IntegerType):
        ints = {1: np.bool_, 8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64, 4: np.int8}
        return np.dtype(ints[el.width.data])
    table: dict[type, object] = {
        Float16Type: np.float16,
        BFloat16Type: ml_dtypes.bfloat16,
        Float32Type: np.float32,
        Float64Type: np.float64,
        FloatTF32Type: np.float32,
        Float8E4M3FNType: ml_dtypes.float8_e4m3fn,
        Float8E5M2Type: ml_dtypes.float8_e5m2,
        Float8E8M0FNUType: ml_dtypes.float8_e8m0fnu,
        Float4E2M1FNType: ml_dtypes.float4_e2m1fn,
    }
    for cls, dt in table.items():
        if isinstance(el, cls):
            return np.dtype(dt)  # pyright: ignore[reportArgumentType, reportCallIssue]
    raise ValueError(f"no numpy dtype for element type {el}")


def unsigned_dtype(width: int) -> np.dtype:
    import numpy as np

    return np.dtype({1: np.bool_, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[width])


def to_signed(value: int, width: int) -> int:
    """Two's-complement reinterpretation of a (possibly unsigned) integer."""
    if width == 1:
        return 1 if value & 1 else 0
    value &= (1 << width) - 1
    return value - (1 << width) if value >= 1 << (width - 1) else value


#: Float element types whose dense bytes are their numpy dtype's little-endian layout.
_RAW_FLOATS = (
    Float16Type,
    BFloat16Type,
    Float32Type,
    Float64Type,
    Float8E4M3FNType,
    Float8E5M2Type,
)


def dense_to_numpy(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    import numpy as np

    el = attr.get_element_type()
    if isinstance(el, _RAW_FLOATS) and sys.byteorder == "little":
        # The bytes as they are: xDSL decodes an f16, bf16 or 8-bit float element in
        # Python (a large table of constants took seconds).  Without a NaN the values are the decoded
        # ones exactly; a NaN's sign and payload are left to the decoding below.
        raw = np.frombuffer(attr.data.data, dtype=numpy_dtype(el))
        if raw.size == len(attr) and not np.isnan(raw).any():
            return raw.reshape(attr.get_shape()).copy()
    values = attr.get_values()
    if isinstance(el, IntegerType) and el.width.data == 1:
        return np.array([bool(v) for v in values], dtype=np.bool_).reshape(attr.get_shape())
    return (
        np.array(values, dtype=np.float64 if isinstance(el, AnyFloat) else np.int64)
        .astype(numpy_dtype(el))
        .reshape(attr.get_shape())
    )


def dense_splat(attr: DenseIntOrFPElementsAttr) -> int | float | None:
    """When `attr`'s elements are stored bit-identical, their value (`dense_first`);
    None when they are not (they may still be equal values: NaNs of other payloads,
    which `dense_to_numpy` makes one) or `attr` is empty.  Without numpy."""
    data = attr.data.data
    count = len(attr)
    if not count or len(data) % count:
        return None
    if data != data[: len(data) // count] * count:
        return None
    return dense_first(attr)


def dense_first(attr: DenseIntOrFPElementsAttr) -> int | float | None:
    """`attr`'s first element as `dense_to_numpy(attr)`'s first element's
    `int()`/`float()` gives it (a bool as 0 or 1), read from that element alone without
    numpy; None when `attr` is empty."""
    data = attr.data.data
    count = len(attr)
    if not count or len(data) % count:
        return None
    first = data[: len(data) // count]
    el = attr.get_element_type()
    if isinstance(el, IntegerType):
        value = int(el.unpack(first, 1)[0])
        if el.width.data == 1:
            return 1 if value else 0
        return to_signed(value, 8 * element_bytes(el))
    assert isinstance(el, AnyFloat)
    name = float_format(el)
    if isinstance(el, _RAW_FLOATS) and sys.byteorder == "little":
        value = float_codec.decode(int.from_bytes(first, "little"), name)
        if not math.isnan(value):
            return value
    # As dense_to_numpy: xDSL's value of the element, converted to numpy's dtype.
    return float_codec.round_to(el.unpack(first, 1)[0], name)


def numpy_to_dense(
    values: Sequence[object] | np.ndarray, shape: Sequence[int], el: Attribute
) -> DenseIntOrFPElementsAttr:
    if isinstance(values, list | tuple) and not any(
        isinstance(v, list | tuple) or getattr(v, "ndim", 0) for v in values
    ):
        flat: list[Any] = list(values)
    else:
        import numpy as np

        flat = list(np.asarray(values, dtype=object).reshape(-1))
    if isinstance(el, IntegerType):
        width = el.width.data
        ints = [to_signed(int(v), width) for v in flat]
        if width == 1:
            ints = [1 if v else 0 for v in ints]
        return DenseIntOrFPElementsAttr.from_list(TensorType(el, list(shape)), ints)
    if not isinstance(el, AnyFloat):
        raise ValueError(f"no dense elements of type {el}")
    floats = [round_to_float_type(float(v), el) for v in flat]
    return DenseIntOrFPElementsAttr.from_list(TensorType(el, list(shape)), floats)


# ---------------------------------------------------------------------------
# Printing element values as MLIR does.
# ---------------------------------------------------------------------------


def numpy_bits(value: float, el: Attribute) -> int:
    """The bits of `value` rounded to `numpy_dtype(el)` for a float type `el` (tf32:
    float32's), as numpy's `astype` gives them."""
    name = float_format(el)
    return float_codec.encode(value, "f32" if name == "tf32" else name)


def _float_bits_hex(value: float, el: AnyFloat) -> str:
    width = float_codec.ITEM_BYTES[float_format(el)] * 2
    return "0x" + f"{numpy_bits(value, el):0{width}X}"


def _natural_digits(el: AnyFloat) -> int:
    precision = {
        Float16Type: 11,
        BFloat16Type: 8,
        Float32Type: 24,
        Float64Type: 53,
        FloatTF32Type: 11,
    }
    bits = 24
    for cls, p in precision.items():
        if isinstance(el, cls):
            bits = p
    # llvm::APFloat::toString: "enough digits so the number can be round-tripped".
    return 2 + bits * 59 // 196


def _round_trips(text: str, value: float, el: AnyFloat) -> bool:
    original = numpy_bits(value, el)
    try:
        back = float(text)
    except (OverflowError, ValueError):
        return False
    return numpy_bits(back, el) == original


def _apfloat_default_string(value: float, el: AnyFloat) -> str:
    """llvm::APFloat::toString with its defaults (natural precision, max padding 3,
    trailing zeros truncated)."""
    digits = _natural_digits(el)
    d = Decimal(value)
    if d == 0:
        return "0.0E+0"
    sign = "-" if d < 0 else ""
    d = abs(d)
    digit_str, exp10 = _significant_digits(d, digits)
    digit_str = digit_str.rstrip("0") or "0"
    n = len(digit_str)
    exp = exp10 - (n - 1)  # exponent of the least significant digit
    max_padding = 3
    if exp >= 0:
        scientific = exp > max_padding or n + exp > digits
    else:
        msd = exp + n - 1
        scientific = msd < 0 and -msd > max_padding
    if scientific:
        e = exp + n - 1
        body = digit_str[0] + "." + (digit_str[1:] or "0")
        return f"{sign}{body}E{'+' if e >= 0 else '-'}{abs(e)}"
    if exp >= 0:
        return sign + digit_str + "0" * exp
    point = n + exp
    if point > 0:
        return sign + digit_str[:point] + "." + digit_str[point:]
    return sign + "0." + "0" * (-point) + digit_str


def _significant_digits(d: Decimal, digits: int) -> tuple[str, int]:
    """`|d|` rounded to `digits` significant digits as APFloat::toString rounds (a
    dropped first digit of 5 or more rounds up): the digits and the decimal exponent
    of the first one."""
    d = abs(d)
    exp10 = d.adjusted()
    scaled = d.scaleb(digits - 1 - exp10).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    if scaled >= Decimal(10) ** digits:
        exp10 += 1
        scaled = d.scaleb(digits - 1 - exp10).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return str(int(scaled)), exp10


def format_float(value: float, el: AnyFloat) -> str:
    if math.isfinite(value):
        # Six significant digits, zero-padded to six decimals (APFloat::toString with
        # FormatPrecision=6, TruncateZero=false), kept only if it round-trips.
        if value == 0:
            text = ("-" if math.copysign(1.0, value) < 0 else "") + "0.000000e+00"
        else:
            digit_str, exp10 = _significant_digits(Decimal(value), 6)
            sign = "-" if value < 0 else ""
            text = f"{sign}{digit_str[0]}.{digit_str[1:]}0e{'+' if exp10 >= 0 else '-'}{abs(exp10):02d}"
        if _round_trips(text, value, el):
            return text
        text = _apfloat_default_string(value, el)
        if "." in text:
            return text
    return _float_bits_hex(value, el)


def format_element(value: object, el: Attribute) -> str:
    if isinstance(el, IntegerType):
        if el.width.data == 1:
            return "true" if bool(value) else "false"
        return str(to_signed(int(value), el.width.data))  # pyright: ignore[reportArgumentType]
    assert isinstance(el, AnyFloat)
    return format_float(float(value), el)  # pyright: ignore[reportArgumentType]


# ---------------------------------------------------------------------------
# Parsing element values.
# ---------------------------------------------------------------------------


def _integer_range(width: int) -> tuple[int, int]:
    """The union of the signed and unsigned ranges (NVIDIA's check)."""
    if width == 1:
        return -1, 1
    return -(2 ** (width - 1)), 2**width - 1


def parse_element(parser: AttrParser, el: Attribute) -> int | float:
    """One literal of a dense constant of element type `el`."""
    pos = parser.pos
    if isinstance(el, IntegerType):
        width = el.width.data
        if width == 1:
            if parser.parse_optional_keyword("true") is not None:
                return 1
            if parser.parse_optional_keyword("false") is not None:
                return 0
        elif parser._current_token.text in ("true", "false"):  # pyright: ignore[reportPrivateUsage]
            parser.raise_error("expected integer value")
        value = parser.parse_optional_integer(allow_boolean=False)
        if value is None:
            parser.raise_error("expected integer value")
        lo, hi = _integer_range(width)
        if not lo <= value <= hi and width != 64:
            parser.raise_error("integer constant out of range for type", pos, parser.pos)
        return value
    assert isinstance(el, AnyFloat)
    negative = parser.parse_optional_punctuation("-") is not None
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    if token.kind == MLIRTokenKind.INTEGER_LIT and token.text.lower().startswith("0x"):
        bits = int(token.text, 16)
        if bits >= 2**el.bitwidth:
            parser.raise_error("float constant out of range for type")
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
        name = float_format(el)
        value = float_codec.decode(bits, "f32" if name == "tf32" else name)
        return -value if negative else value
    if token.kind == MLIRTokenKind.INTEGER_LIT:
        # MLIR: a float literal needs a dot (`2.` or `2.0`).
        raise MultipleSpansParseError(
            token.span,
            "unexpected decimal integer literal for a floating point value",
            None,
            [(token.span, "add a trailing dot to make the literal a float")],
        )
    number = parser.parse_optional_number()
    if number is None:
        parser.raise_error("expected floating point literal")
    value = -float(number) if negative else float(number)
    rounded = round_to_float_type(value, el)
    if math.isfinite(value) and not math.isfinite(rounded):
        # MLIR and NVIDIA's tools round such a literal to inf (NaN where the type has no
        # inf) without a word; tileir says so, at the literal.
        from tileir.dialects.cuda_tile.warnings import emit_warning_at

        where = token.span.get_location()
        emit_warning_at(
            SourceLocation(where.file, where.line, where.col),
            f"floating point constant {value:g} is out of the range of {el} and becomes "
            f"{rounded:g}",
        )
    return value


def round_to_float_type(value: float, el: AnyFloat) -> float:
    """`value` rounded to the nearest `el` (an overflow becomes inf, or NaN where `el`
    has no inf, as IEEE rounding gives it, without numpy's overflow warning)."""
    return float_codec.round_to(value, float_format(el))
