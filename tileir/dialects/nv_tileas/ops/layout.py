"""The layout family: layout conversion, views, reshaping and generated tiles (seed 003).

Every tile-valued SSA value carries its layout in its tensor type's encoding once
`tileas-assign-layouts` has run; `convert_layout` moves a tile to another layout,
`view` makes a tiled view of storage, `expand_dims`, `reinterpret` and `shuffle`
reshape, retype and permute tiles, and `generate` builds a tile from a region evaluated
at each coordinate.  All are pure; `view` is one of the tile-structure ops match chains
walk through (seed 000).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import I32, DenseArrayBase, IndexType, IntegerAttr, TensorType, i32, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, RecursiveMemoryEffect

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa.types import TiledViewType as AATiledViewType
from tileir.dialects.nv_tileas.attributes import Residency
from tileir.dialects.nv_tileas.interfaces import PureRegionOp, PureTileStructure
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.syntax import bare_tile_syntax, int_array_values, parse_operand_list
from tileir.dialects.nv_tileas.types import TiledViewType
from tileir.dialects.nv_tileas.verifiers import (
    CONVERT_LAYOUT,
    EXPAND_DIMS,
    GENERATE_REGION,
    REINTERPRET_BITS,
    SHUFFLE_PERMUTATION,
    VIEW_POINTERS,
    VIEW_VALUE,
)
from tileir.utils.bits import mlir_bit_width


@bare_tile_syntax
@irdl_op_definition
class ViewOp(TileASOp):
    """`%v = nv_tileas.view %src[%i, ...] : tensor<256x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<256xf32, gmem>`

    A tiled view of storage.  With a tensor of global pointers as source, the view
    addresses one element per pointer (the form pointer-based nv_tileaa memory ops
    lower to); index operands select a sub-view of a view source.  With a tensor result
    it is a *value view* (seed 003's layout family): the same elements of a tensor seen
    with another shape or layout encoding (`tensor<128x128xf32> -> tensor<16384xf32>`),
    without indices; cuda_tile's `reshape` of a tile becomes one.  A reshape to rank 0
    views a one-element tensor as its element (`tensor<1x1xf32> -> f32`, the carrier of
    a rank-0 tile)."""

    name = "nv_tileas.view"
    src = operand_def()
    indices = var_operand_def()
    result = result_def()
    traits = traits_def(Pure(), PureTileStructure("src"))
    RULES: ClassVar[tuple[str, ...]] = (VIEW_POINTERS, VIEW_VALUE)

    def __init__(
        self,
        src: SSAValue,
        result_type: Attribute,
        indices: Sequence[SSAValue] = (),
    ):
        super().__init__(operands=[src, list(indices)], result_types=[result_type])

    @property
    def is_value_view(self) -> bool:
        """A view of a tensor's values (a tensor or rank-0 result), not of storage."""
        return not isinstance(self.result.type, TiledViewType)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.src)
        if self.indices:
            printer.print_string("[")
            printer.print_list(self.indices, printer.print_operand)
            printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.src.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> ViewOp:
        src = parser.parse_unresolved_operand()
        indices = []
        if parser._current_token.text == "[":  # pyright: ignore[reportPrivateUsage]
            indices = parse_operand_list(parser, parser.Delimiter.SQUARE)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_t = parser.parse_type()
        parser.parse_punctuation("->")
        res_t = parser.parse_type()
        return cls.create(
            operands=[
                parser.resolve_operand(src, src_t),
                *(parser.resolve_operand(i, IndexType()) for i in indices),
            ],
            result_types=[res_t],
            attributes=attrs,
        )

    def verify_(self) -> None:
        t = self.result.type
        if not isinstance(t, TiledViewType):
            self._verify_value_view(t)
            return
        el = element_type(self.src.type)
        if isinstance(el, PointerType):
            if t.residency.data is not Residency.GMEM:
                raise self.op_error("a view of global pointers must reside in gmem")
            if shape_of(self.src.type) != t.dims or el.pointee != t.element_type:
                raise self.op_error(f"view type {t} does not match the pointers {self.src.type}")

    def _verify_value_view(self, t: Attribute) -> None:
        """VIEW_VALUE."""
        source = self.src.type
        if self.indices or not isinstance(source, TensorType):
            raise self.op_error(
                "a value view (tensor result) views a tensor, without sub-view indices"
            )
        if not isinstance(t, TensorType):
            if t != source.element_type or math.prod(source.get_shape()) != 1:
                raise self.op_error(
                    f"a value view to rank 0 views a one-element tensor as its element type: "
                    f"{source} -> {t}"
                )
            return
        if source.element_type != t.element_type:
            raise self.op_error(
                f"a value view keeps the element type: {source.element_type} vs {t.element_type}"
            )
        src_shape, res_shape = tuple(source.get_shape()), tuple(t.get_shape())
        if any(d < 0 for d in (*src_shape, *res_shape)):
            if len(src_shape) != len(res_shape) or any(
                a >= 0 and b >= 0 and a != b for a, b in zip(src_shape, res_shape, strict=True)
            ):
                raise self.op_error(
                    f"a value view of a dynamically shaped tile keeps its shape: {source} vs {t}"
                )
            return
        if math.prod(src_shape) != math.prod(res_shape):
            raise self.op_error(
                f"a value view keeps the element count: {math.prod(src_shape)} elements "
                f"({source}) vs {math.prod(res_shape)} ({t})"
            )


