"""The tiled memory family (seed 003 "Tiled Memop Operand/Result Tables").

Tiled ops address a `tiled_view` (nv_tileas, with residency; or nv_tileaa, residency
not assigned yet) at per-dimension index coordinates and move one tile with a hardware
`atom`; pointer ops (`load`, `store` and their async forms) address a tile of global
pointers; `atomic_rmw` / `atomic_cas` (tileir's additions: seed 003's only atomic,
`tiled_atomic_rmw`, addresses a view at coordinates and takes no mask, while cuda_tile's
atomics update a masked tile of arbitrary pointers) read-modify-write through a tile of
pointers; `gather_load` / `scatter_store` address a view through a tile of element
offsets; `copy` / `async.copy` move a whole view into another.

Operand segments (`operandSegmentSizes`, elided in the custom form, accepted when given):

| op | segments |
|---|---|
| tiled_load, async.tiled_load | view, coords, offsets, token, mask |
| tiled_store | view, value, coords, offsets, token, mask |
| tiled_atomic_rmw | view, value, coords, token |
| atomic_rmw (tileir's) | pointers, value, mask, token |
| atomic_cas (tileir's) | pointers, compare, value, mask, token |
| load, async.load | pointers, mask, token |
| store, async.store | pointers, value, mask, token |
| gather_load | view, offsets, mask, token |
| scatter_store | view, value, offsets, mask, token |
| copy, async.copy | source, destination, token |

Tokens are `!nv_tileaa.mem_token` (synchronous ordering edges) or
`!nv_tileas.async.token`; a token result mirrors the token operand.  In the custom form
a token's type is printed after the other types only when it is not a mem_token.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, cast

from xdsl.dialects.builtin import DenseArrayBase, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    base,
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
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa.types import MemTokenType
from tileir.dialects.nv_tileaa.types import TiledViewType as AATiledViewType
from tileir.dialects.nv_tileas.attributes import (
    AtomAttr,
    MemScopeAttr,
    MemSemantic,
    MemSemanticAttr,
    RmwMode,
    RmwModeAttr,
)
from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.interfaces import MemoryConsistencyOp
from tileir.dialects.nv_tileas.ops.base import TileASOp, drop_segment_sizes, split_props
from tileir.dialects.nv_tileas.syntax import (
    bare_tile_syntax,
    parse_operand_list,
    parse_types,
    resolve_index,
)
from tileir.dialects.nv_tileas.types import AsyncTokenType, TiledViewType
from tileir.dialects.nv_tileas.verifiers import (
    ATOM_BOX,
    ATOMIC_8BIT,
    ATOMIC_16BIT_FLOAT,
    ATOMIC_16BIT_INT,
    ATOMIC_MODE_TYPE,
    ELEMENT_TYPE_MATCH,
    GATHER_OFFSETS,
    INDEX_COORDS,
    MEMOP_ATOM_KIND,
    MEMOP_SEMANTICS,
    MEMORY_SPACE_PAIR,
    OPERAND_SEGMENTS,
    ORDERED_PLACEMENT,
    PADDING_IN_BOUNDS,
    PADDING_TYPE,
    POW2_TILE,
    SCOPE_IFF_ORDERED,
    TOKEN_RESULT,
    check_atom_box,
    check_index_operands,
    check_memop_atom,
    check_ordered_placement,
    check_padding,
    check_padding_value,
    check_pow2_tile,
    check_semantics,
    check_view_memory,
    is_float,
    semantic_of,
    view_dims,
    view_element,
)
from tileir.utils.bits import mlir_bit_width

ViewConstraint = base(TiledViewType) | base(AATiledViewType)
TokenConstraint = base(MemTokenType) | base(AsyncTokenType)

LOAD_SEMANTICS = (MemSemantic.WEAK, MemSemantic.RELAXED, MemSemantic.ACQUIRE)
STORE_SEMANTICS = (MemSemantic.WEAK, MemSemantic.RELAXED, MemSemantic.RELEASE)
ALL_SEMANTICS = tuple(MemSemantic)

#: Properties of the memory ops (anything else in the dictionary is an attribute).
PROPERTY_NAMES = ("atom", "mem_semantic", "mem_scope", "in_bounds", "padding_value", "rmw_mode")


# ---------------------------------------------------------------------------
# Custom syntax pieces.
# ---------------------------------------------------------------------------


@dataclass
class AccessTail:
    """`[offsets [...]] [mask %m] [token %t] {attrs}`."""

    offsets: list[UnresolvedOperand]
    mask: UnresolvedOperand | None
    token: UnresolvedOperand | None
    attrs: dict[str, Attribute]


def parse_tail(parser: Parser, *, offsets: bool = False) -> AccessTail:
    offs: list[UnresolvedOperand] = []
    if offsets and parser.parse_optional_keyword("offsets") is not None:
        offs = parse_operand_list(parser, parser.Delimiter.SQUARE)
    mask = parser.parse_unresolved_operand() if parser.parse_optional_keyword("mask") else None
    token = parser.parse_unresolved_operand() if parser.parse_optional_keyword("token") else None
    return AccessTail(offs, mask, token, parser.parse_optional_attr_dict())


def print_tail(
    printer: Printer, op: Operation, offsets: Sequence[SSAValue] = (), hidden: Sequence[str] = ()
) -> None:
    if offsets:
        printer.print_string(" offsets [")
        printer.print_list(offsets, printer.print_operand)
        printer.print_string("]")
    mask: SSAValue | None = getattr(op, "mask", None)
    token: SSAValue | None = getattr(op, "token", None)
    if mask is not None:
        printer.print_string(" mask ")
        printer.print_operand(mask)
    if token is not None:
        printer.print_string(" token ")
        printer.print_operand(token)
    props = {
        k: v for k, v in op.properties.items() if k != "operandSegmentSizes" and k not in hidden
    }
    printer.print_op_attributes({**props, **op.attributes})


def parse_signature(
    parser: Parser, fixed: int, tail: AccessTail, *, result: bool
) -> tuple[list[Attribute], Attribute | None, Attribute, Attribute | None]:
    """`: T0, ..., [mask type], [token type] [-> R]`: (fixed types, mask type, token type,
    result type).  The token type defaults to `!nv_tileaa.mem_token`."""
    parser.parse_punctuation(":")
    types = parse_types(parser)
    expected = fixed + (tail.mask is not None)
    token_type: Attribute = MemTokenType()
    if tail.token is not None and len(types) == expected + 1:
        token_type = types.pop()
    if len(types) != expected:
        parser.raise_error(f"expected {expected} types before the result, got {len(types)}")
    mask_type = types.pop() if tail.mask is not None else None
    result_type = parser.parse_type() if result and parser.parse_punctuation("->") else None
    return types, mask_type, token_type, result_type


def print_signature(
    printer: Printer, op: Operation, fixed: Sequence[Attribute], result: Attribute | None
) -> None:
    types = list(fixed)
    mask: SSAValue | None = getattr(op, "mask", None)
    token: SSAValue | None = getattr(op, "token", None)
    if mask is not None:
        types.append(mask.type)
    if token is not None and not isinstance(token.type, MemTokenType):
        types.append(token.type)
    printer.print_string(" : ")
    printer.print_list(types, printer.print_attribute)
    if result is not None:
        printer.print_string(" -> ")
        printer.print_attribute(result)


def _opt(parser: Parser, value: UnresolvedOperand | None, t: Attribute | None) -> list[SSAValue]:
    return [] if value is None or t is None else [parser.resolve_operand(value, t)]


def _mask_and_token(
    parser: Parser,
    tail: AccessTail,
    rest: dict[str, Attribute],
    types: tuple[Attribute | None, Attribute | None],
    fixed: int,
) -> tuple[list[SSAValue], list[SSAValue]]:
    """The optional mask and token of an access after its `fixed` single operands,
    resolved, with the generic form's `operandSegmentSizes` checked and dropped from
    `rest`."""
    mask = _opt(parser, tail.mask, types[0])
    token = _opt(parser, tail.token, types[1])
    drop_segment_sizes(parser, rest, [1] * fixed + [len(mask), len(token)])
    return mask, token


def _index_list(parser: Parser) -> list[UnresolvedOperand]:
    return parse_operand_list(parser, parser.Delimiter.SQUARE)


def _print_access(printer: Printer, view: SSAValue, coords: Sequence[SSAValue]) -> None:
    printer.print_operand(view)
    printer.print_string("[")
    printer.print_list(coords, printer.print_operand)
    printer.print_string("]")


# ---------------------------------------------------------------------------
# Shared verification.
# ---------------------------------------------------------------------------


class MemoryAccessOp(TileASOp):
    """Memory ops: semantics, scope, padding and token rules."""

    def semantic(self) -> MemSemantic:
        return semantic_of(self)

    def check_token_result(self) -> None:
        """TOKEN_RESULT."""
        token: SSAValue | None = getattr(self, "token", None)
        result: SSAValue | None = getattr(self, "result_token", None)
        if (token is None) != (result is None):
            raise self.op_error("a token result is produced exactly when a token is given")
        if token is not None and result is not None and token.type != result.type:
            raise self.op_error(f"the token result must have the token operand's type {token.type}")

    def check_mask(self, shape: Sequence[int]) -> None:
        """OPERAND_SEGMENTS (mask part)."""
        mask: SSAValue | None = getattr(self, "mask", None)
        if mask is not None and shape_of(mask.type) != tuple(shape):
            raise self.op_error(
                f"mask shape {list(shape_of(mask.type))} must equal the tile shape {list(shape)}"
            )


class TiledMemoryOp(MemoryAccessOp):
    """Shared pieces of tiled_load, tiled_store and tiled_atomic_rmw (seed 003 tables)."""

    def view_type(self) -> TiledViewType:
        t = self.operands[0].type
        assert isinstance(t, TiledViewType)
        return t

    def check_tiled(
        self,
        coords: Sequence[SSAValue],
        offsets: Sequence[SSAValue],
        tile: Attribute,
        allowed: Sequence[MemSemantic],
        direction: str,
    ) -> None:
        view = self.operands[0].type
        rank = len(view_dims(view))
        if len(coords) != rank:
            raise self.op_error(f"expected {rank} coordinates (the view's rank), got {len(coords)}")
        if offsets and len(offsets) != rank:
            raise self.op_error(
                f"expected no offsets or {rank} (the view's rank), got {len(offsets)}"
            )
        check_index_operands(self, coords, "coordinates")
        check_index_operands(self, offsets, "offsets")
        shape = shape_of(tile)
        atom = self.properties["atom"]
        assert isinstance(atom, AtomAttr)
        info = atom.info
        check_memop_atom(self, info, direction)
        check_view_memory(self, view, info, "destination" if direction == "store" else "source")
        check_atom_box(self, info, shape, element_type(tile))
        check_pow2_tile(self, shape)
        if element_type(tile) != view_element(view):
            raise self.op_error(
                f"tile element type {element_type(tile)} must equal the view's element type {view_element(view)}"
            )
        check_semantics(self, allowed)
        in_bounds = self.properties.get("in_bounds")
        check_padding(
            self,
            element_type(tile),
            in_bounds=in_bounds if isinstance(in_bounds, DenseArrayBase) else None,
        )
        self.check_mask(shape)
        self.check_token_result()
        check_ordered_placement(self)


TILED_RULES = (
    OPERAND_SEGMENTS,
    INDEX_COORDS,
    MEMOP_ATOM_KIND,
    MEMORY_SPACE_PAIR,
    ATOM_BOX,
    POW2_TILE,
    ELEMENT_TYPE_MATCH,
    MEMOP_SEMANTICS,
    SCOPE_IFF_ORDERED,
    PADDING_IN_BOUNDS,
    PADDING_TYPE,
    TOKEN_RESULT,
    ORDERED_PLACEMENT,
)


# ---------------------------------------------------------------------------
# tiled_load, async.tiled_load.
# ---------------------------------------------------------------------------


class TiledLoadBase(TiledMemoryOp):
    view = operand_def(ViewConstraint)
    coords = var_operand_def()
    offsets = var_operand_def()
    token = opt_operand_def(TokenConstraint)
    mask = opt_operand_def()
    atom = prop_def(AtomAttr)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    in_bounds = opt_prop_def(DenseArrayBase)
    padding_value = opt_prop_def(Attribute)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    RULES: ClassVar[tuple[str, ...]] = TILED_RULES

    def loaded_type(self) -> Attribute:
        raise NotImplementedError

    def in_bounds_flags(self) -> tuple[bool, ...]:
        """Per dimension, whether the access is promised in bounds (none when absent)."""
        if self.in_bounds is None:
            return ()
        values = cast(DenseArrayBase[IntegerType], self.in_bounds).get_values()
        return tuple(bool(v) for v in values)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.view, self.coords)
        print_tail(printer, self, self.offsets)
        print_signature(printer, self, [self.view.type], self.results[0].type)

    @classmethod
    def parse(cls, parser: Parser) -> TiledLoadBase:
        view = parser.parse_unresolved_operand()
        coords = _index_list(parser)
        tail = parse_tail(parser, offsets=True)
        (view_t,), mask_t, token_t, result_t = parse_signature(parser, 1, tail, result=True)
        assert result_t is not None
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        token = _opt(parser, tail.token, token_t)
        drop_segment_sizes(
            parser, rest, [1, len(coords), len(tail.offsets), len(token), tail.mask is not None]
        )
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                resolve_index(parser, coords),
                resolve_index(parser, tail.offsets),
                token,
                _opt(parser, tail.mask, mask_t),
            ],
            result_types=[result_t, [token_t] if token else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_tiled(self.coords, self.offsets, self.loaded_type(), LOAD_SEMANTICS, "load")


@bare_tile_syntax
@irdl_op_definition
class TiledLoadOp(TiledLoadBase):
    """`%x = nv_tileas.tiled_load %view[%i, %j] [offsets [...]] [mask %m] [token %t] {atom = #nv_tileas<atom ldg_128b>, ...} : !nv_tileas.tiled_view<...>[, mask type] -> tensor<...>`

    Loads one tile through a view with the given atom.  Masked-off and out-of-bounds
    elements read `padding_value` (zero when absent); a token orders the load after
    earlier memory effects, and a token result is produced when one was given."""

    name = "nv_tileas.tiled_load"
    result = result_def()
    result_token = opt_result_def(TokenConstraint)
    traits = traits_def(MemoryReadEffect())

    def loaded_type(self) -> Attribute:
        return self.result.type


@bare_tile_syntax
@irdl_op_definition
class AsyncTiledLoadOp(TiledLoadBase):
    """`%f = nv_tileas.async.tiled_load %view[%i, %j] ... {atom = #nv_tileas<atom cp_async_128b>} : !nv_tileas.tiled_view<...> -> !async.value<tensor<...>>`

    `tiled_load` that completes asynchronously: the result is a future of the tile."""

    name = "nv_tileas.async.tiled_load"
    result = result_def(AsyncValueType)
    result_token = opt_result_def(TokenConstraint)
    traits = traits_def(MemoryReadEffect(), MemoryConsistencyOp())

    def loaded_type(self) -> Attribute:
        t = self.result.type
        assert isinstance(t, AsyncValueType)
        return t.value_type


# ---------------------------------------------------------------------------
# tiled_store.
# ---------------------------------------------------------------------------


@bare_tile_syntax
@irdl_op_definition
class TiledStoreOp(TiledMemoryOp):
    """`nv_tileas.tiled_store %value, %view[%i, %j] [offsets [...]] [mask %m] [token %t] {atom = #nv_tileas<atom stg_128b>} : tensor<...>, !nv_tileas.tiled_view<...>[, mask type]`

    Stores a tile through a view; masked-off elements are not written."""

    name = "nv_tileas.tiled_store"
    view = operand_def(ViewConstraint)
    value = operand_def()
    coords = var_operand_def()
    offsets = var_operand_def()
    token = opt_operand_def(TokenConstraint)
    mask = opt_operand_def()
    atom = prop_def(AtomAttr)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    in_bounds = opt_prop_def(DenseArrayBase)
    padding_value = opt_prop_def(Attribute)
    result_token = opt_result_def(TokenConstraint)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect())
    RULES: ClassVar[tuple[str, ...]] = TILED_RULES

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_access(printer, self.view, self.coords)
        print_tail(printer, self, self.offsets)
        print_signature(printer, self, [self.value.type, self.view.type], None)

    @classmethod
    def parse(cls, parser: Parser) -> TiledStoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view = parser.parse_unresolved_operand()
        coords = _index_list(parser)
        tail = parse_tail(parser, offsets=True)
        (value_t, view_t), mask_t, token_t, _ = parse_signature(parser, 2, tail, result=False)
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        token = _opt(parser, tail.token, token_t)
        drop_segment_sizes(
            parser, rest, [1, 1, len(coords), len(tail.offsets), len(token), tail.mask is not None]
        )
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                parser.resolve_operand(value, value_t),
                resolve_index(parser, coords),
                resolve_index(parser, tail.offsets),
                token,
                _opt(parser, tail.mask, mask_t),
            ],
            result_types=[[token_t] if token else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_tiled(self.coords, self.offsets, self.value.type, STORE_SEMANTICS, "store")


# ---------------------------------------------------------------------------
# tiled_atomic_rmw.
# ---------------------------------------------------------------------------

#: Modes that only make sense on integers / floats.
INTEGER_ONLY_MODES = (RmwMode.AND, RmwMode.OR, RmwMode.XOR, RmwMode.UMIN, RmwMode.UMAX)
HALF_FLOAT_MODES = (RmwMode.ADD, RmwMode.ADDF, RmwMode.MAX, RmwMode.MIN)


@bare_tile_syntax
@irdl_op_definition
class TiledAtomicRmwOp(TiledMemoryOp):
    """`%old = nv_tileas.tiled_atomic_rmw addf %value, %view[%i] [token %t] {atom = #nv_tileas<atom atom_global>, mem_semantic = ..., mem_scope = ...} : tensor<...>, !nv_tileas.tiled_view<...> -> tensor<...>`

    Atomically combines `%value` into the view with `rmw_mode` (add, and, or, xor, xchg,
    min, max, umin, umax, cmpxchg, addf) and returns the old values."""

    name = "nv_tileas.tiled_atomic_rmw"
    view = operand_def(ViewConstraint)
    value = operand_def()
    coords = var_operand_def()
    token = opt_operand_def(TokenConstraint)
    atom = prop_def(AtomAttr)
    rmw_mode = prop_def(RmwModeAttr)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    result = result_def()
    result_token = opt_result_def(TokenConstraint)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    RULES: ClassVar[tuple[str, ...]] = (
        OPERAND_SEGMENTS,
        INDEX_COORDS,
        MEMOP_ATOM_KIND,
        MEMORY_SPACE_PAIR,
        POW2_TILE,
        ELEMENT_TYPE_MATCH,
        MEMOP_SEMANTICS,
        SCOPE_IFF_ORDERED,
        TOKEN_RESULT,
        ATOMIC_8BIT,
        ATOMIC_16BIT_INT,
        ATOMIC_16BIT_FLOAT,
        ATOMIC_MODE_TYPE,
        ORDERED_PLACEMENT,
    )

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.rmw_mode.data.value} ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_access(printer, self.view, self.coords)
        if self.token is not None:
            printer.print_string(" token ")
            printer.print_operand(self.token)
        props = {
            k: v for k, v in self.properties.items() if k not in ("operandSegmentSizes", "rmw_mode")
        }
        printer.print_op_attributes({**props, **self.attributes})
        print_signature(printer, self, [self.value.type, self.view.type], self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> TiledAtomicRmwOp:
        mode = RmwMode(parser.parse_str_enum(RmwMode))
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view = parser.parse_unresolved_operand()
        coords = _index_list(parser)
        tail = parse_tail(parser)
        if tail.mask is not None:
            parser.raise_error("tiled_atomic_rmw takes no mask")
        (value_t, view_t), _, token_t, result_t = parse_signature(parser, 2, tail, result=True)
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        props["rmw_mode"] = RmwModeAttr(mode)
        token = _opt(parser, tail.token, token_t)
        drop_segment_sizes(parser, rest, [1, 1, len(coords), len(token)])
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                parser.resolve_operand(value, value_t),
                resolve_index(parser, coords),
                token,
            ],
            result_types=[result_t, [token_t] if token else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_tiled(self.coords, (), self.value.type, ALL_SEMANTICS, "atomic")
        if self.result.type != self.value.type:
            raise self.op_error(
                f"result type {self.result.type} must equal the value type {self.value.type}"
            )
        check_atomic_element(self, element_type(self.value.type), self.rmw_mode.data)


def check_atomic_element(op: TileASOp, el: Attribute, mode: RmwMode) -> None:
    """ATOMIC_8BIT, ATOMIC_16BIT_INT, ATOMIC_16BIT_FLOAT and ATOMIC_MODE_TYPE."""
    width = mlir_bit_width(el)
    if width == 8:
        raise op.op_error(f"8-bit atomics are not supported ({el})")
    if width == 16 and isinstance(el, IntegerType):
        raise op.op_error(f"16-bit integer atomics are not supported ({el})")
    if width == 16 and is_float(el) and mode not in HALF_FLOAT_MODES:
        raise op.op_error(
            f"16-bit floating-point atomics allow only add, max and min, not {mode.value}"
        )
    if mode is RmwMode.ADDF and not is_float(el):
        raise op.op_error(f"addf needs a floating-point element type, not {el}")
    if mode in INTEGER_ONLY_MODES and not isinstance(el, IntegerType):
        raise op.op_error(f"{mode.value} needs an integer element type, not {el}")


# ---------------------------------------------------------------------------
# Pointer loads and stores: load, store, async.load, async.store.
# ---------------------------------------------------------------------------


class PointerAccessOp(MemoryAccessOp):
    RULES: ClassVar[tuple[str, ...]] = (
        OPERAND_SEGMENTS,
        ELEMENT_TYPE_MATCH,
        MEMOP_SEMANTICS,
        SCOPE_IFF_ORDERED,
        PADDING_IN_BOUNDS,
        PADDING_TYPE,
        TOKEN_RESULT,
        ORDERED_PLACEMENT,
    )

    def check_pointers(
        self, pointers: SSAValue, data: Attribute, allowed: Sequence[MemSemantic]
    ) -> None:
        el = element_type(pointers.type)
        if not isinstance(el, PointerType):
            raise self.op_error(f"expects a tile of pointers, got {pointers.type}")
        if shape_of(data) != shape_of(pointers.type) or element_type(data) != el.pointee:
            raise self.op_error(f"data type {data} does not match the pointers {pointers.type}")
        check_semantics(self, allowed)
        pad = self.properties.get("padding_value")
        if pad is not None:
            if getattr(self, "mask", None) is None:
                raise self.op_error("padding_value is only allowed with a mask")
            check_padding_value(self, pad, el.pointee)
        self.check_mask(shape_of(pointers.type))
        self.check_token_result()
        check_ordered_placement(self)


class PointerLoadBase(PointerAccessOp):
    pointers = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(TokenConstraint)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    padding_value = opt_prop_def(Attribute)
    result_token = opt_result_def(TokenConstraint)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def loaded_type(self) -> Attribute:
        raise NotImplementedError

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.pointers)
        print_tail(printer, self)
        print_signature(printer, self, [self.pointers.type], self.results[0].type)

    @classmethod
    def parse(cls, parser: Parser) -> PointerLoadBase:
        pointers = parser.parse_unresolved_operand()
        tail = parse_tail(parser)
        (ptr_t,), mask_t, token_t, result_t = parse_signature(parser, 1, tail, result=True)
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        mask, token = _mask_and_token(parser, tail, rest, (mask_t, token_t), 1)
        return cls.build(
            operands=[parser.resolve_operand(pointers, ptr_t), mask, token],
            result_types=[result_t, [token_t] if token else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_pointers(self.pointers, self.loaded_type(), LOAD_SEMANTICS)


@bare_tile_syntax
@irdl_op_definition
class LoadOp(PointerLoadBase):
    """`%x = nv_tileas.load %ptrs [mask %m] [token %t] {...} : tensor<128x!cuda_tile.ptr<f32>>[, tensor<128xi1>] -> tensor<128xf32>`

    Loads the element behind each pointer; masked-off elements read `padding_value`."""

    name = "nv_tileas.load"
    result = result_def()
    traits = traits_def(MemoryReadEffect())

    def loaded_type(self) -> Attribute:
        return self.result.type


@bare_tile_syntax
@irdl_op_definition
class AsyncLoadOp(PointerLoadBase):
    """`%f = nv_tileas.async.load %ptrs ... : tensor<128x!cuda_tile.ptr<f32>> -> !async.value<tensor<128xf32>>`

    `load` completing asynchronously: the result is a future."""

    name = "nv_tileas.async.load"
    result = result_def(AsyncValueType)
    traits = traits_def(MemoryReadEffect(), MemoryConsistencyOp())

    def loaded_type(self) -> Attribute:
        t = self.result.type
        assert isinstance(t, AsyncValueType)
        return t.value_type


class PointerStoreBase(PointerAccessOp):
    pointers = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(TokenConstraint)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.pointers)
        print_tail(printer, self)
        done = self.results[0].type if isinstance(self, AsyncStoreOp) else None
        print_signature(printer, self, [self.value.type, self.pointers.type], done)

    @classmethod
    def parse(cls, parser: Parser) -> PointerStoreBase:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        pointers = parser.parse_unresolved_operand()
        tail = parse_tail(parser)
        is_async = cls is AsyncStoreOp
        (value_t, ptr_t), mask_t, token_t, result_t = parse_signature(
            parser, 2, tail, result=is_async
        )
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        mask, token = _mask_and_token(parser, tail, rest, (mask_t, token_t), 2)
        results: list[Attribute | list[Attribute]] = [[token_t] if token else []]
        if is_async:
            results = [result_t or AsyncTokenType()]
        return cls.build(
            operands=[
                parser.resolve_operand(pointers, ptr_t),
                parser.resolve_operand(value, value_t),
                mask,
                token,
            ],
            result_types=results,
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_pointers(self.pointers, self.value.type, STORE_SEMANTICS)


@bare_tile_syntax
@irdl_op_definition
class StoreOp(PointerStoreBase):
    """`nv_tileas.store %value, %ptrs [mask %m] [token %t] {...} : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>>[, tensor<128xi1>]`

    Stores each element to its pointer; masked-off elements are not written."""

    name = "nv_tileas.store"
    result_token = opt_result_def(TokenConstraint)
    traits = traits_def(MemoryWriteEffect())


@bare_tile_syntax
@irdl_op_definition
class AsyncStoreOp(PointerStoreBase):
    """`%done = nv_tileas.async.store %value, %ptrs ... : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>> -> !nv_tileas.async.token`

    `store` completing asynchronously; the result signals completion.  (Its token
    operand orders the store; the completion token is its only result.)"""

    name = "nv_tileas.async.store"
    done = result_def(AsyncTokenType)
    traits = traits_def(MemoryWriteEffect(), MemoryConsistencyOp())

    def check_token_result(self) -> None:
        return


# ---------------------------------------------------------------------------
# Pointer atomics: atomic_rmw, atomic_cas (tileir's, not in the seed).
# ---------------------------------------------------------------------------

ATOMIC_RULES = (
    OPERAND_SEGMENTS,
    ELEMENT_TYPE_MATCH,
    MEMOP_SEMANTICS,
    SCOPE_IFF_ORDERED,
    TOKEN_RESULT,
    ATOMIC_8BIT,
    ATOMIC_16BIT_INT,
    ATOMIC_16BIT_FLOAT,
    ATOMIC_MODE_TYPE,
    ORDERED_PLACEMENT,
)


class PointerAtomicBase(PointerAccessOp):
    """Shared pieces of atomic_rmw and atomic_cas: one read-modify-write per element of a
    tile of global pointers, where the mask holds; the result is the old values."""

    pointers = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(TokenConstraint)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    result = result_def()
    result_token = opt_result_def(TokenConstraint)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    RULES: ClassVar[tuple[str, ...]] = ATOMIC_RULES

    def leading(self) -> list[SSAValue]:
        """The data operands printed before the pointers."""
        return [self.value]

    def check_atomic(self, mode: RmwMode) -> None:
        self.check_pointers(self.pointers, self.value.type, ALL_SEMANTICS)
        for v in (*self.leading(), self.result):
            if v.type != self.value.type:
                raise self.op_error(f"{v.type} must equal the value type {self.value.type}")
        check_atomic_element(self, element_type(self.value.type), mode)


@bare_tile_syntax
@irdl_op_definition
class AtomicRmwOp(PointerAtomicBase):
    """`%old = nv_tileas.atomic_rmw addf %value, %ptrs [mask %m] [token %t] {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>>[, tensor<128xi1>] -> tensor<128xf32>`

    tileir's pointer form of `tiled_atomic_rmw`: atomically combines `value[i]` into
    `*ptrs[i]` with `rmw_mode` (every mode but `cmpxchg`, which is `atomic_cas`) where
    `mask[i]` holds, and returns the old values (undefined where the mask is off).
    `tileas-insert-barriers` orders it and drops its token."""

    name = "nv_tileas.atomic_rmw"
    rmw_mode = prop_def(RmwModeAttr)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.rmw_mode.data.value} ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.pointers)
        print_tail(printer, self, hidden=("rmw_mode",))
        print_signature(printer, self, [self.value.type, self.pointers.type], self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRmwOp:
        mode = RmwMode(parser.parse_str_enum(RmwMode))
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        pointers = parser.parse_unresolved_operand()
        tail = parse_tail(parser)
        (value_t, ptr_t), mask_t, token_t, result_t = parse_signature(parser, 2, tail, result=True)
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        props["rmw_mode"] = RmwModeAttr(mode)
        mask, token = _mask_and_token(parser, tail, rest, (mask_t, token_t), 2)
        return cls.build(
            operands=[
                parser.resolve_operand(pointers, ptr_t),
                parser.resolve_operand(value, value_t),
                mask,
                token,
            ],
            result_types=[result_t or value_t, [token_t] if token else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        mode = self.rmw_mode.data
        if mode is RmwMode.CMPXCHG:
            raise self.op_error("cmpxchg is nv_tileas.atomic_cas, not an atomic_rmw mode")
        self.check_atomic(mode)


@bare_tile_syntax
@irdl_op_definition
class AtomicCasOp(PointerAtomicBase):
    """`%old = nv_tileas.atomic_cas %compare, %value, %ptrs [mask %m] [token %t] {...} : tensor<16xi32>, tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>>[, tensor<16xi1>] -> tensor<16xi32>`

    tileir's compare-and-swap (the seed has none): atomically writes `value[i]` to
    `*ptrs[i]` if it holds `compare[i]` (floats compare bitwise), where `mask[i]` holds,
    and returns the old values.  32- and 64-bit elements."""

    name = "nv_tileas.atomic_cas"
    pointers = operand_def()
    compare = operand_def()
    value = operand_def()

    def leading(self) -> list[SSAValue]:
        return [self.compare, self.value]

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.compare)
        printer.print_string(", ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.pointers)
        print_tail(printer, self)
        fixed = [self.compare.type, self.value.type, self.pointers.type]
        print_signature(printer, self, fixed, self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicCasOp:
        compare = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        pointers = parser.parse_unresolved_operand()
        tail = parse_tail(parser)
        (cmp_t, value_t, ptr_t), mask_t, token_t, result_t = parse_signature(
            parser, 3, tail, result=True
        )
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        mask, token = _mask_and_token(parser, tail, rest, (mask_t, token_t), 3)
        return cls.build(
            operands=[
                parser.resolve_operand(pointers, ptr_t),
                parser.resolve_operand(compare, cmp_t),
                parser.resolve_operand(value, value_t),
                mask,
                token,
            ],
            result_types=[result_t or value_t, [token_t] if token else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_atomic(RmwMode.CMPXCHG)
        width = mlir_bit_width(element_type(self.value.type))
        if width not in (32, 64):
            raise self.op_error(
                f"compare-and-swap needs 32- or 64-bit elements, not {element_type(self.value.type)}"
            )


# ---------------------------------------------------------------------------
# gather_load, scatter_store.
# ---------------------------------------------------------------------------


class GatherScatterBase(MemoryAccessOp):
    RULES: ClassVar[tuple[str, ...]] = (
        GATHER_OFFSETS,
        OPERAND_SEGMENTS,
        MEMOP_ATOM_KIND,
        MEMORY_SPACE_PAIR,
        ELEMENT_TYPE_MATCH,
        MEMOP_SEMANTICS,
        SCOPE_IFF_ORDERED,
        PADDING_IN_BOUNDS,
        PADDING_TYPE,
        TOKEN_RESULT,
        ORDERED_PLACEMENT,
    )

    def check_gather(
        self, view: SSAValue, offsets: SSAValue, data: Attribute, direction: str
    ) -> None:
        offsets_el = element_type(offsets.type)
        if not isinstance(offsets_el, IntegerType) or shape_of(offsets.type) != shape_of(data):
            raise self.op_error(
                f"offsets {offsets.type} must be an integer tile shaped like the data {data}"
            )
        atom = self.properties["atom"]
        assert isinstance(atom, AtomAttr)
        check_memop_atom(self, atom.info, direction)
        check_view_memory(
            self, view.type, atom.info, "destination" if direction == "store" else "source"
        )
        if element_type(data) != view_element(view.type):
            raise self.op_error(
                f"tile element type {element_type(data)} must equal the view's element type {view_element(view.type)}"
            )
        check_semantics(self, LOAD_SEMANTICS if direction == "load" else STORE_SEMANTICS)
        pad = self.properties.get("padding_value")
        if pad is not None:
            if getattr(self, "mask", None) is None:
                raise self.op_error("padding_value is only allowed with a mask")
            check_padding_value(self, pad, element_type(data))
        self.check_mask(shape_of(data))
        self.check_token_result()
        check_ordered_placement(self)


@bare_tile_syntax
@irdl_op_definition
class GatherLoadOp(GatherScatterBase):
    """`%x = nv_tileas.gather_load %view[%offsets] [mask %m] [token %t] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<...>, tensor<64xi32>[, tensor<64xi1>] -> tensor<64xf32>`

    Reads element `offsets[i]` (a linear element offset into the view) into element `i`."""

    name = "nv_tileas.gather_load"
    view = operand_def(ViewConstraint)
    offsets = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(TokenConstraint)
    atom = prop_def(AtomAttr)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    padding_value = opt_prop_def(Attribute)
    result = result_def()
    result_token = opt_result_def(TokenConstraint)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_access(printer, self.view, [self.offsets])
        print_tail(printer, self)
        print_signature(printer, self, [self.view.type, self.offsets.type], self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> GatherLoadOp:
        view = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        offsets = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        tail = parse_tail(parser)
        (view_t, offsets_t), mask_t, token_t, result_t = parse_signature(
            parser, 2, tail, result=True
        )
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        mask, token = _mask_and_token(parser, tail, rest, (mask_t, token_t), 2)
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                parser.resolve_operand(offsets, offsets_t),
                mask,
                token,
            ],
            result_types=[result_t, [token_t] if token else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_gather(self.view, self.offsets, self.result.type, "load")


@bare_tile_syntax
@irdl_op_definition
class ScatterStoreOp(GatherScatterBase):
    """`nv_tileas.scatter_store %value, %view[%offsets] [mask %m] [token %t] {atom = #nv_tileas<atom stg_32b>} : tensor<64xf32>, !nv_tileas.tiled_view<...>, tensor<64xi32>[, tensor<64xi1>]`

    Writes element `i` to the linear element offset `offsets[i]` of the view."""

    name = "nv_tileas.scatter_store"
    view = operand_def(ViewConstraint)
    value = operand_def()
    offsets = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(TokenConstraint)
    atom = prop_def(AtomAttr)
    mem_semantic = opt_prop_def(MemSemanticAttr)
    mem_scope = opt_prop_def(MemScopeAttr)
    result_token = opt_result_def(TokenConstraint)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_access(printer, self.view, [self.offsets])
        print_tail(printer, self)
        print_signature(printer, self, [self.value.type, self.view.type, self.offsets.type], None)

    @classmethod
    def parse(cls, parser: Parser) -> ScatterStoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        view = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        offsets = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        tail = parse_tail(parser)
        (value_t, view_t, offsets_t), mask_t, token_t, _ = parse_signature(
            parser, 3, tail, result=False
        )
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        mask, token = _mask_and_token(parser, tail, rest, (mask_t, token_t), 3)
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                parser.resolve_operand(value, value_t),
                parser.resolve_operand(offsets, offsets_t),
                mask,
                token,
            ],
            result_types=[[token_t] if token else []],
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        self.check_gather(self.view, self.offsets, self.value.type, "store")


# ---------------------------------------------------------------------------
# copy, async.copy.
# ---------------------------------------------------------------------------


class CopyBase(MemoryAccessOp):
    source = operand_def(ViewConstraint)
    destination = operand_def(ViewConstraint)
    token = opt_operand_def(TokenConstraint)
    atom = prop_def(AtomAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    RULES: ClassVar[tuple[str, ...]] = (
        MEMOP_ATOM_KIND,
        MEMORY_SPACE_PAIR,
        ELEMENT_TYPE_MATCH,
        TOKEN_RESULT,
    )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(", ")
        printer.print_operand(self.destination)
        print_tail(printer, self)
        done = self.results[0].type if isinstance(self, AsyncCopyOp) else None
        print_signature(printer, self, [self.source.type, self.destination.type], done)

    @classmethod
    def parse(cls, parser: Parser) -> CopyBase:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        destination = parser.parse_unresolved_operand()
        tail = parse_tail(parser)
        if tail.mask is not None:
            parser.raise_error("copies take no mask")
        is_async = cls is AsyncCopyOp
        (src_t, dst_t), _, token_t, result_t = parse_signature(parser, 2, tail, result=is_async)
        props, rest = split_props(tail.attrs, PROPERTY_NAMES)
        token = _opt(parser, tail.token, token_t)
        drop_segment_sizes(parser, rest, [1, 1, len(token)])
        results: list[Attribute | list[Attribute]] = [[token_t] if token else []]
        if is_async:
            results = [result_t or AsyncTokenType()]
        return cls.build(
            operands=[
                parser.resolve_operand(source, src_t),
                parser.resolve_operand(destination, dst_t),
                token,
            ],
            result_types=results,
            properties=props,
            attributes=rest,
        )

    def verify_(self) -> None:
        info = self.atom.info
        check_memop_atom(self, info, "copy")
        check_view_memory(self, self.source.type, info, "source")
        check_view_memory(self, self.destination.type, info, "destination")
        s, d = self.source.type, self.destination.type
        if view_dims(s) != view_dims(d) or view_element(s) != view_element(d):
            raise self.op_error(
                f"source {s} and destination {d} must have the same shape and element type"
            )
        self.check_token_result()


@bare_tile_syntax
@irdl_op_definition
class CopyOp(CopyBase):
    """`nv_tileas.copy %src, %dst [token %t] {atom = #nv_tileas<atom sts_128b>} : !nv_tileas.tiled_view<..., rmem>, !nv_tileas.tiled_view<..., smem>`

    Synchronously copies a whole view into another with the atom's memory pair
    (for example registers to shared memory)."""

    name = "nv_tileas.copy"
    result_token = opt_result_def(TokenConstraint)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), MemoryConsistencyOp())


@bare_tile_syntax
@irdl_op_definition
class AsyncCopyOp(CopyBase):
    """`%done = nv_tileas.async.copy %src, %dst [token %t] {atom = #nv_tileas<atom cp_async_128b>} : !nv_tileas.tiled_view<..., gmem>, !nv_tileas.tiled_view<..., smem> -> !nv_tileas.async.token`

    `copy` completing asynchronously (cp.async); the result signals completion."""

    name = "nv_tileas.async.copy"
    done = result_def(AsyncTokenType)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), MemoryConsistencyOp())

    def check_token_result(self) -> None:
        return


MEMORY_OPS: list[type[TileASOp]] = [
    TiledLoadOp,
    TiledStoreOp,
    TiledAtomicRmwOp,
    AsyncTiledLoadOp,
    AsyncCopyOp,
    AsyncLoadOp,
    AsyncStoreOp,
    CopyOp,
    LoadOp,
    StoreOp,
    GatherLoadOp,
    ScatterStoreOp,
    AtomicRmwOp,
    AtomicCasOp,
]
