"""Types of the cuda_tile dialect.

Inside a cuda_tile scope every type prints in its short form (`tile<4xf32>`,
`ptr<f16>`, `token`, `tensor_view<?xf32, strides=[1]>`); anywhere else xDSL's generic
printer uses the long form (`!cuda_tile.tile<4x!cuda_tile.ptr<f32>>`).  Both parse
everywhere a cuda_tile custom syntax expects a type (see `syntax.parse_cuda_tile_type`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    IntAttr,
    IntegerType,
    NoneAttr,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.cuda_tile.attributes import PaddingValue, PaddingValueAttr
from tileir.utils.bits import is_pow2

#: The dynamic extent marker of tensor_view shapes and strides (`?`).
DYNAMIC = -(2**63)

#: Most elements a tile may hold.
MAX_TILE_ELEMENTS = 2**24


#: NVIDIA's summary of CudaTile_NumberType (an AnyTypeOf of the float and int sets).
NUMBER_TYPE_SUMMARY = (
    "f16 or bf16 or f32 or tf32 or f64 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN "
    "or i1 or i8 or i16 or i32 or i64"
)
#: ... and of CudaTile_TileElementType (numbers, pointers and i4).
TILE_ELEMENT_SUMMARY = NUMBER_TYPE_SUMMARY + " or Pointer type or i4"


def is_number_type(t: Attribute) -> bool:
    """f16, bf16, f32, tf32, f64, the 8- and 4-bit floats, i1, i8, i16, i32, i64."""
    if isinstance(t, IntegerType):
        return t.width.data in (1, 8, 16, 32, 64)
    return isinstance(t, AnyFloat)


def is_tile_element_type(t: Attribute) -> bool:
    return is_number_type(t) or isinstance(t, PointerType) or t == IntegerType(4)


def shape_text(dims: Sequence[int]) -> str:
    """A shape as MLIR streams an `ArrayRef<int64_t>` into a diagnostic: `4, 8`."""
    return ", ".join(str(d) for d in dims)


def verify_tile_shape(dims: Sequence[int], element: Attribute) -> None:
    """NVIDIA's tile rules: f4E2M1FN needs an even element count; every dimension is a
    positive power of two; at most 2^24 elements."""
    from xdsl.dialects.builtin import Float4E2M1FNType

    if isinstance(element, Float4E2M1FNType) and (not dims or all(d % 2 for d in dims)):
        raise VerifyException("F4E2M1FN tiles must have an even number of elements")
    count = 1
    for d in dims:
        if d <= 0:
            raise VerifyException(
                f"all dimensions must be positive constants, got {shape_text(dims)}"
            )
        if not is_pow2(d):
            raise VerifyException(f"all dimensions must be powers of two, got {shape_text(dims)}")
        if count > MAX_TILE_ELEMENTS // d:
            raise VerifyException(f"tile would exceed the maximum of {MAX_TILE_ELEMENTS} elements")
        count *= d


@irdl_attr_definition
class PointerType(ParametrizedAttribute, TypeAttribute):
    """`ptr<E>`: a global-memory pointer to elements of a number type."""

    name = "cuda_tile.ptr"

    pointee: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from tileir.dialects.cuda_tile.syntax import parse_cuda_tile_type

        with parser.in_angle_brackets():
            return (parse_cuda_tile_type(parser),)

    def print_parameters(self, printer: Printer) -> None:
        from tileir.dialects.cuda_tile.syntax import print_cuda_tile_type

        printer.print_string("<")
        print_cuda_tile_type(printer, self.pointee)
        printer.print_string(">")

    def verify(self) -> None:
        if not is_number_type(self.pointee):
            raise VerifyException(f"failed to verify 'pointeeType': {NUMBER_TYPE_SUMMARY}")


@irdl_attr_definition
class TileType(ParametrizedAttribute, TypeAttribute):
    """`tile<4x8xf32>` (rank 0: `tile<f32>`): a statically shaped tile of values.

    Every dimension is a power of two and the tile holds at most 2^24 elements."""

    name = "cuda_tile.tile"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element_type)

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from tileir.dialects.cuda_tile.syntax import parse_shape_and_element

        with parser.in_angle_brackets():
            dims, element = parse_shape_and_element(parser, allow_dynamic=False)
        return (ArrayAttr([IntAttr(d) for d in dims]), element)

    def print_parameters(self, printer: Printer) -> None:
        from tileir.dialects.cuda_tile.syntax import print_shape_and_element

        printer.print_string("<")
        print_shape_and_element(printer, self.dims, self.element_type)
        printer.print_string(">")

    def verify(self) -> None:
        if not is_tile_element_type(self.element_type):
            raise VerifyException(f"failed to verify 'elementType': {TILE_ELEMENT_SUMMARY}")
        verify_tile_shape(self.dims, self.element_type)

    def with_element(self, element_type: Attribute) -> TileType:
        return TileType(self.dims, element_type)


@irdl_attr_definition
class TokenType(ParametrizedAttribute, TypeAttribute):
    """`token`: orders memory operations (the `_tko` ops take and produce one)."""

    name = "cuda_tile.token"


@irdl_attr_definition
class TensorViewType(ParametrizedAttribute, TypeAttribute):
    """`tensor_view<?x32xf16, strides=[?,1]>`: a strided view of global memory whose
    extents and strides may be dynamic (`?`)."""

    name = "cuda_tile.tensor_view"

    element_type: Attribute
    shape: ArrayAttr[IntAttr]
    strides: ArrayAttr[IntAttr]

    def __init__(self, element_type: Attribute, shape: Sequence[int], strides: Sequence[int]):
        super().__init__(
            element_type,
            ArrayAttr([IntAttr(d) for d in shape]),
            ArrayAttr([IntAttr(s) for s in strides]),
        )

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape)

    @property
    def stride_values(self) -> tuple[int, ...]:
        return tuple(s.data for s in self.strides)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from tileir.dialects.cuda_tile.syntax import parse_shape_and_element

        parser.parse_punctuation("<")
        dims, element = parse_shape_and_element(parser, allow_dynamic=True)
        strides: list[int] = []
        if not dims:
            if parser.parse_optional_punctuation(","):
                if parser.parse_optional_keyword("strides"):
                    parser.raise_error("strides must not be provided for 0-d tiles")
                parser.raise_error("unexpected token after element type in 0-d tensor_view")
        else:
            if not parser.parse_optional_punctuation(","):
                parser.raise_error("expected 'strides'")
            parser.parse_keyword("strides")
            parser.parse_punctuation("=")

            def stride() -> int:
                if parser.parse_optional_punctuation("?"):
                    return DYNAMIC
                pos = parser.pos
                value = parser.parse_optional_integer(allow_boolean=False)
                if value is None:
                    parser.raise_error("expected either 64-bit integer or question mark")
                if value <= 0:
                    parser.raise_error(
                        f"expected strictly positive integer, got {value}", pos, parser.pos
                    )
                return value

            strides = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, stride)
        parser.parse_punctuation(">")
        return (
            element,
            ArrayAttr([IntAttr(d) for d in dims]),
            ArrayAttr([IntAttr(s) for s in strides]),
        )

    def print_parameters(self, printer: Printer) -> None:
        from tileir.dialects.cuda_tile.syntax import print_shape_and_element

        printer.print_string("<")
        print_shape_and_element(printer, self.dims, self.element_type)
        if self.dims:
            text = ",".join("?" if s == DYNAMIC else str(s) for s in self.stride_values)
            printer.print_string(f", strides=[{text}]")
        printer.print_string(">")

    def verify(self) -> None:
        if not is_number_type(self.element_type):
            raise VerifyException(f"failed to verify 'elementType': {NUMBER_TYPE_SUMMARY}")
        if len(self.shape) != len(self.strides):
            raise VerifyException(
                "expected shape and stride to be of same rank but got shape of rank "
                f"{len(self.shape)} and stride of rank {len(self.strides)}"
            )

        def show(values: Sequence[int]) -> str:
            return "[" + ", ".join("?" if v == DYNAMIC else str(v) for v in values) + "]"

        if any(d <= 0 and d != DYNAMIC for d in self.dims):
            raise VerifyException(
                "dimensions must have strictly positive constant sizes but got " + show(self.dims)
            )
        if any(s <= 0 and s != DYNAMIC for s in self.stride_values):
            raise VerifyException(
                "dimensions must have strictly positive constant strides but got "
                + show(self.stride_values)
            )


# ---------------------------------------------------------------------------
# Tile views: partition_view, strided_view, gather_scatter_view.  They share the
# `tile=(...)`, `padding_value = ...` and `dim_map=[...]` pieces and NVIDIA's
# TileView interface (index rank, tile type, index verification).
# ---------------------------------------------------------------------------

_I32_MAX = 2**31 - 1


def _parse_view_tile(parser: AttrParser) -> list[int]:
    parser.parse_keyword("tile")
    parser.parse_punctuation("=")
    pos = parser.pos
    parser.parse_punctuation("(")
    tile = parser.parse_dimension_list()
    parser.parse_punctuation(")")
    for i, v in enumerate(tile):
        if v <= 0 or v > _I32_MAX:
            parser.raise_error(
                f"tile dimension {i} exceeds i32 limitations (got {v}, expected "
                f"strictly positive and less than or equal to {_I32_MAX})",
                pos,
                parser.pos,
            )
    return tile


def _parse_optional_padding(parser: AttrParser) -> Attribute:
    """`padding_value = nan,` (with its comma), or nothing."""
    if not parser.parse_optional_keyword("padding_value"):
        return NoneAttr()
    parser.parse_punctuation("=")
    pos = parser.pos
    word = parser.parse_optional_identifier()
    if word not in {p.value for p in PaddingValue}:
        parser.raise_error(
            f'invalid padding_value attribute specification. Got "{word}" but expect one '
            "of: zero, neg_zero, nan, pos_inf, neg_inf",
            pos,
            max(parser.pos, pos + 1),
        )
    parser.parse_punctuation(",")
    return PaddingValueAttr(PaddingValue(word))


def _parse_tensor_view(parser: AttrParser) -> TensorViewType:
    from tileir.dialects.cuda_tile.syntax import parse_cuda_tile_type

    t = parse_cuda_tile_type(parser)
    if not isinstance(t, TensorViewType):
        parser.raise_error(f"expected 'tensor_view' type, but got '{t}'")
    return t


def _parse_optional_dim_map(parser: AttrParser, rank: int) -> list[int]:
    if not parser.parse_optional_punctuation(","):
        return list(range(rank))
    parser.parse_keyword("dim_map")
    parser.parse_punctuation("=")
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def _print_padding(printer: Printer, padding: Attribute) -> None:
    if isinstance(padding, PaddingValueAttr):
        printer.print_string(f"padding_value = {padding.data.value}, ")


def _print_dim_map(printer: Printer, dim_map: Sequence[int]) -> None:
    if tuple(dim_map) != tuple(range(len(dim_map))):
        printer.print_string(", dim_map=[" + ", ".join(str(d) for d in dim_map) + "]")


def _verify_view_tile(tile: Sequence[int], tv: TensorViewType) -> None:
    """The checks every view makes of its tile shape."""
    if not tile:
        raise VerifyException("0-dimension tile shape is not supported")
    if len(tile) != tv.rank:
        raise VerifyException(
            "expected tensor_view rank and tile rank to match, got tensor_view of "
            f"rank {tv.rank} and tiles of rank {len(tile)}"
        )


def _verify_tile_dims(tile: Sequence[int]) -> None:
    if any(d <= 0 for d in tile):
        raise VerifyException(
            f"tile shape dimensions must have positive length but got [{shape_text(tile)}]"
        )
    if any(not is_pow2(d) for d in tile):
        raise VerifyException(
            f"tile shape dimensions must have power of two length but got [{shape_text(tile)}]"
        )


def _verify_padding(padding: Attribute, tv: TensorViewType) -> None:
    if (
        isinstance(padding, PaddingValueAttr)
        and padding.data is not PaddingValue.ZERO
        and not isinstance(tv.element_type, AnyFloat)
    ):
        raise VerifyException(
            f"padding_value {padding.data.value} can only be used with floating point "
            f"element types, got '{tv.element_type}'"
        )


def _verify_partition_like(
    tile: Sequence[int], tv: TensorViewType, dim_map: Sequence[int], padding: Attribute
) -> None:
    """NVIDIA's rules for grid-like views (partition and strided)."""
    _verify_view_tile(tile, tv)
    if len(dim_map) != len(tile):
        raise VerifyException(
            f"expected dim_map to map exactly all {len(tile)} dimensions of the tile, "
            f"got {len(dim_map)} mappings"
        )
    _verify_tile_dims(tile)
    used: dict[int, int] = {}
    for tile_dim, target in enumerate(dim_map):
        if target < 0:
            raise VerifyException(f"target dimension must not be negative, got {target}")
        if target >= tv.rank:
            raise VerifyException(
                "target dimension is outside of tensor view dimensions, expected strictly "
                f"less than {tv.rank}, got {target}"
            )
        if target in used:
            raise VerifyException(
                f"target dimension {target} mapped at least twice (for tile dimensions "
                f"{used[target]} and {tile_dim})"
            )
        used[target] = tile_dim
    verify_tile_shape(tile, tv.element_type)
    _verify_padding(padding, tv)


