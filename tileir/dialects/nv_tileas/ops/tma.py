"""The TMA family: descriptors and async bulk tensor copies (seed 003 "TMA Op
Operand/Result Tables", seed 001 invariants 7-11).

`make_tiled_tma_desc` builds a descriptor from a global view and box sizes, as an op of
its own so that later passes have an SSA value for it (seed 001).  The async transfers
take the descriptor, a shared-memory operand and index coordinates:

| op | operands (segments) | result |
|---|---|---|
| make_global_view | ptr, extents, strides | `!nv_tileas.tiled_view<?x..xT, gmem, strides = [?, .., 1]>` |
| async.tiled_tma_load | desc, dst, coords, barrier | `!nv_tileas.async.token` (or `!async.value<T>`) |
| async.tiled_tma_store | desc, src, coords | `!nv_tileas.async.token` |
| async.gather_tma_load | desc, dst, coords, indices, barrier | as tiled_tma_load |
| async.scatter_tma_store | desc, src, coords, indices | `!nv_tileas.async.token` |

`make_global_view` is the whole global tensor a descriptor maps, from what cuTile passes
for an array (a pointer, extents, strides in elements, the innermost contiguous):
`tileas-tma-feeds` builds one for each operand it feeds by TMA.

Descriptors are `!nv_tileas.tma_desc` or, as in seed 003's worked example,
`!cute_nvgpu.tma_descriptor_tiled`.  The shared operand is an smem
`!nv_tileas.tiled_view`, an `!nv_tileaa.tiled_view` (a pipeline stage view, residency
not assigned yet), or, as in the worked example, a stage-buffer tile: an argument of a
producer region.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, IntegerType, TensorType
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType, TileType
from tileir.dialects.nv_tileaa.types import MemTokenType
from tileir.dialects.nv_tileaa.types import TiledViewType as AATiledViewType
from tileir.dialects.nv_tileas.attributes import (
    AtomAttr,
    AtomInfo,
    AtomKind,
    OobMode,
    OobModeAttr,
    Residency,
    SwizzleModeAttr,
)
from tileir.dialects.nv_tileas.foreign import AsyncValueType, TmaDescriptorTiledType
from tileir.dialects.nv_tileas.interfaces import MemoryConsistencyOp, ProducerOp
from tileir.dialects.nv_tileas.layouts import tma_incompatibility
from tileir.dialects.nv_tileas.ops.base import TileASOp, drop_segment_sizes, split_props
from tileir.dialects.nv_tileas.syntax import (
    bare_tile_syntax,
    parse_operand_list,
    parse_types,
    resolve,
)
from tileir.dialects.nv_tileas.types import DYNAMIC_DIM, AsyncTokenType, TiledViewType, TmaDescType
from tileir.dialects.nv_tileas.verifiers import (
    INDEX_COORDS,
    TMA_ATOM_KIND,
    TMA_BOX_RANK,
    TMA_ELEMENT_STRIDE,
    TMA_GATHER_INDICES,
    TMA_PADDING_FLOAT,
    TMA_RESIDENCY,
    TMA_RESULT,
    TMA_SCATTER_PADDING,
    TMA_SHARED_LAYOUT,
    check_index_operands,
    check_padding_value,
    fail,
    is_float,
)
from tileir.utils.bits import mlir_bit_width

DescConstraint = base(TmaDescType) | base(TmaDescriptorTiledType)
ResultConstraint = base(AsyncTokenType) | base(AsyncValueType)

PROPERTY_NAMES = ("atom", "padding_value", "swizzle_mode", "oob_mode")


def _atom_kind_name(kind: AtomKind) -> str:
    return "TMA load" if kind is AtomKind.TMA_LOAD else "TMA store"


# ---------------------------------------------------------------------------
# make_global_view.
# ---------------------------------------------------------------------------


@bare_tile_syntax
@irdl_op_definition
class MakeGlobalViewOp(TileASOp):
    """`%v = nv_tileas.make_global_view %ptr [%rows, %cols] strides [%row_stride] : !cuda_tile.ptr<bf16>, i32, i32, i64 -> !nv_tileas.tiled_view<?x?xbf16, gmem, strides = [?, 1]>`

    The global tensor at `ptr`: one extent per dimension (outermost first) and the
    element strides of every dimension but the innermost, whose elements are
    contiguous (stride 1).  Extents and strides are integer scalars; the view's
    dimensions and outer strides are dynamic (`?`)."""

    name = "nv_tileas.make_global_view"
    ptr = operand_def(PointerType)
    extents = var_operand_def(IntegerType)
    strides = var_operand_def(IntegerType)
    result = result_def(TiledViewType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, ptr: SSAValue, extents: Sequence[SSAValue], strides: Sequence[SSAValue]):
        pointee = ptr.type.pointee if isinstance(ptr.type, PointerType) else ptr.type
        rank = len(extents)
        dynamic = [DYNAMIC_DIM] * rank
        view = TiledViewType(dynamic, pointee, Residency.GMEM, [*dynamic[1:], 1])
        super().__init__(operands=[ptr, list(extents), list(strides)], result_types=[view])

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.ptr)
        printer.print_string(" [")
        printer.print_list(self.extents, printer.print_operand)
        printer.print_string("] strides [")
        printer.print_list(self.strides, printer.print_operand)
        printer.print_string("]")
        props = {k: v for k, v in self.properties.items() if k != "operandSegmentSizes"}
        printer.print_op_attributes(props | dict(self.attributes))
        printer.print_string(" : ")
        types = [self.ptr.type, *(v.type for v in self.extents), *(v.type for v in self.strides)]
        printer.print_list(types, printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> MakeGlobalViewOp:
        ptr = parser.parse_unresolved_operand()
        extents = parse_operand_list(parser, parser.Delimiter.SQUARE)
        parser.parse_keyword("strides")
        strides = parse_operand_list(parser, parser.Delimiter.SQUARE)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parse_types(parser)
        parser.parse_punctuation("->")
        result_t = parser.parse_type()
        if len(types) != 1 + len(extents) + len(strides):
            parser.raise_error(
                f"expected {1 + len(extents) + len(strides)} operand types, got {len(types)}"
            )
        drop_segment_sizes(parser, attrs, [1, len(extents), len(strides)])
        ptr_v, *rest = resolve(parser, [ptr, *extents, *strides], types)
        return cls.build(
            operands=[ptr_v, rest[: len(extents)], rest[len(extents) :]],
            result_types=[result_t],
            attributes=attrs,
        )

    def verify_(self) -> None:
        view = self.result.type
        assert isinstance(view, TiledViewType)
        ptr = self.ptr.type
        assert isinstance(ptr, PointerType)
        if view.residency_kind is not Residency.GMEM:
            raise self.op_error(f"the view must reside in gmem, not {view.residency_kind.value}")
        if view.element_type != ptr.pointee:
            raise self.op_error(
                f"the view's element type {view.element_type} is not the pointer's {ptr.pointee}"
            )
        rank = view.rank
        if len(self.extents) != rank:
            raise self.op_error(f"has {len(self.extents)} extents for a view of rank {rank}")
        if len(self.strides) != rank - 1:
            raise self.op_error(
                f"has {len(self.strides)} strides; a view of rank {rank} takes {rank - 1} "
                "(the innermost is 1)"
            )
        if any(d != DYNAMIC_DIM for d in view.dims):
            raise self.op_error("the view's extents must be dynamic (`?`): they are operands")
        if view.element_strides != (*[DYNAMIC_DIM] * (rank - 1), 1):
            raise self.op_error(
                f"the view's strides must be [{', '.join(['?'] * (rank - 1) + ['1'])}]"
            )


# ---------------------------------------------------------------------------
# make_tiled_tma_desc.
# ---------------------------------------------------------------------------


@bare_tile_syntax
@irdl_op_definition
class MakeTiledTmaDescOp(TileASOp):
    """`%d = nv_tileas.make_tiled_tma_desc %view box [%m, %n] {atom = #nv_tileas<atom tma_load_2d>, swizzle_mode = #nv_tileas<swizzle_mode 128B>, oob_mode = #nv_tileas<oob_mode zero>} : !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]> -> !nv_tileas.tma_desc`

    Encodes a TMA descriptor for the global view with the given box sizes (one per
    dimension of the atom's box); `swizzle_mode` is the shared-memory swizzle of the
    box, `oob_mode` what out-of-bounds elements read.  The descriptor's base alignment
    is a launch-time property (the ABI passes it as a 64-byte aligned grid constant)."""

    name = "nv_tileas.make_tiled_tma_desc"
    view = operand_def(TiledViewType)
    box = var_operand_def()
    atom = prop_def(AtomAttr)
    swizzle_mode = opt_prop_def(SwizzleModeAttr)
    oob_mode = opt_prop_def(OobModeAttr)
    result = result_def(TmaDescType)
    traits = traits_def(MemoryConsistencyOp())
    RULES: ClassVar[tuple[str, ...]] = (
        TMA_ATOM_KIND,
        TMA_BOX_RANK,
        TMA_ELEMENT_STRIDE,
        TMA_RESIDENCY,
        TMA_PADDING_FLOAT,
        INDEX_COORDS,
    )

    def __init__(
        self,
        view: SSAValue,
        box: Sequence[SSAValue],
        atom: AtomAttr,
        *,
        swizzle_mode: SwizzleModeAttr | None = None,
        oob_mode: OobModeAttr | None = None,
    ):
        props: dict[str, Attribute] = {"atom": atom}
        if swizzle_mode is not None:
            props["swizzle_mode"] = swizzle_mode
        if oob_mode is not None:
            props["oob_mode"] = oob_mode
        super().__init__(operands=[view, list(box)], result_types=[TmaDescType()], properties=props)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.view)
        printer.print_string(" box [")
        printer.print_list(self.box, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(dict(self.properties) | dict(self.attributes))
        printer.print_string(" : ")
        printer.print_attribute(self.view.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> MakeTiledTmaDescOp:
        view = parser.parse_unresolved_operand()
        parser.parse_keyword("box")
        box = parse_operand_list(parser, parser.Delimiter.SQUARE)
        props, rest = split_props(parser.parse_optional_attr_dict(), PROPERTY_NAMES)
        parser.parse_punctuation(":")
        view_t = parser.parse_type()
        parser.parse_punctuation("->")
        result_t = parser.parse_type()
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                [parser.resolve_operand(b, IndexType()) for b in box],
            ],
            result_types=[result_t],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        info = self.atom.info
        if not info.is_tma:
            raise self.op_error(
                f"needs a TMA load or store atom, got '{info.name}' ({info.kind.value})"
            )
        check_index_operands(self, self.box, "box sizes")
        view = self.view.type
        assert isinstance(view, TiledViewType)
        if len(self.box) != info.box_rank:
            raise self.op_error(
                f"has {len(self.box)} box sizes but atom '{info.name}' has box rank {info.box_rank}"
            )
        if view.rank != info.box_rank:
            raise self.op_error(
                f"global view of rank {view.rank} does not match the box rank {info.box_rank}"
            )
        if view.residency_kind is not Residency.GMEM:
            raise self.op_error(
                f"the descriptor's view must reside in gmem, not {view.residency_kind.value}"
            )
        strides = view.element_strides
        if strides and strides[-1] != 1:
            shown = "?" if strides[-1] < 0 else str(strides[-1])
            raise self.op_error(f"TMA needs an innermost element stride of 1, got {shown}")
        if (
            self.oob_mode is not None
            and self.oob_mode.data is OobMode.NAN
            and not is_float(view.element_type)
        ):
            raise self.op_error(
                f"oob_mode nan needs a floating-point element type, not {view.element_type}"
            )


# ---------------------------------------------------------------------------
# The async transfers.
# ---------------------------------------------------------------------------


def _shared_shape(t: Attribute) -> tuple[tuple[int, ...], Attribute]:
    if isinstance(t, TiledViewType | AATiledViewType):
        return t.dims, t.element_type
    return shape_of(t), element_type(t)


class TmaTransferOp(TileASOp):
    """Shared verification of the four async TMA transfers."""

    #: TMA_LOAD or TMA_STORE.
    KIND: ClassVar[AtomKind] = AtomKind.TMA_LOAD
    #: "tile" for contiguous boxes, "gather4"/"scatter4" for the discontiguous forms.
    MODE: ClassVar[str] = "tile"
    #: Whether `padding_value` is accepted.
    PADDING: ClassVar[bool] = False

    def descriptor(self) -> SSAValue:
        return self.operands[0]

    def shared(self) -> SSAValue:
        return self.operands[1]

    def coordinates(self) -> Sequence[SSAValue]:
        raise NotImplementedError

    def check_transfer(self) -> AtomInfo:
        atom = self.properties["atom"]
        assert isinstance(atom, AtomAttr)
        info = atom.info
        want = _atom_kind_name(self.KIND)
        if info.kind is not self.KIND or info.tma_mode != self.MODE:
            raise self.op_error(
                f"needs a {want} atom in {self.MODE} mode, got '{info.name}' ({info.kind.value}, {info.tma_mode} mode)"
            )
        desc = self.descriptor().owner
        if isinstance(desc, MakeTiledTmaDescOp):
            desc_info = desc.atom.info
            if desc_info.kind is not self.KIND:
                raise self.op_error(
                    f"uses a descriptor built for {_atom_kind_name(desc_info.kind)} ('{desc_info.name}'), "
                    f"not {want}"
                )
            if len(desc.box) != info.box_rank:
                raise self.op_error(
                    f"descriptor box rank {len(desc.box)} does not match the box rank {info.box_rank} of '{info.name}'"
                )
        coords = self.coordinates()
        check_index_operands(self, coords, "coordinates")
        if len(coords) != info.box_rank:
            raise self.op_error(
                f"has {len(coords)} coordinates but atom '{info.name}' has box rank {info.box_rank}"
            )
        shared = self.shared()
        shape, element = _shared_shape(shared.type)
        if len(shape) != info.box_rank:
            raise self.op_error(
                f"shared tile of rank {len(shape)} does not match the box rank {info.box_rank}"
            )
        self.check_shared_residency(shared)
        layout = shared.type.layout_attr if isinstance(shared.type, TiledViewType) else None
        reason = tma_incompatibility(layout, shape, mlir_bit_width(element) or 0)
        if reason is not None:
            raise self.op_error(f"shared tile {shared.type} is not TMA-compatible: {reason}")
        pad = self.properties.get("padding_value")
        if pad is None:
            pad = self.attributes.get("padding_value")
        if pad is not None:
            if not self.PADDING:
                raise self.op_error("does not accept padding_value")
            if not is_float(element):
                raise self.op_error(
                    f"padding_value needs a floating-point element type, not {element}"
                )
            check_padding_value(self, pad, element)
        return info

    def check_shared_residency(self, shared: SSAValue) -> None:
        t = shared.type
        if isinstance(t, TiledViewType):
            if t.residency_kind is not Residency.SMEM:
                raise self.op_error(
                    f"the shared operand must reside in smem, not {t.residency_kind.value}"
                )
            return
        if isinstance(t, AATiledViewType):
            return
        stage_buffer = isinstance(shared, BlockArgument) and any(
            parent.has_trait(ProducerOp) for parent in _ancestors(shared.block.parent_op())
        )
        if not isinstance(t, TileType | TensorType) or not stage_buffer:
            raise self.op_error(
                f"the shared operand must be an smem tiled_view or a stage-buffer tile (a producer region "
                f"argument), got {t}"
            )

    def check_result(self, result: SSAValue) -> None:
        """TMA_RESULT."""
        t = result.type
        if isinstance(t, AsyncValueType):
            shape, element = _shared_shape(self.shared().type)
            inner = t.value_type
            if shape_of(inner) != shape or element_type(inner) != element:
                raise self.op_error(
                    f"result {t} must be a future of the destination's tile ({self.shared().type})"
                )


def _ancestors(op: Operation | None):
    while op is not None:
        yield op
        op = op.parent_op()


def _parse_transfer(
    parser: Parser, *, indices: bool, barrier: bool
) -> tuple[list[UnresolvedOperand], list[UnresolvedOperand], dict[str, Attribute]]:
    """`%desc, %shared[%c...] [, %indices] [, %barrier] {attrs}`: (fixed operands, coords,
    attributes)."""
    desc = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    shared = parser.parse_unresolved_operand()
    coords = parse_operand_list(parser, parser.Delimiter.SQUARE)
    fixed = [desc, shared]
    for present in (indices, barrier):
        if present:
            parser.parse_punctuation(",")
            fixed.append(parser.parse_unresolved_operand())
    return fixed, coords, parser.parse_optional_attr_dict()


def _print_transfer(
    printer: Printer, op: Operation, coords: Sequence[SSAValue], extra: Sequence[SSAValue]
) -> None:
    printer.print_string(" ")
    printer.print_operand(op.operands[0])
    printer.print_string(", ")
    printer.print_operand(op.operands[1])
    printer.print_string("[")
    printer.print_list(coords, printer.print_operand)
    printer.print_string("]")
    for v in extra:
        printer.print_string(", ")
        printer.print_operand(v)
    props = {k: v for k, v in op.properties.items() if k != "operandSegmentSizes"}
    printer.print_op_attributes(props | dict(op.attributes))
    printer.print_string(" : ")
    types = [
        op.operands[0].type,
        op.operands[1].type,
        *(c.type for c in coords),
        *(v.type for v in extra),
    ]
    printer.print_list(types, printer.print_attribute)
    printer.print_string(" -> ")
    printer.print_attribute(op.results[0].type)


def _build_transfer(
    cls: type[TmaTransferOp], parser: Parser, *, indices: bool, barrier: bool
) -> TmaTransferOp:
    fixed, coords, attrs = _parse_transfer(parser, indices=indices, barrier=barrier)
    parser.parse_punctuation(":")
    types = parse_types(parser)
    parser.parse_punctuation("->")
    result_t = parser.parse_type()
    n_extra = len(fixed) - 2
    if len(types) != 2 + len(coords) + n_extra:
        parser.raise_error(f"expected {2 + len(coords) + n_extra} operand types, got {len(types)}")
    desc_v, shared_v = resolve(parser, fixed[:2], types[:2])
    coord_v = resolve(parser, coords, types[2 : 2 + len(coords)])
    extra_v = resolve(parser, fixed[2:], types[2 + len(coords) :])
    props, rest = split_props(attrs, PROPERTY_NAMES)
    if not cls.PADDING and "padding_value" in props:
        # Not a property of this op: kept as an attribute so the verifier can reject it.
        rest["padding_value"] = props.pop("padding_value")
    sizes = [1, 1, len(coords), *([1] * n_extra)]
    drop_segment_sizes(parser, rest, sizes)
    return cls.build(
        operands=[desc_v, shared_v, coord_v, *extra_v],
        result_types=[result_t],
        properties=props,
        attributes=rest,
    )


@bare_tile_syntax
@irdl_op_definition
class AsyncTiledTmaLoadOp(TmaTransferOp):
    """`%t = nv_tileas.async.tiled_tma_load %desc, %dst[%x, %y], %barrier {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<128x64xf16, smem>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token`

    Starts a bulk tensor copy of the box at the coordinates into shared memory; the
    barrier (an mbarrier, as a memory token) completes when the bytes arrived.
    `padding_value` (floating point only) fills out-of-bounds elements."""

    name = "nv_tileas.async.tiled_tma_load"
    desc = operand_def(DescConstraint)
    dst = operand_def()
    coords = var_operand_def()
    barrier = operand_def(MemTokenType)
    atom = prop_def(AtomAttr)
    padding_value = opt_prop_def(Attribute)
    result = result_def(ResultConstraint)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), MemoryConsistencyOp())
    KIND: ClassVar[AtomKind] = AtomKind.TMA_LOAD
    PADDING: ClassVar[bool] = True
    RULES: ClassVar[tuple[str, ...]] = (
        TMA_ATOM_KIND,
        TMA_BOX_RANK,
        TMA_SHARED_LAYOUT,
        TMA_RESIDENCY,
        TMA_PADDING_FLOAT,
        TMA_RESULT,
        INDEX_COORDS,
    )

    def coordinates(self) -> Sequence[SSAValue]:
        return self.coords

    def print(self, printer: Printer) -> None:
        _print_transfer(printer, self, self.coords, [self.barrier])

    @classmethod
    def parse(cls, parser: Parser) -> AsyncTiledTmaLoadOp:
        op = _build_transfer(cls, parser, indices=False, barrier=True)
        assert isinstance(op, AsyncTiledTmaLoadOp)
        return op

    def verify_(self) -> None:
        self.check_transfer()
        self.check_result(self.result)


@bare_tile_syntax
@irdl_op_definition
class AsyncTiledTmaStoreOp(TmaTransferOp):
    """`%t = nv_tileas.async.tiled_tma_store %desc, %src[%x, %y] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<128x64xf16, smem>, index, index -> !nv_tileas.async.token`

    Starts a bulk tensor copy of the shared tile to the box at the coordinates."""

    name = "nv_tileas.async.tiled_tma_store"
    desc = operand_def(DescConstraint)
    src = operand_def()
    coords = var_operand_def()
    atom = prop_def(AtomAttr)
    result = result_def(AsyncTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), MemoryConsistencyOp())
    KIND: ClassVar[AtomKind] = AtomKind.TMA_STORE
    RULES: ClassVar[tuple[str, ...]] = (
        TMA_ATOM_KIND,
        TMA_BOX_RANK,
        TMA_SHARED_LAYOUT,
        TMA_RESIDENCY,
        TMA_SCATTER_PADDING,
        INDEX_COORDS,
    )

    def coordinates(self) -> Sequence[SSAValue]:
        return self.coords

    def print(self, printer: Printer) -> None:
        _print_transfer(printer, self, self.coords, [])

    @classmethod
    def parse(cls, parser: Parser) -> AsyncTiledTmaStoreOp:
        op = _build_transfer(cls, parser, indices=False, barrier=False)
        assert isinstance(op, AsyncTiledTmaStoreOp)
        return op

    def verify_(self) -> None:
        self.check_transfer()


def _check_indices(op: TmaTransferOp, indices: SSAValue) -> None:
    """TMA_GATHER_INDICES: one integer index per row of the shared tile."""
    shape, _ = _shared_shape(op.shared().type)
    idx_shape = shape_of(indices.type)
    if not isinstance(element_type(indices.type), IntegerType) or len(idx_shape) != 1:
        raise fail(op, f"indices must be a 1-D integer tile, got {indices.type}")
    if shape and idx_shape[0] != shape[0]:
        raise fail(op, f"indices hold {idx_shape[0]} rows but the shared tile has {shape[0]}")


@bare_tile_syntax
@irdl_op_definition
class AsyncGatherTmaLoadOp(TmaTransferOp):
    """`%t = nv_tileas.async.gather_tma_load %desc, %dst[%x, %y], %rows, %barrier {atom = #nv_tileas<atom tma_gather4_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<4x64xf16, smem>, index, index, tensor<4xi32>, !nv_tileaa.mem_token -> !nv_tileas.async.token`

    Discontiguous TMA load: row `i` of the shared tile comes from global row
    `rows[i] + y`, columns from `x` (tile::gather4).  Accepts `padding_value`."""

    name = "nv_tileas.async.gather_tma_load"
    desc = operand_def(DescConstraint)
    dst = operand_def()
    coords = var_operand_def()
    indices = operand_def()
    barrier = operand_def(MemTokenType)
    atom = prop_def(AtomAttr)
    padding_value = opt_prop_def(Attribute)
    result = result_def(ResultConstraint)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), MemoryConsistencyOp())
    KIND: ClassVar[AtomKind] = AtomKind.TMA_LOAD
    MODE: ClassVar[str] = "gather4"
    PADDING: ClassVar[bool] = True
    RULES: ClassVar[tuple[str, ...]] = (
        TMA_ATOM_KIND,
        TMA_BOX_RANK,
        TMA_SHARED_LAYOUT,
        TMA_RESIDENCY,
        TMA_PADDING_FLOAT,
        TMA_SCATTER_PADDING,
        TMA_GATHER_INDICES,
        TMA_RESULT,
        INDEX_COORDS,
    )

    def coordinates(self) -> Sequence[SSAValue]:
        return self.coords

    def print(self, printer: Printer) -> None:
        _print_transfer(printer, self, self.coords, [self.indices, self.barrier])

    @classmethod
    def parse(cls, parser: Parser) -> AsyncGatherTmaLoadOp:
        op = _build_transfer(cls, parser, indices=True, barrier=True)
        assert isinstance(op, AsyncGatherTmaLoadOp)
        return op

    def verify_(self) -> None:
        self.check_transfer()
        _check_indices(self, self.indices)
        self.check_result(self.result)


@bare_tile_syntax
@irdl_op_definition
class AsyncScatterTmaStoreOp(TmaTransferOp):
    """`%t = nv_tileas.async.scatter_tma_store %desc, %src[%x, %y], %rows {atom = #nv_tileas<atom tma_scatter4_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<4x64xf16, smem>, index, index, tensor<4xi32> -> !nv_tileas.async.token`

    Discontiguous TMA store: row `i` of the shared tile goes to global row
    `rows[i] + y` (tile::scatter4).  Rejects `padding_value`."""

    name = "nv_tileas.async.scatter_tma_store"
    desc = operand_def(DescConstraint)
    src = operand_def()
    coords = var_operand_def()
    indices = operand_def()
    atom = prop_def(AtomAttr)
    result = result_def(AsyncTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), MemoryConsistencyOp())
    KIND: ClassVar[AtomKind] = AtomKind.TMA_STORE
    MODE: ClassVar[str] = "scatter4"
    RULES: ClassVar[tuple[str, ...]] = (
        TMA_ATOM_KIND,
        TMA_BOX_RANK,
        TMA_SHARED_LAYOUT,
        TMA_RESIDENCY,
        TMA_SCATTER_PADDING,
        TMA_GATHER_INDICES,
        INDEX_COORDS,
    )

    def coordinates(self) -> Sequence[SSAValue]:
        return self.coords

    def print(self, printer: Printer) -> None:
        _print_transfer(printer, self, self.coords, [self.indices])

    @classmethod
    def parse(cls, parser: Parser) -> AsyncScatterTmaStoreOp:
        op = _build_transfer(cls, parser, indices=True, barrier=False)
        assert isinstance(op, AsyncScatterTmaStoreOp)
        return op

    def verify_(self) -> None:
        self.check_transfer()
        _check_indices(self, self.indices)


TMA_OPS: list[type[TileASOp]] = [
    MakeGlobalViewOp,
    MakeTiledTmaDescOp,
    AsyncTiledTmaLoadOp,
    AsyncTiledTmaStoreOp,
    AsyncGatherTmaLoadOp,
    AsyncScatterTmaStoreOp,
]
