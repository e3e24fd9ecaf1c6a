"""Attribute encodings: the value kinds of op attributes, and self-contained attributes.

An op attribute is written without a tag in the form its kind dictates:

| kind | bytes | xDSL value |
|---|---|---|
| `enum:<name>` | varint member index | `#cuda_tile.<name><...>` enum attribute |
| `i32enum:<name>` | varint member index | `IntegerAttr` of `i32` (memory ordering, scope, atomic mode) |
| `i32`, `i64` | varint (two's complement, zero-extended) | `IntegerAttr` |
| `bool` | one byte 0/1 | `BoolAttr` |
| `str`, `symbol` | string index | `StringAttr`, `SymbolRefAttr` |
| `type` | type index | the type |
| `dense` | constant index, read as the op's result type | `DenseIntOrFPElementsAttr` |
| `i32array`, `i64array` | `arr<iN>` (INT_MIN/INT_MAX rejected) | `DenseArrayBase` |
| `boolarray` | varint n, n bytes 0/1 | `DenseArrayBase` of `i1` |
| `array` | varint n, n self-contained attributes | `ArrayAttr` |
| `dict` | varint n, n (key string index, self-contained value) | `DictionaryAttr` |
| `hints` | a `dict` body | `OptimizationHintsAttr` |
| `any` | one self-contained attribute | (the assume predicate) |

A self-contained attribute starts with a varint tag: 1 integer (type, varint),
2 float (type, APInt bits: a byte up to 8 bits, else a zigzag varint), 3 bool (byte),
4 type, 5 string, 6 array, 7 dense elements (type, constant index), 8 div_by
(varint divisor, flags byte bit0 every / bit1 along, zigzag varints), 9 same_elements
(`arr<i64>`), 10 dictionary, 11 optimization hints (dictionary body), 12 bounded
(flags byte bit0 lower / bit1 upper, zigzag varints).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FloatTF32Type,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    i32,
    i64,
)
from xdsl.ir import Attribute, TypeAttribute
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tileir.bytecode.constants import ConstantTableReader, ConstantTableWriter
from tileir.bytecode.debug_info import StringInterner
from tileir.bytecode.stream import BytecodeError, ByteReader, ByteWriter, EncodeError
from tileir.bytecode.types import (
    INT64_MAX,
    INT64_MIN,
    TypeTableReader,
    TypeTableWriter,
)
from tileir.dialects.cuda_tile.attributes import (
    AtomicRMWMode,
    BoundedAttr,
    ComparisonOrderingAttr,
    ComparisonPredicateAttr,
    CudaTileEnumAttr,
    DivByAttr,
    MemoryOrderingSemantics,
    MemoryScope,
    OptimizationHintsAttr,
    OverflowAttr,
    RoundingModeAttr,
    SameElementsAttr,
    SignednessAttr,
    SymbolVisibilityAttr,
)
from tileir.dialects.cuda_tile.types import TileType
from tileir.utils import float_codec
from tileir.utils.numeric import float_format

TAG_INTEGER = 1
TAG_FLOAT = 2
TAG_BOOL = 3
TAG_TYPE = 4
TAG_STRING = 5
TAG_ARRAY = 6
TAG_DENSE = 7
TAG_DIV_BY = 8
TAG_SAME_ELEMENTS = 9
TAG_DICTIONARY = 10
TAG_OPTIMIZATION_HINTS = 11
TAG_BOUNDED = 12

MAX_ATTRIBUTE_DEPTH = 32

#: Dialect enum attributes by the name used in the op table.
DIALECT_ENUMS: dict[str, type[CudaTileEnumAttr[StrEnum]]] = {
    "rounding": RoundingModeAttr,  # pyright: ignore[reportAssignmentType]
    "signedness": SignednessAttr,  # pyright: ignore[reportAssignmentType]
    "overflow": OverflowAttr,  # pyright: ignore[reportAssignmentType]
    "comparison_predicate": ComparisonPredicateAttr,  # pyright: ignore[reportAssignmentType]
    "comparison_ordering": ComparisonOrderingAttr,  # pyright: ignore[reportAssignmentType]
    "symbol_visibility": SymbolVisibilityAttr,  # pyright: ignore[reportAssignmentType]
}

#: Enums stored as plain i32 integer attributes.
I32_ENUMS: dict[str, type[StrEnum]] = {
    "memory_ordering_semantics": MemoryOrderingSemantics,
    "memory_scope": MemoryScope,
    "atomic_rmw_mode": AtomicRMWMode,
}


@dataclass
class ReadContext:
    """What decoding an attribute may refer to."""

    strings: list[str]
    types: TypeTableReader
    constants: ConstantTableReader

    def string(self, r: ByteReader, what: str) -> str:
        return self.strings[r.index(f"{what} string index", len(self.strings))]


@dataclass
class WriteContext:
    strings: StringInterner
    types: TypeTableWriter
    constants: ConstantTableWriter


# ---------------------------------------------------------------------------
# Floats as bit patterns.
# ---------------------------------------------------------------------------


def float_width(t: AnyFloat) -> int:
    if isinstance(t, FloatTF32Type):
        return 19
    return t.bitwidth


def float_from_bits(bits: int, t: AnyFloat) -> float:
    """The value of a float attribute's bits, as numpy's and ml_dtypes's `float()` of
    the element gives it (tf32 and bf16: float32's with the low bits zero)."""
    return float_codec.decode(bits, float_format(t))


def float_to_bits(value: float, t: AnyFloat) -> int:
    """`value`'s bits in `t`, rounded as numpy's and ml_dtypes's `astype` rounds it
    (tf32: float32's top 19 bits)."""
    return float_codec.encode(value, float_format(t)) & ((1 << float_width(t)) - 1)


def _read_ap_int(r: ByteReader, width: int, what: str) -> int:
    at = r.pos
    if width <= 8:
        value = r.u8(what)
    else:
        value = r.svarint(what) & ((1 << 64) - 1)
    if value >> width:
        raise BytecodeError(
            at, f"{what} {value} does not fit in {width} bits", f"a {width}-bit value"
        )
    return value


def _write_ap_int(w: ByteWriter, value: int, width: int) -> None:
    if width <= 8:
        w.u8(value)
    else:
        w.svarint(value)


def signed(value: int, width: int) -> int:
    if width == 1:
        return value & 1
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


# ---------------------------------------------------------------------------
# Self-contained attributes.
# ---------------------------------------------------------------------------


def read_self_contained(r: ByteReader, cx: ReadContext, depth: int = 0) -> Attribute:
    at = r.pos
    if depth > MAX_ATTRIBUTE_DEPTH:
        raise BytecodeError(
            at, f"attributes nested deeper than {MAX_ATTRIBUTE_DEPTH}", "a shallower attribute"
        )
    tag = r.varint("an attribute tag")
    try:
        return _read_tagged(r, cx, tag, at, depth)
    except VerifyException as e:
        raise BytecodeError(
            at, f"invalid attribute: {str(e).splitlines()[0]}", "a valid attribute"
        ) from None


def _read_tagged(r: ByteReader, cx: ReadContext, tag: int, at: int, depth: int) -> Attribute:
    if tag == TAG_INTEGER:
        t = cx.types.read(r, "integer attribute")
        if not isinstance(t, IntegerType):
            raise BytecodeError(
                at, f"failed to read valid IntegerType for IntegerAttr: {t}", "an integer type"
            )
        return _integer(r, t, "integer attribute value")
    if tag == TAG_FLOAT:
        t = cx.types.read(r, "float attribute")
        if not isinstance(t, AnyFloat):
            raise BytecodeError(
                at, f"failed to read valid FloatType for FloatAttr: {t}", "a float type"
            )
        bits = _read_ap_int(r, float_width(t), "float attribute bits")
        return FloatAttr(float_from_bits(bits, t), t)
    if tag == TAG_BOOL:
        return _bool(r, "bool attribute")
    if tag == TAG_TYPE:
        return cx.types.read(r, "type attribute")
    if tag == TAG_STRING:
        return StringAttr(cx.string(r, "string attribute"))
    if tag == TAG_ARRAY:
        n = r.count("array attribute length")
        return ArrayAttr([read_self_contained(r, cx, depth + 1) for _ in range(n)])
    if tag == TAG_DENSE:
        t = cx.types.read(r, "dense attribute")
        if not isinstance(t, TileType):  # before the index, which only a tile can type
            raise BytecodeError(
                at,
                f"failed to read valid MLIR Type for self-contained DenseElementsAttr: {t}",
                "a tile type",
            )
        return cx.constants.read(r, t, "dense attribute")
    if tag == TAG_DIV_BY:
        divisor = r.varint("div_by divisor")
        flags = _flags_byte(r, "div_by")
        every = r.svarint("div_by every") if flags & 1 else None
        along = r.svarint("div_by along") if flags & 2 else None
        return DivByAttr(divisor, every, along)
    if tag == TAG_SAME_ELEMENTS:
        return SameElementsAttr(_i64_array(r, "same_elements values"))
    if tag == TAG_DICTIONARY:
        return _dictionary(r, cx, depth)
    if tag == TAG_OPTIMIZATION_HINTS:
        return OptimizationHintsAttr(_dictionary(r, cx, depth))
    if tag == TAG_BOUNDED:
        flags = _flags_byte(r, "bounded")
        lower = r.svarint("bounded lower bound") if flags & 1 else None
        upper = r.svarint("bounded upper bound") if flags & 2 else None
        return BoundedAttr(lower, upper)
    raise BytecodeError(at, f"unsupported attribute tag {tag}", "an attribute tag from 1 to 12")


def _flags_byte(r: ByteReader, what: str) -> int:
    at = r.pos
    flags = r.u8(f"{what} flags")
    if flags > 3:
        raise BytecodeError(at, f"invalid {what} flags byte 0x{flags:02x}", "bits 0 and 1 only")
    return flags


def _integer(r: ByteReader, t: IntegerType, what: str) -> IntegerAttr[IntegerType]:
    at = r.pos
    width = t.width.data
    if width == 1:
        b = r.u8(what)
        if b > 1:
            raise BytecodeError(at, f"{what} {b} does not fit in 1 bit", "0 or 1")
        return IntegerAttr(b, t)
    value = r.varint(what)
    if value >> width:
        raise BytecodeError(
            at, f"{what} {value} does not fit in {width} bits", f"a {width}-bit value"
        )
    return IntegerAttr(signed(value, width), t)


def _bool(r: ByteReader, what: str) -> IntegerAttr[IntegerType]:
    at = r.pos
    b = r.u8(what)
    if b > 1:
        raise BytecodeError(at, f"invalid {what} byte {b}", "0 or 1")
    return IntegerAttr.from_bool(bool(b))


def _dictionary(r: ByteReader, cx: ReadContext, depth: int) -> DictionaryAttr:
    n = r.count("dictionary size", 2)
    entries: dict[str, Attribute] = {}
    for i in range(n):
        at = r.pos
        key = cx.string(r, "dictionary key")
        if not key:
            raise BytecodeError(
                at,
                f"invalid empty attribute name for DictionaryAttr element {i}",
                "a non-empty key",
            )
        if key in entries:
            raise BytecodeError(at, f"duplicate key '{key}' in DictionaryAttr", "distinct keys")
        entries[key] = read_self_contained(r, cx, depth + 1)
    return DictionaryAttr(entries)


def _array(r: ByteReader, size: int, width_min: int, width_max: int, what: str) -> list[int]:
    at = r.pos
    values = r.le_array(size, what)
    for v in values:
        if v in (width_min, width_max):
            raise BytecodeError(
                at,
                f"array contains unsupported value {v}",
                f"{what} values strictly between {width_min} and {width_max}",
            )
    return values


def _i64_array(r: ByteReader, what: str) -> list[int]:
    return _array(r, 8, INT64_MIN, INT64_MAX, what)


def write_self_contained(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
    if isinstance(a, IntegerAttr) and isinstance(a.type, IntegerType):
        width = a.type.width.data
        if width == 1:
            w.varint(TAG_BOOL)
            w.u8(a.value.data & 1)
            return
        w.varint(TAG_INTEGER)
        w.varint(cx.types(a.type))
        w.varint(a.value.data & ((1 << width) - 1))
    elif isinstance(a, FloatAttr):
        t = a.type
        assert isinstance(t, AnyFloat)
        w.varint(TAG_FLOAT)
        w.varint(cx.types(t))
        _write_ap_int(w, float_to_bits(a.value.data, t), float_width(t))
    elif isinstance(a, StringAttr):
        w.varint(TAG_STRING)
        w.varint(cx.strings(a.data))
    elif isinstance(a, ArrayAttr):
        w.varint(TAG_ARRAY)
        w.varint(len(a.data))
        for item in a.data:
            write_self_contained(w, item, cx)
    elif isinstance(a, DenseIntOrFPElementsAttr):
        w.varint(TAG_DENSE)
        w.varint(cx.types(TileType(a.get_shape(), a.get_element_type())))
        w.varint(cx.constants(a))
    elif isinstance(a, DivByAttr):
        w.varint(TAG_DIV_BY)
        w.varint(a.divisor.data)
        every, along = a.every_value, a.along_value
        w.u8((every is not None) | ((along is not None) << 1))
        if every is not None:
            w.svarint(every)
        if along is not None:
            w.svarint(along)
    elif isinstance(a, SameElementsAttr):
        w.varint(TAG_SAME_ELEMENTS)
        w.le_array([v.data for v in a.values.data], 8)
    elif isinstance(a, DictionaryAttr):
        w.varint(TAG_DICTIONARY)
        write_dictionary(w, a, cx)
    elif isinstance(a, OptimizationHintsAttr):
        w.varint(TAG_OPTIMIZATION_HINTS)
        write_dictionary(w, a.hints, cx)
    elif isinstance(a, BoundedAttr):
        w.varint(TAG_BOUNDED)
        lower, upper = a.lower_value, a.upper_value
        w.u8((lower is not None) | ((upper is not None) << 1))
        if lower is not None:
            w.svarint(lower)
        if upper is not None:
            w.svarint(upper)
    elif isinstance(a, TypeAttribute):
        w.varint(TAG_TYPE)
        w.varint(cx.types(a))
    else:
        raise EncodeError(f"attribute {a} cannot be written to bytecode")


def write_dictionary(w: ByteWriter, d: DictionaryAttr, cx: WriteContext) -> None:
    w.varint(len(d.data))
    for key, value in d.data.items():
        w.varint(cx.strings(key))
        write_self_contained(w, value, cx)


# ---------------------------------------------------------------------------
# Op attribute kinds.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AttrKind:
    """How one op attribute is encoded.  `read` gets the op's result types (the
    `dense` kind reads its constant as the first one)."""

    name: str
    read: Callable[[ByteReader, ReadContext, list[Attribute], str], Attribute]
    write: Callable[[ByteWriter, Attribute, WriteContext], None]
    #: The raw value an attribute of this kind compares as (for version defaults).
    raw: Callable[[Attribute], object]
    #: The attribute of a raw value, where the kind can make one (enums).
    from_raw: Callable[[object], Attribute] | None = None


def _enum_kind(name: str, cls: type[CudaTileEnumAttr[StrEnum]]) -> AttrKind:
    members = list(cls.enum_type)

    values = [cls(m) for m in members]

    def read(r: ByteReader, cx: ReadContext, results: list[Attribute], what: str) -> Attribute:
        at = r.pos
        v = r.varint(what)
        if v >= len(members):
            raise BytecodeError(
                at, f"invalid {name} value {v} for {what}", f"0 to {len(members) - 1}"
            )
        return values[v]

    def raw(a: Attribute) -> object:
        if not isinstance(a, cls):
            raise EncodeError(f"expected a {cls.name} attribute, got {a}")
        return members.index(a.data)

    def write(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
        w.varint(int(raw(a)))  # pyright: ignore[reportArgumentType]

    def from_raw(v: object) -> Attribute:
        assert isinstance(v, int)
        return values[v]

    return AttrKind(f"enum:{name}", read, write, raw, from_raw)


def _i32_enum_kind(name: str, enum: type[StrEnum]) -> AttrKind:
    n = len(list(enum))

    values = [IntegerAttr(v, i32) for v in range(n)]

    def read(r: ByteReader, cx: ReadContext, results: list[Attribute], what: str) -> Attribute:
        at = r.pos
        v = r.varint(what)
        if v >= n:
            raise BytecodeError(at, f"invalid {name} value {v} for {what}", f"0 to {n - 1}")
        return values[v]

    def raw(a: Attribute) -> object:
        if not isinstance(a, IntegerAttr) or not 0 <= a.value.data < n:
            raise EncodeError(f"expected an i32 {name} value, got {a}")
        return a.value.data

    def write(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
        w.varint(int(raw(a)))  # pyright: ignore[reportArgumentType]

    return AttrKind(f"i32enum:{name}", read, write, raw)


def _int_kind(width: int) -> AttrKind:
    t = IntegerType(width)

    def read(r: ByteReader, cx: ReadContext, results: list[Attribute], what: str) -> Attribute:
        return _integer(r, t, what)

    def raw(a: Attribute) -> object:
        if isinstance(a, IntegerAttr):
            return a.value.data
        if isinstance(a, IntAttr):
            return a.data
        raise EncodeError(f"expected an integer, got {a}")

    def write(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
        w.varint(int(raw(a)) & ((1 << width) - 1))  # pyright: ignore[reportArgumentType]

    return AttrKind(f"i{width}", read, write, raw)


def _bool_raw(a: Attribute) -> object:
    if isinstance(a, IntegerAttr):
        return bool(a.value.data)
    raise EncodeError(f"expected a bool, got {a}")


def _string_raw(a: Attribute) -> object:
    if isinstance(a, StringAttr):
        return a.data
    if isinstance(a, SymbolRefAttr) and not a.nested_references.data:
        return a.root_reference.data
    raise EncodeError(f"expected a string or flat symbol reference, got {a}")


def _read_symbol(r: ByteReader, cx: ReadContext, results: list[Attribute], what: str) -> Attribute:
    at = r.pos
    s = cx.string(r, what)
    if not s:
        raise BytecodeError(at, f"empty symbol reference for {what}", "a symbol name")
    return SymbolRefAttr(s)


def _read_dense(r: ByteReader, cx: ReadContext, results: list[Attribute], what: str) -> Attribute:
    if not results:
        raise r.error(f"{what} has no result type to read its constant as")
    return cx.constants.read(r, results[0], what)


def _dense_raw(a: Attribute) -> object:
    if isinstance(a, DenseIntOrFPElementsAttr):
        return a
    raise EncodeError(f"expected a dense elements attribute, got {a}")


def _write_dense(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
    assert isinstance(a, DenseIntOrFPElementsAttr)
    w.varint(cx.constants(a))


def _array_kind(element: IntegerType, size: int) -> AttrKind:
    width = element.width.data
    lo, hi = -(2 ** (width - 1)), 2 ** (width - 1) - 1

    def read(r: ByteReader, cx: ReadContext, results: list[Attribute], what: str) -> Attribute:
        return DenseArrayBase.from_list(element, _array(r, size, lo, hi, what))

    def raw(a: Attribute) -> object:
        if isinstance(a, DenseArrayBase):
            return tuple(int(v) for v in a.get_values())
        raise EncodeError(f"expected an array<i{width}>, got {a}")

    def write(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
        w.le_array(raw(a), size)  # pyright: ignore[reportArgumentType]

    return AttrKind(f"i{width}array", read, write, raw)


def _read_bool_array(
    r: ByteReader, cx: ReadContext, results: list[Attribute], what: str
) -> Attribute:
    at = r.pos
    raw = r.take(r.count(f"{what} length"), what)
    if any(b > 1 for b in raw):
        raise BytecodeError(at, f"{what} holds a byte other than 0 or 1", "bools as bytes 0/1")
    return DenseArrayBase.from_list(IntegerType(1), list(raw))


def _bool_array_raw(a: Attribute) -> object:
    if isinstance(a, DenseArrayBase):
        return tuple(bool(v) for v in a.get_values())
    raise EncodeError(f"expected an array<i1>, got {a}")


def _write_bool_array(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
    flags = _bool_array_raw(a)
    assert isinstance(flags, tuple)
    w.varint(len(flags))
    for f in flags:
        w.u8(1 if f else 0)


def _read_array(r: ByteReader, cx: ReadContext, results: list[Attribute], what: str) -> Attribute:
    n = r.count(f"{what} length")
    return ArrayAttr([read_self_contained(r, cx, 1) for _ in range(n)])


def _write_array(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
    if not isinstance(a, ArrayAttr):
        raise EncodeError(f"expected an array attribute, got {a}")
    w.varint(len(a.data))
    for item in a.data:
        write_self_contained(w, item, cx)


def _write_hints(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
    if not isinstance(a, OptimizationHintsAttr):
        raise EncodeError(f"expected optimization hints, got {a}")
    write_dictionary(w, a.hints, cx)


def _write_dict(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
    if not isinstance(a, DictionaryAttr):
        raise EncodeError(f"expected a dictionary, got {a}")
    write_dictionary(w, a, cx)


def _write_type(w: ByteWriter, a: Attribute, cx: WriteContext) -> None:
    w.varint(cx.types(a))


def _identity(a: Attribute) -> object:
    return a


KINDS: dict[str, AttrKind] = {
    **{f"enum:{name}": _enum_kind(name, cls) for name, cls in DIALECT_ENUMS.items()},
    **{f"i32enum:{name}": _i32_enum_kind(name, enum) for name, enum in I32_ENUMS.items()},
    "i32": _int_kind(32),
    "i64": _int_kind(64),
    "bool": AttrKind(
        "bool",
        lambda r, cx, results, what: _bool(r, what),
        lambda w, a, cx: w.u8(1 if _bool_raw(a) else 0),
        _bool_raw,
    ),
    "str": AttrKind(
        "str",
        lambda r, cx, results, what: StringAttr(cx.string(r, what)),
        lambda w, a, cx: w.varint(cx.strings(str(_string_raw(a)))),
        _string_raw,
    ),
    "symbol": AttrKind(
        "symbol",
        _read_symbol,
        lambda w, a, cx: w.varint(cx.strings(str(_string_raw(a)))),
        _string_raw,
    ),
    "type": AttrKind(
        "type", lambda r, cx, results, what: cx.types.read(r, what), _write_type, _identity
    ),
    "dense": AttrKind("dense", _read_dense, _write_dense, _dense_raw),
    "i32array": _array_kind(i32, 4),
    "i64array": _array_kind(i64, 8),
    "boolarray": AttrKind("boolarray", _read_bool_array, _write_bool_array, _bool_array_raw),
    "array": AttrKind("array", _read_array, _write_array, _identity),
    "dict": AttrKind(
        "dict", lambda r, cx, results, what: _dictionary(r, cx, 0), _write_dict, _identity
    ),
    "hints": AttrKind(
        "hints",
        lambda r, cx, results, what: OptimizationHintsAttr(_dictionary(r, cx, 0)),
        _write_hints,
        _identity,
    ),
    "any": AttrKind(
        "any",
        lambda r, cx, results, what: read_self_contained(r, cx),
        lambda w, a, cx: write_self_contained(w, a, cx),
        _identity,
    ),
}