class TileViewType(ABC):
    """NVIDIA's TileView interface: a view loads and stores tiles of one type at
    integer indices."""

    @property
    @abstractmethod
    def tile_dims(self) -> tuple[int, ...]: ...

    @property
    @abstractmethod
    def view_tensor(self) -> TensorViewType: ...

    @property
    def index_rank(self) -> int:
        return len(self.tile_dims)

    def view_tile_type(self) -> TileType:
        """The type of the tiles loaded from or stored to the view."""
        return TileType(self.tile_dims, self.view_tensor.element_type)

    @property
    def padding(self) -> PaddingValue | None:
        padding = getattr(self, "padding_value", None)
        return padding.data if isinstance(padding, PaddingValueAttr) else None

    def verify_indices(self, index_types: Sequence[Attribute]) -> str | None:
        """Why `index_types` cannot index the view (None when they can): every index is
        a scalar tile, all of one type."""
        if not index_types:
            return None
        for t in index_types:
            if not isinstance(t, TileType):
                return f"expected index type to be a tile type, got '{t}'"
            if t.rank != 0:
                return f"expected index type to be a scalar tile, got '{t}'"
        for i, t in enumerate(index_types):
            if t != index_types[0]:
                return (
                    f"expected index type {i} to be the same as other index types "
                    f"('{index_types[0]}'), got '{t}'"
                )
        return None


