"""The tensor-slice family: local tile storage and sub-tiles (seeds 000, 003).

`alloc_tensor` creates a tile value, `extract_slice` / `insert_slice` read and write a
rectangular sub-tile with offsets, sizes and strides that mix static integers and SSA
index values (`%src[%i, 0][64, %n][1, 1]`), stored MLIR-style as
`static_offsets`/`static_sizes`/`static_strides` arrays with `DYNAMIC_INDEX` holes plus
the dynamic operands.  They have value semantics: `insert_slice` returns the updated
tile (its result may go unnamed in text, as in seed 000's decompose-loop output).

`extract_slice` also slices a `tiled_view` into a sub-view of the same residency (the
form `extract_slice(view(x))` that seed 000's swap-view-and-extract-slice pattern
rewrites).

`alloc_tensor`, `extract_slice` and `insert_slice` are the pure tile structure match
chains walk through (seed 000); the async forms operate on futures of tiles and are
pure, but not chain ops.  `alloc_tensor` is not `Pure`: it has an allocation effect on
its result (`AllocatesResult`), so CSE never merges two allocations (each is its own
storage; branch decomposition duplicates them on purpose) while DCE still removes an
unused one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX as DYNAMIC_EXTENT
from xdsl.dialects.builtin import DenseArrayBase, IndexType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    AlwaysSpeculatable,
    EffectInstance,
    HasCanonicalizationPatternsTrait,
    MemoryEffect,
    MemoryEffectKind,
    Pure,
)

from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.interfaces import PureTileStructure
from tileir.dialects.nv_tileas.ops.base import TileASOp, drop_segment_sizes
from tileir.dialects.nv_tileas.syntax import (
    DYNAMIC_INDEX,
    bare_tile_syntax,
    index_array,
    mixed_values,
    parse_dynamic_index_list,
    print_dynamic_index_list,
    resolve_index,
    split_mixed,
    static_values,
)
from tileir.dialects.nv_tileas.types import TiledViewType
from tileir.dialects.nv_tileas.verifiers import (
    ALLOC_SIZES,
    SLICE_BOUNDS,
    SLICE_RANK,
    SLICE_SIZES,
    SLICE_TYPES,
    fail,
)

Mixed = Sequence[int | SSAValue]


class AllocatesResult(MemoryEffect):
    """The op allocates its result and has no other effect (MLIR's `MemAlloc` on the
    result).  xDSL's CSE leaves ops with effects alone, so two allocations of the same
    type stay two storages; its DCE discards an allocation of the op's own result, so
    an unused allocation is still dead."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.ALLOC, r) for r in op.results}


@bare_tile_syntax
@irdl_op_definition
class AllocTensorOp(TileASOp):
    """`%t = nv_tileas.alloc_tensor : tensor<128x128xf32>` (dynamic extents: `nv_tileas.alloc_tensor(%m, %n) : tensor<?x?xf32>`)

    A fresh tile value of the given type (contents undefined until written), the start
    of every insertion chain.  A pure tile constructor: re-emitting it gives a value
    with the same SSA semantics.  Each allocation is its own storage: it has an
    allocation effect on its result, so CSE does not merge two of them (DCE still
    removes an unused one)."""

    name = "nv_tileas.alloc_tensor"
    dynamic_sizes = var_operand_def(IndexType)
    result = result_def(TensorType)
    traits = traits_def(AllocatesResult(), AlwaysSpeculatable(), PureTileStructure(None))
    assembly_format = "(`(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)"
    RULES: ClassVar[tuple[str, ...]] = (ALLOC_SIZES,)

    def __init__(self, result_type: TensorType[Attribute], dynamic_sizes: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(dynamic_sizes)], result_types=[result_type])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TensorType)
        dynamic = sum(1 for d in t.get_shape() if d == DYNAMIC_EXTENT)
        if dynamic != len(self.dynamic_sizes):
            raise self.op_error(
                f"expects {dynamic} dynamic sizes for {t}, got {len(self.dynamic_sizes)}"
            )


