"""Ops of nv_tileas (seed 003).  This module holds the tiled memory and layout
families; tiled loads and stores carry the hardware `atom` chosen for them, and
every tile-valued SSA value carries a layout in its tensor type's encoding once
`tileas-assign-layouts` has run."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    IntegerType,
    TensorType,
    i1,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    opt_result_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa.types import MemTokenType
from tileir.dialects.nv_tileas.attributes import (
    AtomAttr,
    AtomKind,
    MemScopeAttr,
    MemSemantic,
    MemSemanticAttr,
    Residency,
)
from tileir.dialects.nv_tileas.types import TiledViewType


class TileASOp(IRDLOperation):
    def op_error(self, message: str) -> VerifyException:
        return VerifyException(f"'{self.name}' op {message}")


@irdl_op_definition
class ViewOp(TileASOp):
    """`%src[%i, ...] : S -> !nv_tileas.tiled_view<...>`: a tiled view of storage.

    With a tensor of global pointers as source, the view addresses one element per
    pointer (the form pointer-based nv_tileaa memory ops lower to)."""

    name = "nv_tileas.view"
    src = operand_def()
    indices = var_operand_def()
    result = result_def(TiledViewType)
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: TiledViewType, indices: Sequence[SSAValue] = ()):
        super().__init__(operands=[src, list(indices)], result_types=[result_type])

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
        if parser.parse_optional_punctuation("["):
            indices = [parser.parse_unresolved_operand()]
            while parser.parse_optional_punctuation(","):
                indices.append(parser.parse_unresolved_operand())
            parser.parse_punctuation("]")
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
        assert isinstance(t, TiledViewType)
        el = element_type(self.src.type)
        if isinstance(el, PointerType):
            if t.residency.data is not Residency.GMEM:
                raise self.op_error("a view of global pointers must reside in gmem")
            if shape_of(self.src.type) != t.dims or el.pointee != t.element_type:
                raise self.op_error(f"view type {t} does not match the pointers {self.src.type}")


class TiledMemoryOp(TileASOp):
    """Shared pieces of tiled_load and tiled_store (seed 003 tables)."""

    def view_type(self) -> TiledViewType:
        t = self.operands[0].type
        assert isinstance(t, TiledViewType)
        return t

    def semantic(self) -> MemSemantic:
        s = self.properties.get("mem_semantic")
        return s.data if isinstance(s, MemSemanticAttr) else MemSemantic.WEAK

    def check_common(
        self,
        coords: Sequence[SSAValue],
        tile: Attribute,
        allowed: Sequence[MemSemantic],
        kind: str,
    ) -> None:
        view = self.view_type()
        if len(coords) != len(view.dims):
            raise self.op_error(
                f"expected {len(view.dims)} coordinates (the view's rank), got {len(coords)}"
            )
        for c in coords:
            if not isinstance(c.type, IndexType):
                raise self.op_error(f"coordinates must be of index type, got {c.type}")
        shape = shape_of(tile)
        if any(d <= 0 or d & (d - 1) for d in shape):
            raise self.op_error(f"tile dimensions must be powers of two, got {list(shape)}")
        atom = self.properties.get("atom")
        if not isinstance(atom, AtomAttr):
            raise self.op_error("requires an 'atom' attribute")
        info = atom.info
        if info.kind is AtomKind.COPY and info.direction != kind:
            raise self.op_error(f"atom '{atom.data}' is not a {kind} atom")
        sem = self.semantic()
        if sem not in allowed:
            raise self.op_error(f"{self.name.split('.')[-1]} rejects {sem.value} semantic")
        has_scope = "mem_scope" in self.properties
        if sem is MemSemantic.WEAK and has_scope:
            raise self.op_error("mem_scope must not be set with weak semantic")
        if sem is not MemSemantic.WEAK and not has_scope:
            raise self.op_error(f"mem_scope is required with {sem.value} semantic")
        if "padding_value" in self.properties:
            in_bounds = self.properties.get("in_bounds")
            if isinstance(in_bounds, DenseArrayBase) and all(in_bounds.get_values()):
                raise self.op_error("padding_value is only allowed with in_bounds = false")
        if self.mask is not None and shape_of(self.mask.type) != shape:  # pyright: ignore[reportAttributeAccessIssue]
            raise self.op_error("mask shape must equal the tile shape")


def _print_access(printer: Printer, view: SSAValue, coords: Sequence[SSAValue]) -> None:
    printer.print_operand(view)
    printer.print_string("[")
    printer.print_list(coords, printer.print_operand)
    printer.print_string("]")


def _print_optional_operands(printer: Printer, op: IRDLOperation) -> None:
    offsets = op.offsets  # pyright: ignore[reportAttributeAccessIssue]
    if offsets:
        printer.print_string(" offsets [")
        printer.print_list(offsets, printer.print_operand)
        printer.print_string("]")
    if op.mask is not None:  # pyright: ignore[reportAttributeAccessIssue]
        printer.print_string(" mask ")
        printer.print_operand(op.mask)  # pyright: ignore[reportAttributeAccessIssue]
    if op.token is not None:  # pyright: ignore[reportAttributeAccessIssue]
        printer.print_string(" token ")
        printer.print_operand(op.token)  # pyright: ignore[reportAttributeAccessIssue]
    props = {k: v for k, v in op.properties.items() if k != "operandSegmentSizes"}
    printer.print_op_attributes({**props, **op.attributes})


def _parse_optional_operands(parser: Parser) -> tuple[list, object, object, dict[str, Attribute]]:
    offsets = []
    if parser.parse_optional_keyword("offsets") is not None:
        parser.parse_punctuation("[")
        offsets = [parser.parse_unresolved_operand()]
        while parser.parse_optional_punctuation(","):
            offsets.append(parser.parse_unresolved_operand())
        parser.parse_punctuation("]")
    mask = None
    if parser.parse_optional_keyword("mask") is not None:
        mask = parser.parse_unresolved_operand()
    token = None
    if parser.parse_optional_keyword("token") is not None:
        token = parser.parse_unresolved_operand()
    attrs = parser.parse_optional_attr_dict()
    return offsets, mask, token, attrs


PROPERTY_NAMES = ("atom", "mem_semantic", "mem_scope", "in_bounds", "padding_value")


def _split_props(attrs: dict[str, Attribute]) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    props = {k: v for k, v in attrs.items() if k in PROPERTY_NAMES}
    rest = {k: v for k, v in attrs.items() if k not in PROPERTY_NAMES}
    return props, rest


@irdl_op_definition
class TiledLoadOp(TiledMemoryOp):
    """`%view[%coords] [offsets [...]] [mask %m] [token %t] {atom = ...}`.

    Loads a tile through a view with the given atom.  Masked-off elements read
    `padding_value` (zero when absent); a token orders the load after earlier memory
    effects and a token result is produced when one was given."""

    name = "nv_tileas.tiled_load"
    view = operand_def(TiledViewType)
    coords = var_operand_def(IndexType)
    offsets = var_operand_def(IndexType)
    token = opt_operand_def(MemTokenType)
    mask = opt_operand_def()
    atom = prop_def(AtomAttr)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    in_bounds = opt_prop_def(DenseArrayBase)
    padding_value = opt_prop_def(Attribute)
    result = result_def()
    result_token = opt_result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.view, self.coords)
        _print_optional_operands(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.view.type)
        if self.mask is not None:
            printer.print_string(", ")
            printer.print_attribute(self.mask.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> TiledLoadOp:
        view = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        coords = [parser.parse_unresolved_operand()]
        while parser.parse_optional_punctuation(","):
            coords.append(parser.parse_unresolved_operand())
        parser.parse_punctuation("]")
        offsets, mask, token, attrs = _parse_optional_operands(parser)
        parser.parse_punctuation(":")
        view_t = parser.parse_type()
        mask_t = None
        if mask is not None:
            parser.parse_punctuation(",")
            mask_t = parser.parse_type()
        parser.parse_punctuation("->")
        result_t = parser.parse_type()
        props, rest = _split_props(attrs)
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                [parser.resolve_operand(c, IndexType()) for c in coords],
                [parser.resolve_operand(o, IndexType()) for o in offsets],
                [] if token is None else [parser.resolve_operand(token, MemTokenType())],  # pyright: ignore[reportArgumentType]
                [] if mask is None else [parser.resolve_operand(mask, mask_t)],  # pyright: ignore[reportArgumentType]
            ],
            result_types=[result_t, [MemTokenType()] if token is not None else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_common(
            self.coords,
            self.result.type,
            (MemSemantic.WEAK, MemSemantic.RELAXED, MemSemantic.ACQUIRE),
            "load",
        )
        if element_type(self.result.type) != self.view_type().element_type:
            raise self.op_error("result element type must equal the view's element type")
        if (self.token is None) != (self.result_token is None):
            raise self.op_error("a token result is produced exactly when a token is given")


@irdl_op_definition
class TiledStoreOp(TiledMemoryOp):
    """`%value, %view[%coords] [mask %m] [token %t] {atom = ...}`: stores a tile
    through a view; masked-off elements are not written."""

    name = "nv_tileas.tiled_store"
    view = operand_def(TiledViewType)
    value = operand_def()
    coords = var_operand_def(IndexType)
    offsets = var_operand_def(IndexType)
    token = opt_operand_def(MemTokenType)
    mask = opt_operand_def()
    atom = prop_def(AtomAttr)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    in_bounds = opt_prop_def(DenseArrayBase)
    padding_value = opt_prop_def(Attribute)
    result_token = opt_result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_access(printer, self.view, self.coords)
        _print_optional_operands(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_attribute(self.view.type)
        if self.mask is not None:
            printer.print_string(", ")
            printer.print_attribute(self.mask.type)

    @classmethod
    def parse(cls, parser: Parser) -> TiledStoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        coords = [parser.parse_unresolved_operand()]
        while parser.parse_optional_punctuation(","):
            coords.append(parser.parse_unresolved_operand())
        parser.parse_punctuation("]")
        offsets, mask, token, attrs = _parse_optional_operands(parser)
        parser.parse_punctuation(":")
        value_t = parser.parse_type()
        parser.parse_punctuation(",")
        view_t = parser.parse_type()
        mask_t = None
        if mask is not None:
            parser.parse_punctuation(",")
            mask_t = parser.parse_type()
        props, rest = _split_props(attrs)
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                parser.resolve_operand(value, value_t),
                [parser.resolve_operand(c, IndexType()) for c in coords],
                [parser.resolve_operand(o, IndexType()) for o in offsets],
                [] if token is None else [parser.resolve_operand(token, MemTokenType())],  # pyright: ignore[reportArgumentType]
                [] if mask is None else [parser.resolve_operand(mask, mask_t)],  # pyright: ignore[reportArgumentType]
            ],
            result_types=[[MemTokenType()] if token is not None else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_common(
            self.coords,
            self.value.type,
            (MemSemantic.WEAK, MemSemantic.RELAXED, MemSemantic.RELEASE),
            "store",
        )
        if element_type(self.value.type) != self.view_type().element_type:
            raise self.op_error("value element type must equal the view's element type")
        if (self.token is None) != (self.result_token is None):
            raise self.op_error("a token result is produced exactly when a token is given")


@irdl_op_definition
class ConvertLayoutOp(TileASOp):
    """`%src : tensor<..., #A> -> tensor<..., #B>`: the same tile in another layout
    (through shared memory when threads must exchange elements)."""

    name = "nv_tileas.convert_layout"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        s, r = self.src.type, self.result.type
        assert isinstance(s, TensorType) and isinstance(r, TensorType)
        if s.get_shape() != r.get_shape() or s.element_type != r.element_type:
            raise self.op_error("convert_layout changes only the layout")


def bool_array(values: Sequence[bool]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i1, [1 if v else 0 for v in values])


OPS = [ViewOp, TiledLoadOp, TiledStoreOp, ConvertLayoutOp]

_ = IntegerType
