"""The type table: every type a file uses, each written once and referred to by index.

    type = tag:varint payload

| tag | type | payload (13.1, 13.2 unless noted) |
|---|---|---|
| 0-4, 22 | i1 i8 i16 i32 i64, i4 (13.3) | (none) |
| 5-11, 18, 19 | f16 bf16 f32 tf32 f64 f8E4M3FN f8E5M2, f8E8M0FNU (13.2), f4E2M1FN (13.3) | (none) |
| 12 | `ptr<E>` | pointee |
| 13 | `tile<SxE>` | element, `arr<i64>` shape |
| 14 | `tensor_view` | element, `arr<i64>` shape, `arr<i64>` strides (`?` = INT64_MIN) |
| 15 | `partition_view` | `arr<i32>` tile, tensor_view, `arr<i32>` dim_map, padding? |
| 16 | function | varint n, n types, varint m, m types |
| 17 | `token` | (none) |
| 20 | `gather_scatter_view` (13.3) | `arr<i32>` tile, tensor_view, varint sparse_dim, padding? |
| 21 | `strided_view` (13.3) | `arr<i32>` tile, `arr<i32>` traversal strides, tensor_view, `arr<i32>` dim_map, padding? |

Optional parameters (`padding?`; from 13.4 also a pointer attribute on `ptr` and
`tensor_view`): before 13.3 a presence byte (0/1) precedes each one where it sits; from
13.3 a single bitfield varint right after the tag says which are present.

Types are decoded lazily (a type is read the first time something refers to it) with
a depth bound, so cycles and absurd nesting are errors, not hangs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatTF32Type,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    UnregisteredAttr,
)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.utils.exceptions import VerifyException

from tileir.bytecode.stream import BytecodeError, ByteReader, ByteWriter, EncodeError
from tileir.bytecode.version import UNIFIED_BITFIELD, V13_1, V13_2, V13_3, V13_4, BytecodeVersion
from tileir.dialects.cuda_tile.attributes import PaddingValue, PaddingValueAttr
from tileir.dialects.cuda_tile.types import (
    DYNAMIC,
    PartitionViewType,
    PointerType,
    TensorViewType,
    TileType,
    TokenType,
)

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

#: Scalar type tags: tag -> (name, since, builder).
SCALARS: dict[int, tuple[str, BytecodeVersion, Callable[[], Attribute]]] = {
    0: ("i1", V13_1, lambda: IntegerType(1)),
    1: ("i8", V13_1, lambda: IntegerType(8)),
    2: ("i16", V13_1, lambda: IntegerType(16)),
    3: ("i32", V13_1, lambda: IntegerType(32)),
    4: ("i64", V13_1, lambda: IntegerType(64)),
    5: ("f16", V13_1, Float16Type),
    6: ("bf16", V13_1, BFloat16Type),
    7: ("f32", V13_1, Float32Type),
    8: ("tf32", V13_1, FloatTF32Type),
    9: ("f64", V13_1, Float64Type),
    10: ("f8E4M3FN", V13_1, Float8E4M3FNType),
    11: ("f8E5M2", V13_1, Float8E5M2Type),
    17: ("token", V13_1, TokenType),
    18: ("f8E8M0FNU", V13_2, Float8E8M0FNUType),
    19: ("f4E2M1FN", V13_3, Float4E2M1FNType),
    22: ("i4", V13_3, lambda: IntegerType(4)),
}


def mlir_type_name(name: str) -> str:
    """A scalar type's name as NVIDIA's version diagnostics spell it: MLIR's type class
    (`f4E2M1FN` -> `Float4E2M1FN`, `f8E8M0FNU` -> `Float8E8M0FNU`); others unchanged."""
    if name[:2] in ("f4", "f8"):
        return "Float" + name[1:]
    return name


TAG_POINTER = 12
TAG_TILE = 13
TAG_TENSOR_VIEW = 14
TAG_PARTITION_VIEW = 15
TAG_FUNCTION = 16
TAG_GATHER_SCATTER_VIEW = 20
TAG_STRIDED_VIEW = 21

#: Tags of types tileir cannot represent yet (name, since).
UNSUPPORTED_TAGS: dict[int, tuple[str, BytecodeVersion]] = {130: ("f8E5M3FNU", V13_4)}

COMPOSITE_SINCE = {
    TAG_POINTER: V13_1,
    TAG_TILE: V13_1,
    TAG_TENSOR_VIEW: V13_1,
    TAG_PARTITION_VIEW: V13_1,
    TAG_FUNCTION: V13_1,
    TAG_GATHER_SCATTER_VIEW: V13_3,
    TAG_STRIDED_VIEW: V13_3,
}

#: Optional type parameters by version: (tag, version) -> number of optional params.
#: `ptr` and `tensor_view` gained an optional pointer attribute in 13.4.
PTR_ATTR_SINCE = V13_4

MAX_TYPE_DEPTH = 32


def _scalar_tag(t: Attribute) -> int | None:
    for tag, (_, _, build) in SCALARS.items():
        if t == build():
            return tag
    return None


_SCALAR_TAG_CACHE: dict[Attribute, int] = {}


def scalar_tag(t: Attribute) -> int | None:
    tag = _SCALAR_TAG_CACHE.get(t)
    if tag is None:
        tag = _scalar_tag(t)
        if tag is not None:
            _SCALAR_TAG_CACHE[t] = tag
    return tag


def _view_class(ctx: Context, name: str) -> type[ParametrizedAttribute] | None:
    """The class of a cuda_tile type tileir may not define yet."""
    cls = ctx.get_optional_type(name)
    if (
        cls is None
        or not issubclass(cls, ParametrizedAttribute)
        or issubclass(cls, UnregisteredAttr)
    ):
        return None
    return cls


def build_by_parameter_names(
    cls: type[ParametrizedAttribute], values: dict[str, Attribute], what: str, at: int
) -> Attribute:
    """Build a type whose IRDL parameters carry NVIDIA's parameter names."""
    names = [name for name, _ in cls.get_irdl_definition().parameters]
    if sorted(names) != sorted(values):
        raise BytecodeError(
            at,
            f"type {what} is not supported by tileir yet (its class has parameters "
            f"{', '.join(names)})",
            "parameters " + ", ".join(values),
        )
    return cls.new(tuple(values[n] for n in names))