def _shaped(t: Attribute) -> tuple[tuple[int, ...], Attribute] | None:
    """(shape, element type) of a sliceable type: a ranked tensor, a future of one, or a
    tiled view."""
    if isinstance(t, AsyncValueType):
        t = t.value_type
    if isinstance(t, TensorType):
        return tuple(t.get_shape()), t.element_type
    if isinstance(t, TiledViewType):
        return t.dims, t.element_type
    return None


def check_slice(
    op: Operation,
    full: Attribute,
    part: Attribute,
    offsets: tuple[Sequence[int], int],
    sizes: tuple[Sequence[int], int],
    strides: tuple[Sequence[int], int],
    part_role: str,
) -> None:
    """SLICE_RANK, SLICE_TYPES, SLICE_SIZES, SLICE_BOUNDS for a slice `part` of `full`."""
    full_t, part_t = _shaped(full), _shaped(part)
    if (
        full_t is None
        or part_t is None
        or isinstance(full, TiledViewType) != isinstance(part, TiledViewType)
    ):
        raise fail(
            op,
            f"slices take ranked tensors (or futures of them) or tiled views, got {full} and {part}",
        )
    if (
        isinstance(full, TiledViewType)
        and isinstance(part, TiledViewType)
        and full.residency != part.residency
    ):
        raise fail(
            op,
            f"a slice of a view keeps its residency ({full.residency_kind.value} vs {part.residency_kind.value})",
        )
    (full_shape, full_element), (part_shape, part_element) = full_t, part_t
    rank = len(full_shape)
    for what, (static, dynamic) in (("offsets", offsets), ("sizes", sizes), ("strides", strides)):
        if len(static) != rank:
            raise fail(op, f"expected {rank} {what} (the tile's rank), got {len(static)}")
        holes = sum(1 for s in static if s == DYNAMIC_INDEX)
        if holes != dynamic:
            raise fail(op, f"{what} have {holes} dynamic entries but {dynamic} dynamic operands")
    if len(part_shape) != rank:
        raise fail(op, f"the {part_role} {part} must keep the rank {rank} of {full}")
    if part_element != full_element:
        raise fail(op, f"element types differ: {part_element} vs {full_element}")
    for d, (size, extent) in enumerate(zip(sizes[0], part_shape, strict=True)):
        # A static size gives that extent (or `?`, a less static type); a dynamic one `?`.
        if size == DYNAMIC_INDEX and extent != DYNAMIC_EXTENT:
            raise fail(
                op, f"dimension {d} of the {part_role} {part} must be ? (the slice size there)"
            )
        if size != DYNAMIC_INDEX and extent not in (size, DYNAMIC_EXTENT):
            raise fail(
                op,
                f"dimension {d} of the {part_role} {part} must be {size} or ? (the slice size there)",
            )
    for d in range(rank):
        off, size, stride = offsets[0][d], sizes[0][d], strides[0][d]
        if off != DYNAMIC_INDEX and off < 0:
            raise fail(op, f"offset {off} of dimension {d} is negative")
        if size != DYNAMIC_INDEX and size < 0:
            raise fail(op, f"size {size} of dimension {d} is negative")
        if stride != DYNAMIC_INDEX and stride < 1:
            raise fail(op, f"stride {stride} of dimension {d} must be at least 1")
        static = DYNAMIC_INDEX not in (off, size, stride) and full_shape[d] != DYNAMIC_EXTENT
        if static and size > 0 and off + (size - 1) * stride >= full_shape[d]:
            raise fail(
                op,
                f"slice [{off} + {size} x {stride}] runs past extent {full_shape[d]} of dimension {d}",
            )


class ExtractSliceCanonicalization(HasCanonicalizationPatternsTrait):
    """Attaches the seed 000 patterns rooted on `extract_slice` to xDSL's `canonicalize`
    (the patterns rooted on `scf.for` / `scf.if` run only in `tileas-canonicalize`)."""

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from tileir.dialects.nv_tileas.canonicalize import EXTRACT_SLICE_PATTERNS

        return EXTRACT_SLICE_PATTERNS