def is_tile_view(t: Attribute) -> bool:
    return isinstance(t, TileViewType)


@irdl_attr_definition
class PartitionViewType(TileViewType, ParametrizedAttribute, TypeAttribute):
    """`partition_view<tile=(4x2), [padding_value = nan, ] tensor_view<...>[, dim_map=[1, 0]]>`.

    A grid of equally sized tiles over a tensor_view.  Tile dimension k covers tensor
    dimension `dim_map[k]`; index `i_k` selects elements `i_k * tile[k] + t` along it.
    Loads of elements outside the tensor_view read `padding_value`; stores to them do
    nothing."""

    name = "cuda_tile.partition_view"

    tile_shape: ArrayAttr[IntAttr]
    tensor_view: TensorViewType
    dim_map: ArrayAttr[IntAttr]
    padding_value: PaddingValueAttr | NoneAttr

    def __init__(
        self,
        tile_shape: Sequence[int],
        tensor_view: TensorViewType,
        dim_map: Sequence[int] | None = None,
        padding_value: PaddingValue | None = None,
    ):
        if dim_map is None:
            dim_map = list(range(len(tile_shape)))
        super().__init__(
            ArrayAttr([IntAttr(d) for d in tile_shape]),
            tensor_view,
            ArrayAttr([IntAttr(d) for d in dim_map]),
            NoneAttr() if padding_value is None else PaddingValueAttr(padding_value),
        )

    @property
    def tile_dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.tile_shape)

    @property
    def view_tensor(self) -> TensorViewType:
        return self.tensor_view

    @property
    def dim_map_values(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.dim_map)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        tile = _parse_view_tile(parser)
        parser.parse_punctuation(",")
        padding = _parse_optional_padding(parser)
        tv = _parse_tensor_view(parser)
        dim_map = _parse_optional_dim_map(parser, len(tile))
        parser.parse_punctuation(">")
        return (
            ArrayAttr([IntAttr(d) for d in tile]),
            tv,
            ArrayAttr([IntAttr(d) for d in dim_map]),
            padding,
        )

    def print_parameters(self, printer: Printer) -> None:
        from tileir.dialects.cuda_tile.syntax import print_cuda_tile_type

        printer.print_string("<tile=(" + "x".join(str(d) for d in self.tile_dims) + "), ")
        _print_padding(printer, self.padding_value)
        print_cuda_tile_type(printer, self.tensor_view)
        _print_dim_map(printer, self.dim_map_values)
        printer.print_string(">")

    def verify(self) -> None:
        _verify_partition_like(
            self.tile_dims, self.tensor_view, self.dim_map_values, self.padding_value
        )

    def index_space_shape(self) -> tuple[int | None, ...]:
        """Static extent of each index-space dimension (None where dynamic)."""
        out: list[int | None] = []
        for k, t in enumerate(self.tile_dims):
            extent = self.tensor_view.dims[self.dim_map_values[k]]
            out.append(None if extent == DYNAMIC else -(-extent // t))
        return tuple(out)


@irdl_attr_definition
class StridedViewType(TileViewType, ParametrizedAttribute, TypeAttribute):
    """`strided_view<tile=(4x4), traversal_strides=[4,4], [padding_value = ..., ]
    tensor_view<...>[, dim_map=[...]]>` (13.3).

    Like a partition view, but consecutive indices along dimension k move the tile by
    `traversal_strides[k]` elements instead of by the tile size, so tiles may overlap
    or leave gaps."""

    name = "cuda_tile.strided_view"
    SINCE: ClassVar[str] = "13.3"

    tile_shape: ArrayAttr[IntAttr]
    traversal_strides: ArrayAttr[IntAttr]
    tensor_view: TensorViewType
    dim_map: ArrayAttr[IntAttr]
    padding_value: PaddingValueAttr | NoneAttr

    @property
    def tile_dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.tile_shape)

    @property
    def stride_values(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.traversal_strides)

    @property
    def view_tensor(self) -> TensorViewType:
        return self.tensor_view

    @property
    def dim_map_values(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.dim_map)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        tile = _parse_view_tile(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("traversal_strides")
        parser.parse_punctuation("=")
        strides = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        parser.parse_punctuation(",")
        padding = _parse_optional_padding(parser)
        tv = _parse_tensor_view(parser)
        dim_map = _parse_optional_dim_map(parser, len(tile))
        parser.parse_punctuation(">")
        return (
            ArrayAttr([IntAttr(d) for d in tile]),
            ArrayAttr([IntAttr(d) for d in strides]),
            tv,
            ArrayAttr([IntAttr(d) for d in dim_map]),
            padding,
        )

    def print_parameters(self, printer: Printer) -> None:
        from tileir.dialects.cuda_tile.syntax import print_cuda_tile_type

        printer.print_string("<tile=(" + "x".join(str(d) for d in self.tile_dims) + "), ")
        printer.print_string(
            "traversal_strides=[" + ",".join(str(d) for d in self.stride_values) + "], "
        )
        _print_padding(printer, self.padding_value)
        print_cuda_tile_type(printer, self.tensor_view)
        _print_dim_map(printer, self.dim_map_values)
        printer.print_string(">")

    def verify(self) -> None:
        tile = self.tile_dims
        _verify_partition_like(tile, self.tensor_view, self.dim_map_values, self.padding_value)
        strides = self.stride_values
        if len(strides) != len(tile):
            raise VerifyException(f"expected {len(tile)} traversal strides, got {len(strides)}")
        if any(s <= 0 for s in strides):
            raise VerifyException(
                f"traversal strides must be strictly positive but got [{shape_text(strides)}]"
            )


@irdl_attr_definition
class GatherScatterViewType(TileViewType, ParametrizedAttribute, TypeAttribute):
    """`gather_scatter_view<tile=(8x16), [padding_value = ..., ] tensor_view<...>,
    sparse_dim=0>` (13.3).

    Indexed like a partition view, except that the index along `sparse_dim` is a 1-d
    tile of element offsets (one per row of the tile) instead of a tile index: rows are
    gathered from, or scattered to, arbitrary positions."""

    name = "cuda_tile.gather_scatter_view"
    SINCE: ClassVar[str] = "13.3"

    tile_shape: ArrayAttr[IntAttr]
    tensor_view: TensorViewType
    sparse_dim: IntAttr
    padding_value: PaddingValueAttr | NoneAttr

    @property
    def tile_dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.tile_shape)

    @property
    def view_tensor(self) -> TensorViewType:
        return self.tensor_view

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        tile = _parse_view_tile(parser)
        parser.parse_punctuation(",")
        padding = _parse_optional_padding(parser)
        tv = _parse_tensor_view(parser)
        parser.parse_punctuation(",")
        parser.parse_keyword("sparse_dim")
        parser.parse_punctuation("=")
        sparse_dim = parser.parse_integer(allow_boolean=False, allow_negative=False)
        parser.parse_punctuation(">")
        return (ArrayAttr([IntAttr(d) for d in tile]), tv, IntAttr(sparse_dim), padding)

    def print_parameters(self, printer: Printer) -> None:
        from tileir.dialects.cuda_tile.syntax import print_cuda_tile_type

        printer.print_string("<tile=(" + "x".join(str(d) for d in self.tile_dims) + "), ")
        _print_padding(printer, self.padding_value)
        print_cuda_tile_type(printer, self.tensor_view)
        printer.print_string(f", sparse_dim={self.sparse_dim.data}>")

    def verify(self) -> None:
        tile = self.tile_dims
        tv = self.tensor_view
        _verify_view_tile(tile, tv)
        _verify_tile_dims(tile)
        if self.sparse_dim.data >= tv.rank:
            raise VerifyException(
                "gather dimension is outside of tensor view dimensions, expected strictly "
                f"less than {tv.rank}, got {self.sparse_dim.data}"
            )
        verify_tile_shape(tile, tv.element_type)
        _verify_padding(self.padding_value, tv)

    def verify_indices(self, index_types: Sequence[Attribute]) -> str | None:
        """The index at `sparse_dim` is a 1-d tile as long as the tile is along that
        dimension; the others are scalar tiles of one common type."""
        if not index_types:
            return None
        sparse = self.sparse_dim.data
        if sparse >= len(index_types):
            return (
                f"gather/scatter dimension {sparse} is out of range for index count "
                f"{len(index_types)}"
            )
        gather = index_types[sparse]
        if not isinstance(gather, TileType):
            return (
                f"expected index at sparse_dim position {sparse} to be a tile type for "
                "GatherScatterView"
            )
        if gather.rank != 1:
            return (
                f"expected index at sparse_dim position {sparse} to be a 1D tensor for "
                f"GatherScatterView, got rank {gather.rank}"
            )
        if gather.dims[0] != self.tile_dims[sparse]:
            return (
                f"expected gather/scatter index size ({gather.dims[0]}) to match tile shape "
                f"at gather/scatter dimension {sparse} ({self.tile_dims[sparse]})"
            )
        base: Attribute | None = None
        for i, t in enumerate(index_types):
            if i == sparse:
                continue
            if not isinstance(t, TileType) or t.rank != 0:
                return f"expected index {i} to be a scalar tile for GatherScatterView"
            if base is None:
                base = t
            elif t != base:
                return (
                    f"expected scalar index {i} to have the same type as other scalar "
                    f"indices ('{base}'), got '{t}'"
                )
        return None


def is_integer_type(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


TYPES: list[type[Attribute]] = [
    PointerType,
    TileType,
    TokenType,
    TensorViewType,
    PartitionViewType,
    StridedViewType,
    GatherScatterViewType,
]
