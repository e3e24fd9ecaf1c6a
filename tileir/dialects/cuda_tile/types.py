"""Types of the cuda_tile dialect.

Inside a cuda_tile scope every type prints in its short form (`tile<4xf32>`,
`ptr<f16>`, `token`, `tensor_view<?xf32, strides=[1]>`); anywhere else xDSL's generic
printer uses the long form (`!cuda_tile.tile<4x!cuda_tile.ptr<f32>>`).  Both parse
everywhere a cuda_tile custom syntax expects a type (see `syntax.parse_cuda_tile_type`).
"""

from __future__ import annotations

from collections.abc import Sequence

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

#: The dynamic extent marker of tensor_view shapes and strides (`?`).
DYNAMIC = -(2**63)

#: Most elements a tile may hold.
MAX_TILE_ELEMENTS = 2**24


def _is_pow2(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


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
        dims = self.dims
        bad = [d for d in dims if not _is_pow2(d)]
        if bad:
            raise VerifyException(
                "tile shape dimensions must have power of two length but got "
                f"[{', '.join(str(d) for d in dims)}]"
            )
        if self.num_elements > MAX_TILE_ELEMENTS:
            raise VerifyException(
                f"tile has {self.num_elements} elements, at most {MAX_TILE_ELEMENTS} are allowed"
            )

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
        if len(self.shape) != len(self.strides):
            raise VerifyException(
                "expected shape and stride to be of same rank but got shape of rank "
                f"{len(self.shape)} and stride of rank {len(self.strides)}"
            )

        def show(values: Sequence[int]) -> str:
            return "[" + ", ".join("?" if v == DYNAMIC else str(v) for v in values) + "]"

        if any(d <= 0 and d != DYNAMIC for d in self.dims):
            raise VerifyException(
                "dimensions must have strictly positive constant sizes but got "
                + show(self.dims)
            )
        if any(s <= 0 and s != DYNAMIC for s in self.stride_values):
            raise VerifyException(
                "dimensions must have strictly positive constant strides but got "
                + show(self.stride_values)
            )


@irdl_attr_definition
class PartitionViewType(ParametrizedAttribute, TypeAttribute):
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
    def dim_map_values(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.dim_map)

    @property
    def padding(self) -> PaddingValue | None:
        return self.padding_value.data if isinstance(self.padding_value, PaddingValueAttr) else None

    @property
    def index_rank(self) -> int:
        return len(self.tile_shape)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        from tileir.dialects.cuda_tile.syntax import parse_cuda_tile_type

        parser.parse_punctuation("<")
        parser.parse_keyword("tile")
        parser.parse_punctuation("=")
        pos = parser.pos
        parser.parse_punctuation("(")
        tile = parser.parse_dimension_list()
        if not tile:
            parser.raise_error("expected a tile shape")
        parser.parse_punctuation(")")
        for i, v in enumerate(tile):
            if v <= 0 or v > 2**31 - 1:
                parser.raise_error(
                    f"tile dimension {i} exceeds i32 limitations (got {v}, expected "
                    "strictly positive and less than or equal to 2147483647)",
                    pos,
                    parser.pos,
                )
        parser.parse_punctuation(",")
        padding: Attribute = NoneAttr()
        if parser.parse_optional_keyword("padding_value"):
            parser.parse_punctuation("=")
            pos = parser.pos
            word = parser.parse_optional_identifier()
            if word not in {p.value for p in PaddingValue}:
                parser.raise_error(
                    f'invalid padding_value attribute specification. Got "{word}" but '
                    "expect one of: zero, neg_zero, nan, pos_inf, neg_inf",
                    pos,
                    parser.pos,
                )
            padding = PaddingValueAttr(PaddingValue(word))
            parser.parse_punctuation(",")
        pos = parser.pos
        tv = parse_cuda_tile_type(parser)
        if not isinstance(tv, TensorViewType):
            parser.raise_error(f"expected 'tensor_view' type, but got {tv}", pos, parser.pos)
        dim_map = list(range(len(tile)))
        if parser.parse_optional_punctuation(","):
            parser.parse_keyword("dim_map")
            parser.parse_punctuation("=")
            dim_map = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
            )
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
        if (pad := self.padding) is not None:
            printer.print_string(f"padding_value = {pad.value}, ")
        print_cuda_tile_type(printer, self.tensor_view)
        dim_map = self.dim_map_values
        if dim_map != tuple(range(len(dim_map))):
            printer.print_string(", dim_map=[" + ", ".join(str(d) for d in dim_map) + "]")
        printer.print_string(">")

    def verify(self) -> None:
        tile = self.tile_dims
        tv = self.tensor_view
        if not tile:
            raise VerifyException("0-dimension tile shape is not supported")
        if len(tile) != tv.rank:
            raise VerifyException(
                "expected tensor_view rank and tile rank to match, got tensor_view of "
                f"rank {tv.rank} and tiles of rank {len(tile)}"
            )
        dim_map = self.dim_map_values
        if len(dim_map) != len(tile):
            raise VerifyException(
                f"expected dim_map to map exactly all {len(tile)} dimensions of the tile, "
                f"got {len(dim_map)} mappings"
            )
        if any(d <= 0 for d in tile):
            raise VerifyException(
                "tile shape dimensions must have positive length but got "
                f"[{', '.join(map(str, tile))}]"
            )
        if any(not _is_pow2(d) for d in tile):
            raise VerifyException(
                "tile shape dimensions must have power of two length but got "
                f"[{', '.join(map(str, tile))}]"
            )
        if sorted(dim_map) != list(range(len(tile))):
            raise VerifyException(
                f"dim_map must be a permutation of [0, {len(tile)}), got "
                f"[{', '.join(map(str, dim_map))}]"
            )
        pad = self.padding
        if (
            pad is not None
            and pad != PaddingValue.ZERO
            and not isinstance(tv.element_type, AnyFloat)
        ):
            raise VerifyException(
                f"padding_value {pad.value} requires a floating-point element type, "
                f"got {tv.element_type}"
            )

    def index_space_shape(self) -> tuple[int | None, ...]:
        """Static extent of each index-space dimension (None where dynamic)."""
        out: list[int | None] = []
        for k, t in enumerate(self.tile_dims):
            extent = self.tensor_view.dims[self.dim_map_values[k]]
            out.append(None if extent == DYNAMIC else -(-extent // t))
        return tuple(out)


def is_integer_type(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


TYPES: list[type[Attribute]] = [
    PointerType,
    TileType,
    TokenType,
    TensorViewType,
    PartitionViewType,
]