class SliceOp(TileASOp):
    """Shared pieces of the four slice ops."""

    offsets = var_operand_def(IndexType)
    sizes = var_operand_def(IndexType)
    strides = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = prop_def(DenseArrayBase)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    RULES: ClassVar[tuple[str, ...]] = (SLICE_RANK, SLICE_TYPES, SLICE_SIZES, SLICE_BOUNDS)

    def mixed_offsets(self) -> list[int | SSAValue]:
        return mixed_values(static_values(self.static_offsets), self.offsets)

    def mixed_sizes(self) -> list[int | SSAValue]:
        return mixed_values(static_values(self.static_sizes), self.sizes)

    def mixed_strides(self) -> list[int | SSAValue]:
        return mixed_values(static_values(self.static_strides), self.strides)

    def _lists(self) -> tuple[tuple[Sequence[int], int], ...]:
        return (
            (static_values(self.static_offsets), len(self.offsets)),
            (static_values(self.static_sizes), len(self.sizes)),
            (static_values(self.static_strides), len(self.strides)),
        )

    def print_slice(self, printer: Printer) -> None:
        print_dynamic_index_list(printer, self.offsets, static_values(self.static_offsets))
        print_dynamic_index_list(printer, self.sizes, static_values(self.static_sizes))
        print_dynamic_index_list(printer, self.strides, static_values(self.static_strides))
        elided = ("operandSegmentSizes", "static_offsets", "static_sizes", "static_strides")
        printer.print_op_attributes(
            {k: v for k, v in self.properties.items() if k not in elided} | dict(self.attributes)
        )


def _slice_props(lists: Sequence[tuple[object, list[int]]]) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {
        "static_offsets": index_array(lists[0][1]),
        "static_sizes": index_array(lists[1][1]),
        "static_strides": index_array(lists[2][1]),
    }
    return props


def _slice_build_args(
    offsets: Mixed, sizes: Mixed, strides: Mixed
) -> tuple[list[list[SSAValue]], dict[str, Attribute]]:
    dyn_o, st_o = split_mixed(offsets)
    dyn_s, st_s = split_mixed(sizes)
    dyn_t, st_t = split_mixed(strides)
    props: dict[str, Attribute] = {
        "static_offsets": index_array(st_o),
        "static_sizes": index_array(st_s),
        "static_strides": index_array(st_t),
    }
    return [dyn_o, dyn_s, dyn_t], props


def inferred_slice_type(source: Attribute, sizes: Mixed) -> Attribute:
    """The slice type the sizes give: static sizes as extents, dynamic ones as `?` (a
    tensor keeps its encoding; a view keeps its residency and layout, with no explicit
    strides)."""
    shape = [s if isinstance(s, int) else DYNAMIC_EXTENT for s in sizes]
    if isinstance(source, TiledViewType):
        return TiledViewType(
            shape, source.element_type, source.residency_kind, layout=source.layout_attr
        )
    assert isinstance(source, TensorType)
    return TensorType(source.element_type, shape, source.encoding)