def _ints(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr([IntAttr(v) for v in values])


class TypeTableReader:
    """Decodes types on demand from the type section."""

    def __init__(
        self, data: bytes, items: list[tuple[int, int]], version: BytecodeVersion, ctx: Context
    ):
        self.data = data
        self.items = items
        self.version = version
        self.ctx = ctx
        self.cache: list[Attribute | None] = [None] * len(items)
        self.active: set[int] = set()

    def __len__(self) -> int:
        return len(self.items)

    def read(self, r: ByteReader, what: str) -> Attribute:
        """A type index read from `r`, resolved."""
        at = r.pos
        return self.get(r.index(f"{what} type index", len(self.items)), at)

    def get(self, index: int, at: int) -> Attribute:
        cached = self.cache[index]
        if cached is not None:
            return cached
        if index in self.active:
            raise BytecodeError(
                at, f"type {index} refers to itself", "types that refer to earlier types"
            )
        if len(self.active) >= MAX_TYPE_DEPTH:
            raise BytecodeError(
                at, f"types nested deeper than {MAX_TYPE_DEPTH}", "a shallower type"
            )
        self.active.add(index)
        try:
            start, end = self.items[index]
            r = ByteReader.over(self.data, start, end)
            t = self._decode(r)
            if not r.at_end():
                raise r.error(
                    f"{r.remaining} unexpected bytes after type {index}", "the end of the type"
                )
        finally:
            self.active.discard(index)
        self.cache[index] = t
        return t

    def _padding(self, r: ByteReader, present: bool) -> Attribute:
        if not present:
            return NoneAttr()
        at = r.pos
        value = r.varint("a padding value")
        members = list(PaddingValue)
        if value >= len(members):
            raise BytecodeError(at, f"invalid padding value {value}", f"0 to {len(members) - 1}")
        return PaddingValueAttr(members[value])

    def _presence(self, r: ByteReader, what: str) -> bool:
        at = r.pos
        b = r.u8(f"the presence byte of {what}")
        if b > 1:
            raise BytecodeError(at, f"invalid presence byte {b} for {what}", "0 or 1")
        return b == 1

    def _bitfield(self, r: ByteReader, known_bits: int, tag_name: str) -> int:
        at = r.pos
        bits = r.varint(f"the optional-parameter bits of {tag_name}")
        if bits >> known_bits:
            raise BytecodeError(
                at,
                f"unknown optional-parameter bits 0x{bits:x} in {tag_name}",
                f"bits below {1 << known_bits}",
            )
        return bits

    def _i32_array(self, r: ByteReader, what: str) -> list[int]:
        at = r.pos
        values = r.le_array(4, what)
        for v in values:
            if v in (INT32_MIN, INT32_MAX):
                raise BytecodeError(
                    at,
                    f"array contains unsupported value {v}",
                    f"{what} values between {INT32_MIN + 1} and {INT32_MAX - 1}",
                )
        return values

    def _no_pointer_attribute(self, r: ByteReader, tag_name: str) -> None:
        """The 13.4 optional pointer attribute of ptr and tensor_view."""
        if self.version < PTR_ATTR_SINCE:
            return
        at = r.pos
        if self._bitfield(r, 1, tag_name):
            raise BytecodeError(
                at,
                f"the pointer attribute of {tag_name} is not supported by tileir yet",
                "no optional parameters",
            )

    def _decode(self, r: ByteReader) -> Attribute:
        at = r.pos
        tag = r.varint("a type tag")
        scalar = SCALARS.get(tag)
        if scalar is not None:
            name, since, build = scalar
            if self.version < since:
                raise BytecodeError(
                    at,
                    f"type '{mlir_type_name(name)}' requires bytecode version {since}+, "
                    f"file version is {self.version}",
                    f"a file of version {since} or newer",
                )
            return build()
        if tag in UNSUPPORTED_TAGS:
            name, since = UNSUPPORTED_TAGS[tag]
            self._check_since(since, f"type {name}", at)
            raise BytecodeError(
                at, f"type {name} is not supported by tileir yet", "a type tileir knows"
            )
        since = COMPOSITE_SINCE.get(tag)
        if since is None:
            raise BytecodeError(at, f"unknown type tag {tag}", "a type tag from 0 to 22")
        self._check_since(since, f"type tag {tag}", at)
        try:
            return self._decode_composite(r, tag, at)
        except VerifyException as e:
            raise BytecodeError(
                at, f"invalid type: {str(e).splitlines()[0]}", "a valid type"
            ) from None

    def _check_since(self, since: BytecodeVersion, what: str, at: int) -> None:
        if self.version < since:
            raise BytecodeError(
                at,
                f"{what} is not available in bytecode version {self.version}",
                f"a file of version {since} or newer",
            )

    def _element(self, r: ByteReader, what: str, at: int) -> Attribute:
        t = self.read(r, what)
        if isinstance(t, FunctionType | TileType | TensorViewType | PartitionViewType | TokenType):
            raise BytecodeError(at, f"{what} type cannot be {t}", "a number or pointer type")
        return t

    def _decode_composite(self, r: ByteReader, tag: int, at: int) -> Attribute:
        unified = self.version >= UNIFIED_BITFIELD
        if tag == TAG_POINTER:
            self._no_pointer_attribute(r, "ptr")
            pointee = self._element(r, "pointee", at)
            if isinstance(pointee, PointerType):
                raise BytecodeError(at, "a pointer to a pointer", "a number type as pointee")
            return PointerType(pointee)
        if tag == TAG_TILE:
            element = self._element(r, "tile element", at)
            shape = r.le_array(8, "tile shape")
            if any(d <= 0 for d in shape):
                raise BytecodeError(
                    at,
                    f"tile shape {shape} has a dimension that is not positive",
                    "positive dimensions",
                )
            n = 1
            for d in shape:
                n *= d
                if n > 2**24:
                    raise BytecodeError(
                        at,
                        f"tile shape {shape} has more than 2^24 elements",
                        "at most 2^24 elements",
                    )
            return TileType(shape, element)
        if tag == TAG_TENSOR_VIEW:
            self._no_pointer_attribute(r, "tensor_view")
            element = self._element(r, "tensor_view element", at)
            if isinstance(element, PointerType):
                raise BytecodeError(at, "a tensor_view of pointers", "a number element type")
            shape = r.le_array(8, "tensor_view shape")
            strides = r.le_array(8, "tensor_view strides")
            return TensorViewType(element, shape, strides)
        if tag == TAG_PARTITION_VIEW:
            bits = self._bitfield(r, 1, "partition_view") if unified else 0
            tile = self._i32_array(r, "partition_view tile shape")
            tv = self._tensor_view(r, at)
            dim_map = self._i32_array(r, "partition_view dim_map")
            present = bool(bits & 1) if unified else self._presence(r, "padding_value")
            padding = self._padding(r, present)
            return PartitionViewType.new((_ints(tile), tv, _ints(dim_map), padding))
        if tag == TAG_STRIDED_VIEW:
            bits = self._bitfield(r, 1, "strided_view")
            tile = self._i32_array(r, "strided_view tile shape")
            traversal = self._i32_array(r, "strided_view traversal strides")
            tv = self._tensor_view(r, at)
            dim_map = self._i32_array(r, "strided_view dim_map")
            padding = self._padding(r, bool(bits & 1))
            cls = _view_class(self.ctx, "cuda_tile.strided_view")
            if cls is None:
                raise BytecodeError(
                    at, "type strided_view is not supported by tileir yet", "a type tileir knows"
                )
            values = {
                "tile_shape": _ints(tile),
                "traversal_strides": _ints(traversal),
                "tensor_view": tv,
                "dim_map": _ints(dim_map),
                "padding_value": padding,
            }
            return build_by_parameter_names(cls, values, "strided_view", at)
        if tag == TAG_GATHER_SCATTER_VIEW:
            bits = self._bitfield(r, 1, "gather_scatter_view")
            tile = self._i32_array(r, "gather_scatter_view tile shape")
            tv = self._tensor_view(r, at)
            sparse_dim = r.varint("gather_scatter_view sparse_dim")
            padding = self._padding(r, bool(bits & 1))
            cls = _view_class(self.ctx, "cuda_tile.gather_scatter_view")
            if cls is None:
                raise BytecodeError(
                    at,
                    "type gather_scatter_view is not supported by tileir yet",
                    "a type tileir knows",
                )
            values = {
                "tile_shape": _ints(tile),
                "tensor_view": tv,
                "sparse_dim": IntAttr(sparse_dim),
                "padding_value": padding,
            }
            return build_by_parameter_names(cls, values, "gather_scatter_view", at)
        assert tag == TAG_FUNCTION
        inputs = [self.read(r, "function input") for _ in range(r.count("function input count"))]
        outputs = [self.read(r, "function result") for _ in range(r.count("function result count"))]
        return FunctionType.from_lists(inputs, outputs)

    def _tensor_view(self, r: ByteReader, at: int) -> TensorViewType:
        tv = self.read(r, "view tensor_view")
        if not isinstance(tv, TensorViewType):
            raise BytecodeError(at, f"a view over {tv}", "a tensor_view type")
        return tv


class TypeTableWriter:
    """Interns types; a type's parameters are interned (and so numbered) first."""

    def __init__(self, version: BytecodeVersion):
        self.version = version
        self.index: dict[Attribute, int] = {}
        self.items: list[bytes] = []

    def __call__(self, t: Attribute) -> int:
        found = self.index.get(t)
        if found is not None:
            return found
        payload = self._encode(t)
        i = len(self.items)
        self.items.append(payload)
        self.index[t] = i
        return i

    def _check_since(self, since: BytecodeVersion, what: str) -> None:
        if self.version < since:
            # Unlocated, as NVIDIA's writer reports it (the type table is not an op's).
            error = EncodeError(
                f"type '{mlir_type_name(what)}' requires bytecode version {since}+, "
                f"targeting {self.version}"
            )
            error.unlocated = True  # pyright: ignore[reportAttributeAccessIssue]
            raise error

    def _encode(self, t: Attribute) -> bytes:
        w = ByteWriter()
        tag = scalar_tag(t)
        if tag is not None:
            name, since, _ = SCALARS[tag]
            self._check_since(since, name)
            w.varint(tag)
            return bytes(w.buf)
        unified = self.version >= UNIFIED_BITFIELD
        if isinstance(t, PointerType):
            pointee = self(t.pointee)
            w.varint(TAG_POINTER)
            if self.version >= PTR_ATTR_SINCE:
                w.varint(0)
            w.varint(pointee)
        elif isinstance(t, TileType):
            element = self(t.element_type)
            w.varint(TAG_TILE)
            w.varint(element)
            w.le_array(t.dims, 8)
        elif isinstance(t, TensorViewType):
            element = self(t.element_type)
            w.varint(TAG_TENSOR_VIEW)
            if self.version >= PTR_ATTR_SINCE:
                w.varint(0)
            w.varint(element)
            w.le_array(t.dims, 8)
            w.le_array([DYNAMIC if s == DYNAMIC else s for s in t.stride_values], 8)
        elif isinstance(t, PartitionViewType):
            tv = self(t.tensor_view)
            padding = t.padding
            w.varint(TAG_PARTITION_VIEW)
            if unified:
                w.varint(0 if padding is None else 1)
            w.le_array(t.tile_dims, 4)
            w.varint(tv)
            w.le_array(t.dim_map_values, 4)
            if not unified:
                w.u8(0 if padding is None else 1)
            if padding is not None:
                w.varint(list(PaddingValue).index(padding))
        elif isinstance(t, FunctionType):
            inputs = [self(i) for i in t.inputs.data]
            outputs = [self(o) for o in t.outputs.data]
            w.varint(TAG_FUNCTION)
            w.varint(len(inputs))
            for i in inputs:
                w.varint(i)
            w.varint(len(outputs))
            for o in outputs:
                w.varint(o)
        elif t.name == "cuda_tile.strided_view" and isinstance(t, ParametrizedAttribute):
            self._check_since(V13_3, "strided_view")
            p = _named_parameters(t)
            tv = self(p["tensor_view"])
            padding = _padding_of(p["padding_value"])
            w.varint(TAG_STRIDED_VIEW)
            w.varint(0 if padding is None else 1)
            w.le_array(_int_list(p["tile_shape"]), 4)
            w.le_array(_int_list(p["traversal_strides"]), 4)
            w.varint(tv)
            w.le_array(_int_list(p["dim_map"]), 4)
            if padding is not None:
                w.varint(padding)
        elif t.name == "cuda_tile.gather_scatter_view" and isinstance(t, ParametrizedAttribute):
            self._check_since(V13_3, "gather_scatter_view")
            p = _named_parameters(t)
            tv = self(p["tensor_view"])
            padding = _padding_of(p["padding_value"])
            w.varint(TAG_GATHER_SCATTER_VIEW)
            w.varint(0 if padding is None else 1)
            w.le_array(_int_list(p["tile_shape"]), 4)
            w.varint(tv)
            sparse = p["sparse_dim"]
            w.varint(sparse.data if isinstance(sparse, IntAttr) else _integer_value(sparse))
            if padding is not None:
                w.varint(padding)
        else:
            raise EncodeError(f"unsupported type in bytecode writer: {t}")
        return bytes(w.buf)


def _named_parameters(t: ParametrizedAttribute) -> dict[str, Attribute]:
    names = [name for name, _ in type(t).get_irdl_definition().parameters]
    return dict(zip(names, t.parameters, strict=True))


def _int_list(a: Attribute) -> list[int]:
    return [cast(IntAttr, v).data for v in cast(ArrayAttr[Attribute], a).data]


def _integer_value(a: Attribute) -> int:
    if isinstance(a, IntegerAttr):
        return a.value.data
    raise EncodeError(f"expected an integer, got {a}")


def _padding_of(a: Attribute) -> int | None:
    if isinstance(a, PaddingValueAttr):
        return list(PaddingValue).index(a.data)
    return None