@bare_tile_syntax
@irdl_op_definition
class ConvertLayoutOp(TileASOp):
    """`%y = nv_tileas.convert_layout %x : tensor<128xf32, #A> -> tensor<128xf32, #B>`

    The same tile in another layout (through shared memory when threads must exchange
    elements).  Chains of conversions are trimmed by `tileas-remove-layout-conversions`,
    not by a fold (seed 000)."""

    name = "nv_tileas.convert_layout"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())
    RULES: ClassVar[tuple[str, ...]] = (CONVERT_LAYOUT,)

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        s, r = self.src.type, self.result.type
        assert isinstance(s, TensorType) and isinstance(r, TensorType)
        if s.get_shape() != r.get_shape() or s.element_type != r.element_type:
            raise self.op_error("convert_layout changes only the layout")


@bare_tile_syntax
@irdl_op_definition
class ExpandDimsOp(TileASOp):
    """`%y = nv_tileas.expand_dims %x {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>`

    Inserts a unit dimension at `axis`."""

    name = "nv_tileas.expand_dims"
    src = operand_def()
    axis = prop_def(IntegerAttr[I32])
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())
    RULES: ClassVar[tuple[str, ...]] = (EXPAND_DIMS,)

    def __init__(self, src: SSAValue, axis: int, result_type: Attribute):
        super().__init__(
            operands=[src], result_types=[result_type], properties={"axis": IntegerAttr(axis, i32)}
        )

    def verify_(self) -> None:
        shape = list(shape_of(self.src.type))
        axis = self.axis.value.data
        if not 0 <= axis <= len(shape):
            raise self.op_error(f"axis {axis} is out of range for rank {len(shape)}")
        shape.insert(axis, 1)
        if list(shape_of(self.result.type)) != shape or element_type(
            self.result.type
        ) != element_type(self.src.type):
            raise self.op_error(
                f"result {self.result.type} must be the source with a unit dimension at {axis}"
            )


def _total_bits(t: Attribute) -> int | None:
    if isinstance(t, TiledViewType | AATiledViewType):
        dims, el = t.dims, t.element_type
    else:
        dims, el = shape_of(t), element_type(t)
    bits = mlir_bit_width(el)
    if any(d < 0 for d in dims) or not bits:
        return None
    n = bits
    for d in dims:
        n *= d
    return n


@bare_tile_syntax
@irdl_op_definition
class ReinterpretOp(TileASOp):
    """`%y = nv_tileas.reinterpret %x : tensor<64xf32> -> tensor<128xf16>`

    The same bits seen as another tile (or view) type."""

    name = "nv_tileas.reinterpret"
    src = operand_def()
    result = result_def()
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())
    RULES: ClassVar[tuple[str, ...]] = (REINTERPRET_BITS,)

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        s, r = self.src.type, self.result.type
        if (
            isinstance(s, TiledViewType)
            and isinstance(r, TiledViewType)
            and s.residency != r.residency
        ):
            raise self.op_error(
                f"reinterpret keeps a view's residency ({s.residency_kind.value} vs {r.residency_kind.value})"
            )
        a, b = _total_bits(s), _total_bits(r)
        if a is not None and b is not None and a != b:
            raise self.op_error(
                f"reinterpret must keep the bit size: {s} has {a} bits, {r} has {b}"
            )


@bare_tile_syntax
@irdl_op_definition
class ShuffleOp(TileASOp):
    """`%y = nv_tileas.shuffle %x {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>`

    Permutes the dimensions of a tile: result dimension `i` is source dimension
    `permutation[i]` (a transpose for rank 2)."""

    name = "nv_tileas.shuffle"
    src = operand_def()
    permutation = prop_def(DenseArrayBase)
    result = result_def()
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())
    RULES: ClassVar[tuple[str, ...]] = (SHUFFLE_PERMUTATION,)

    def __init__(self, src: SSAValue, permutation: Sequence[int], result_type: Attribute):
        super().__init__(
            operands=[src],
            result_types=[result_type],
            properties={"permutation": DenseArrayBase.from_list(i64, list(permutation))},
        )

    @property
    def perm(self) -> tuple[int, ...]:
        return int_array_values(self.permutation)

    def verify_(self) -> None:
        perm = list(self.perm)
        shape = shape_of(self.src.type)
        if sorted(perm) != list(range(len(shape))):
            raise self.op_error(
                f"permutation {perm} is not a permutation of the {len(shape)} dimensions"
            )
        want = [shape[p] for p in perm]
        if list(shape_of(self.result.type)) != want or element_type(
            self.result.type
        ) != element_type(self.src.type):
            raise self.op_error(f"result {self.result.type} must have the permuted shape {want}")


@bare_tile_syntax
@irdl_op_definition
class GenerateOp(TileASOp):
    """`%t = nv_tileas.generate : tensor<4x8xi32> { ^bb0(%i : index, %j : index): ... nv_tileas.yield %v : i32 }`

    A tile whose element at each coordinate is what the region yields for it."""

    name = "nv_tileas.generate"
    result = result_def()
    body = region_def("single_block")
    assembly_format = "attr-dict `:` type($result) $body"
    traits = traits_def(RecursiveMemoryEffect(), PureRegionOp())
    RULES: ClassVar[tuple[str, ...]] = (GENERATE_REGION,)

    def verify_(self) -> None:
        shape = shape_of(self.result.type)
        block = self.body.block
        if [a.type for a in block.args] != [IndexType()] * len(shape):
            raise self.op_error(f"region must take {len(shape)} index arguments, one per dimension")
        last = block.last_op
        yielded = [v.type for v in last.operands] if last is not None else []
        if yielded != [element_type(self.result.type)]:
            raise self.op_error(f"region must yield one {element_type(self.result.type)}")


LAYOUT_OPS: list[type[TileASOp]] = [
    ConvertLayoutOp,
    ViewOp,
    ExpandDimsOp,
    ReinterpretOp,
    ShuffleOp,
    GenerateOp,
]