class ExtractSliceBase(SliceOp):
    source = operand_def()
    result = result_def()

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        self.print_slice(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ExtractSliceBase:
        source = parser.parse_unresolved_operand()
        lists = [parse_dynamic_index_list(parser) for _ in range(3)]
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_t = parser.parse_type()
        parser.parse_keyword("to")
        result_t = parser.parse_type()
        drop_segment_sizes(parser, attrs, [1, *(len(dyn) for dyn, _ in lists)])
        return cls.build(
            operands=[
                parser.resolve_operand(source, source_t),
                *(resolve_index(parser, dyn) for dyn, _ in lists),
            ],
            result_types=[result_t],
            properties=_slice_props(lists),
            attributes=attrs,
        )

    def verify_(self) -> None:
        o, s, t = self._lists()
        check_slice(self, self.source.type, self.result.type, o, s, t, "result")


@bare_tile_syntax
@irdl_op_definition
class ExtractSliceOp(ExtractSliceBase):
    """`%s = nv_tileas.extract_slice %src[%i, 0][64, %n][1, 1] : tensor<128x128xf32> to tensor<64x?xf32>`

    The sub-tile at `offsets` with `sizes` and `strides` (static integers or index
    values, per dimension).  Of a `tiled_view`, the sub-view there (same residency).
    Canonicalized by seed 000's simplify-extract-slice, swap-view-and-extract-slice and
    simplify-extract-from-insert patterns (also under xDSL's `canonicalize`)."""

    name = "nv_tileas.extract_slice"
    source = operand_def(base(TensorType) | base(TiledViewType))
    result = result_def(base(TensorType) | base(TiledViewType))
    traits = traits_def(Pure(), PureTileStructure("source"), ExtractSliceCanonicalization())

    def __init__(
        self,
        source: SSAValue,
        offsets: Mixed,
        sizes: Mixed,
        strides: Mixed,
        result_type: Attribute | None = None,
    ):
        operands, props = _slice_build_args(offsets, sizes, strides)
        t = source.type
        super().__init__(
            operands=[source, *operands],
            result_types=[
                result_type if result_type is not None else inferred_slice_type(t, sizes)
            ],
            properties=props,
        )


@bare_tile_syntax
@irdl_op_definition
class AsyncExtractSliceOp(ExtractSliceBase):
    """`%s = nv_tileas.async.extract_slice %f[0, 0][64, 64][1, 1] : !async.value<tensor<128x128xf32>> to !async.value<tensor<64x64xf32>>`

    `extract_slice` of a future: a future of the sub-tile, without waiting."""

    name = "nv_tileas.async.extract_slice"
    source = operand_def(AsyncValueType)
    result = result_def(AsyncValueType)
    traits = traits_def(Pure())


class InsertSliceBase(SliceOp):
    source = operand_def()
    dest = operand_def()
    result = result_def()

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(" into ")
        printer.print_operand(self.dest)
        self.print_slice(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" into ")
        printer.print_attribute(self.dest.type)

    @classmethod
    def parse(cls, parser: Parser) -> InsertSliceBase:
        source = parser.parse_unresolved_operand()
        parser.parse_keyword("into")
        dest = parser.parse_unresolved_operand()
        lists = [parse_dynamic_index_list(parser) for _ in range(3)]
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_t = parser.parse_type()
        parser.parse_keyword("into")
        dest_t = parser.parse_type()
        drop_segment_sizes(parser, attrs, [1, 1, *(len(dyn) for dyn, _ in lists)])
        return cls.build(
            operands=[
                parser.resolve_operand(source, source_t),
                parser.resolve_operand(dest, dest_t),
                *(resolve_index(parser, dyn) for dyn, _ in lists),
            ],
            result_types=[dest_t],
            properties=_slice_props(lists),
            attributes=attrs,
        )

    def verify_(self) -> None:
        o, s, t = self._lists()
        check_slice(self, self.dest.type, self.source.type, o, s, t, "source")
        if self.result.type != self.dest.type:
            raise self.op_error(
                f"result type {self.result.type} must be the destination type {self.dest.type}"
            )


@bare_tile_syntax
@irdl_op_definition
class InsertSliceOp(InsertSliceBase):
    """`%r = nv_tileas.insert_slice %x into %dst[%i, %j][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>`

    `%dst` with the sub-tile at `offsets`/`sizes`/`strides` replaced by `%x`; returns
    the updated tile."""

    name = "nv_tileas.insert_slice"
    source = operand_def(TensorType)
    dest = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), PureTileStructure("dest"))

    def __init__(
        self, source: SSAValue, dest: SSAValue, offsets: Mixed, sizes: Mixed, strides: Mixed
    ):
        operands, props = _slice_build_args(offsets, sizes, strides)
        super().__init__(
            operands=[source, dest, *operands], result_types=[dest.type], properties=props
        )


@bare_tile_syntax
@irdl_op_definition
class AsyncInsertSliceOp(InsertSliceBase):
    """`%r = nv_tileas.async.insert_slice %fx into %fdst[0, 0][64, 64][1, 1] : !async.value<tensor<64x64xf32>> into !async.value<tensor<128x128xf32>>`

    `insert_slice` on futures: a future of the updated tile."""

    name = "nv_tileas.async.insert_slice"
    source = operand_def(base(AsyncValueType) | base(TensorType))
    dest = operand_def(AsyncValueType)
    result = result_def(AsyncValueType)
    traits = traits_def(Pure())


SLICE_OPS: list[type[TileASOp]] = [
    AllocTensorOp,
    ExtractSliceOp,
    InsertSliceOp,
    AsyncExtractSliceOp,
    AsyncInsertSliceOp,
]
