"""Atomic ops (NVIDIA group Atomics): read-modify-write and compare-and-swap through
pointer tiles, and reductions into a view.

Each element is one atomic access with the op's memory ordering and scope.  `mode`
is the modification: bitwise `and`/`or`/`xor`, integer `add`/`max`/`min`
(`umax`/`umin` unsigned), float `addf`, or `xchg`.  The `_tko` ops take an optional
ordering token and produce one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer

from tileir.dialects.cuda_tile.attributes import (
    AtomicRMWMode,
    MemoryOrderingSemantics,
    MemoryScope,
    enum_of_i32_attr,
    i32_enum_attr,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.base import (
    ANY_ELEMENT,
    BOOL,
    INTEGER,
    POINTER,
    CudaTileOp,
    check_tile_of,
    check_type,
)
from tileir.dialects.cuda_tile.ops.memory import (
    TOKEN_TYPE,
    memory_scope,
    memory_semantics,
    parse_i32_enum,
    parse_token_operand,
    print_token_operand,
)
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_operand_list,
    print_cuda_tile_type,
)
from tileir.dialects.cuda_tile.types import (
    GatherScatterViewType,
    PointerType,
    TileType,
    TileViewType,
    TokenType,
    is_tile_view,
)
from tileir.utils.bits import mlir_bit_width

_FLOAT_RMW = ("f16", "bf16", "f32", "f64")


def rmw_mode(op: CudaTileOp) -> AtomicRMWMode:
    return enum_of_i32_attr(AtomicRMWMode, op.properties["mode"])


def rmw_mode_error(mode: AtomicRMWMode, element: Attribute) -> str | None:
    """Which element types a mode works on (NVIDIA's rules)."""
    if mode is AtomicRMWMode.ADDF:
        if str(element) not in _FLOAT_RMW:
            return "'addf' works only with floats f16, bf16, f32, and f64"
        return None
    if mode is AtomicRMWMode.XCHG:
        width = mlir_bit_width(element)
        if width not in (32, 64):
            return "'xchg' works only with integers or float of 32 or 64 bitwidth"
        return None
    if not (isinstance(element, IntegerType) and element.width.data in (32, 64)):
        return f"'{mode.value}' works only with integers i32 and i64"
    return None


ATOMIC_ORDERINGS = (
    MemoryOrderingSemantics.RELAXED,
    MemoryOrderingSemantics.ACQUIRE,
    MemoryOrderingSemantics.RELEASE,
    MemoryOrderingSemantics.ACQ_REL,
)


class AtomicOp(CudaTileOp):
    """Shared by the pointer atomics: `SEM SCOPE %ptrs, ... [, %mask] [token=%t]`."""

    GROUP: ClassVar[str] = "Atomics"
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = prop_def(IntegerAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def asm_result_names(self) -> Sequence[str | None]:
        return ("result", "result_token")

    @staticmethod
    def parse_memory_model(parser: Parser, props: dict[str, Attribute]) -> None:
        props["memory_ordering_semantics"] = parse_i32_enum(
            parser, MemoryOrderingSemantics, "memory_ordering_semantics"
        )
        props["memory_scope"] = parse_i32_enum(parser, MemoryScope, "memory_scope")

    def print_memory_model(self, f: AsmFormat) -> None:
        f.keyword(memory_semantics(self.properties).value)
        scope = memory_scope(self.properties)
        assert scope is not None
        f.keyword(scope.value)

    def verify_atomic(
        self, pointers: SSAValue, value: SSAValue, value_name: str, mask: SSAValue | None
    ) -> None:
        pointer = element_type(pointers.type)
        assert isinstance(pointer, PointerType)
        el = element_type(value.type)
        if pointer.pointee != el:
            raise self.op_error(
                f"expected pointee type ('{pointer.pointee}') to match element type of "
                f"'{value_name}' ('{el}')"
            )

    def check_ordering(self) -> None:
        if memory_semantics(self.properties) not in ATOMIC_ORDERINGS:
            raise self.op_error(
                "memory ordering semantics must be one of: relaxed, acquire, release, acq_rel"
            )

    def check_common_types(
        self, mask: SSAValue | None, token: SSAValue | None, first_optional: int
    ) -> None:
        index = first_optional
        if mask is not None:
            check_tile_of(self, mask, f"operand #{index}", BOOL)
            index += 1
        if token is not None:
            check_type(
                self, token, f"operand #{index}", TOKEN_TYPE, isinstance(token.type, TokenType)
            )
        check_tile_of(self, self.results[0], "result #0", ANY_ELEMENT)
        check_type(
            self,
            self.results[1],
            "result #1",
            TOKEN_TYPE,
            isinstance(self.results[1].type, TokenType),
        )


def _print_tail(
    f: AsmFormat, mask: SSAValue | None, token: SSAValue | None, op: CudaTileOp
) -> None:
    if mask is not None:
        f.literal(",")
        f.operand(mask)
    print_token_operand(f, token)
    f.attr_dict(op)


def _parse_optional_mask(parser: Parser) -> UnresolvedOperand | None:
    if parser.parse_optional_punctuation(",") is None:
        return None
    return parser.parse_unresolved_operand()


def _parse_signature(
    parser: Parser, mask: UnresolvedOperand | None
) -> tuple[Attribute, Attribute, list[SSAValue], Attribute, Attribute]:
    """`: P, T [, M] -> R, token`: the pointer and value types, the mask (resolved
    against its type, when the op has one), the result and token types."""
    parser.parse_punctuation(":")
    pointers_t = parse_cuda_tile_type(parser)
    parser.parse_punctuation(",")
    value_t = parse_cuda_tile_type(parser)
    mask_values: list[SSAValue] = []
    if mask is not None:
        parser.parse_punctuation(",")
        mask_values = [parser.resolve_operand(mask, parse_cuda_tile_type(parser))]
    parser.parse_punctuation("->")
    result_t = parse_cuda_tile_type(parser)
    parser.parse_punctuation(",")
    token_t = parse_cuda_tile_type(parser)
    return pointers_t, value_t, mask_values, result_t, token_t


@irdl_op_definition
class AtomicCASTkoOp(AtomicOp):
    """`SEM SCOPE %ptrs, %cmp, %val [, %mask] [token=%t] : P, T [, M] -> T, token`.

    Per element: if `*ptr == cmp`, store `val`; the result is the old value."""

    name = "cuda_tile.atomic_cas_tko"
    SYNTAX: ClassVar[str] = (
        "SEM SCOPE %pointers, %cmp, %val [, %mask] [token=%t] [{attrs}] : P, T [, M] -> T, token"
    )
    pointers = operand_def()
    cmp = operand_def()
    val = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def()
    result = result_def()
    result_token = result_def()

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        self.print_memory_model(f)
        f.operand(self.pointers)
        f.literal(",")
        f.operand(self.cmp)
        f.literal(",")
        f.operand(self.val)
        _print_tail(f, self.mask, self.token, self)
        f.literal(":")
        f.type(self.pointers.type)
        f.literal(",")
        f.type(self.val.type)
        if self.mask is not None:
            f.literal(",")
            f.type(self.mask.type)
        f.literal("->")
        f.type(self.result.type)
        f.literal(",")
        f.type(self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicCASTkoOp:
        props: dict[str, Attribute] = {}
        cls.parse_memory_model(parser, props)
        pointers = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        cmp = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        mask = _parse_optional_mask(parser)
        token = parse_token_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        pointers_t, val_t, mask_values, result_t, token_t = _parse_signature(parser, mask)
        return cls.build(
            operands=[
                parser.resolve_operand(pointers, pointers_t),
                parser.resolve_operand(cmp, val_t),
                parser.resolve_operand(val, val_t),
                mask_values,
                [] if token is None else [parser.resolve_operand(token, TokenType())],
            ],
            result_types=[result_t, token_t],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile_of(self, self.pointers, "operand #0", POINTER)
        check_tile_of(self, self.cmp, "operand #1", ANY_ELEMENT)
        check_tile_of(self, self.val, "operand #2", ANY_ELEMENT)
        self.check_common_types(self.mask, self.token, 3)
        shapes = {shape_of(v.type) for v in (self.pointers, self.cmp, self.val, self.result)}
        if len(shapes) != 1:
            raise self.op_error(
                "failed to verify that all of {pointers, cmp, val, result} have same shape"
            )
        if not self.cmp.type == self.val.type == self.result.type:
            raise self.op_error("failed to verify that all of {cmp, val, result} have same type")
        self.verify_atomic(self.pointers, self.val, "val", self.mask)
        el = element_type(self.val.type)
        width = mlir_bit_width(el)
        if width not in (32, 64):
            raise self.op_error("expect only float or integer types with 32 or 64 bit")
        if self.mask is not None and shape_of(self.mask.type) != shape_of(self.val.type):
            raise self.op_error(
                "failed to verify that all of {pointers, val, cmp and mask} have same shape"
            )
        self.check_ordering()


@irdl_op_definition
class AtomicRMWTkoOp(AtomicOp):
    """`SEM SCOPE %ptrs, MODE, %arg [, %mask] [token=%t] : P, T [, M] -> T, token`.

    Per element: `*ptr = *ptr MODE arg`; the result is the old value."""

    name = "cuda_tile.atomic_rmw_tko"
    SYNTAX: ClassVar[str] = (
        "SEM SCOPE %pointers, MODE, %arg [, %mask] [token=%t] [{attrs}] : P, T [, M] -> T, token"
    )
    mode = prop_def(IntegerAttr)
    pointers = operand_def()
    arg = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def()
    result = result_def()
    result_token = result_def()

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        self.print_memory_model(f)
        f.operand(self.pointers)
        f.literal(",")
        f.keyword(rmw_mode(self).value)
        f.literal(",")
        f.operand(self.arg)
        _print_tail(f, self.mask, self.token, self)
        f.literal(":")
        f.type(self.pointers.type)
        f.literal(",")
        f.type(self.arg.type)
        if self.mask is not None:
            f.literal(",")
            f.type(self.mask.type)
        f.literal("->")
        f.type(self.result.type)
        f.literal(",")
        f.type(self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWTkoOp:
        props: dict[str, Attribute] = {}
        cls.parse_memory_model(parser, props)
        pointers = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        props["mode"] = parse_i32_enum(parser, AtomicRMWMode, "mode")
        parser.parse_punctuation(",")
        arg = parser.parse_unresolved_operand()
        mask = _parse_optional_mask(parser)
        token = parse_token_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        pointers_t, arg_t, mask_values, result_t, token_t = _parse_signature(parser, mask)
        return cls.build(
            operands=[
                parser.resolve_operand(pointers, pointers_t),
                parser.resolve_operand(arg, arg_t),
                mask_values,
                [] if token is None else [parser.resolve_operand(token, TokenType())],
            ],
            result_types=[result_t, token_t],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile_of(self, self.pointers, "operand #0", POINTER)
        check_tile_of(self, self.arg, "operand #1", ANY_ELEMENT)
        self.check_common_types(self.mask, self.token, 2)
        shapes = {shape_of(v.type) for v in (self.pointers, self.arg, self.result)}
        if len(shapes) != 1:
            raise self.op_error(
                "failed to verify that all of {pointers, arg, result} have same shape"
            )
        if self.arg.type != self.result.type:
            raise self.op_error("failed to verify that all of {arg, result} have same type")
        self.verify_atomic(self.pointers, self.arg, "arg", self.mask)
        if self.mask is not None and shape_of(self.mask.type) != shape_of(self.arg.type):
            raise self.op_error(
                "failed to verify that all of {pointers, arg, mask} have same shape"
            )
        error = rmw_mode_error(rmw_mode(self), element_type(self.arg.type))
        if error is not None:
            raise self.op_error(error)
        self.check_ordering()


@irdl_op_definition
class AtomicRedViewTkoOp(CudaTileOp):
    """`relaxed SCOPE %view[%i, ...], MODE, %value [token = %t] : T, VIEW, I -> token`
    (13.3).

    Reduces `value` element by element into the tile of the view at index `(i, ...)`
    (`*p = *p MODE v`), without returning the old values: a TMA bulk reduction on
    Hopper and later."""

    name = "cuda_tile.atomic_red_view_tko"
    SYNTAX: ClassVar[str] = (
        "SEM [SCOPE] %view[%i, ...], MODE, %value [token = %t] [attributes {attrs}] : T, VIEW, I -> token"
    )
    SINCE: ClassVar[str] = "13.3"
    GROUP: ClassVar[str] = "Atomics"
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    mode = prop_def(IntegerAttr)
    view = operand_def()
    index = var_operand_def()
    value = operand_def()
    token = opt_operand_def()
    result_token = result_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def print(self, printer: Printer) -> None:
        printer.print_string(" " + memory_semantics(self.properties).value)
        scope = memory_scope(self.properties)
        if scope is not None:
            printer.print_string(" " + scope.value)
        printer.print_string(" ")
        printer.print_operand(self.view)
        printer.print_string("[")
        printer.print_list(self.index, printer.print_operand)
        printer.print_string(f"], {rmw_mode(self).value}, ")
        printer.print_operand(self.value)
        if self.token is not None:
            printer.print_string(" token = ")
            printer.print_operand(self.token)
        AsmFormat(printer).attr_dict_with_keyword(self)
        printer.print_string(" : ")
        print_cuda_tile_type(printer, self.value.type)
        printer.print_string(", ")
        print_cuda_tile_type(printer, self.view.type)
        from tileir.dialects.cuda_tile.ops.views import print_index_types

        print_index_types(printer, self.index)
        printer.print_string(" -> ")
        print_cuda_tile_type(printer, self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRedViewTkoOp:
        from tileir.dialects.cuda_tile.ops.views import parse_index_types

        props: dict[str, Attribute] = {}
        pos = parser.pos
        word = parser.parse_identifier()
        if word not in {m.value for m in MemoryOrderingSemantics}:
            parser.raise_error(
                f"invalid memory_ordering_semantics: '{word}'; expected one of: weak, relaxed, "
                "acquire, release, acq_rel",
                pos,
            )
        props["memory_ordering_semantics"] = i32_enum_attr(MemoryOrderingSemantics(word))
        pos = parser.pos
        scope = parser.parse_optional_identifier()
        if scope is not None:
            if scope not in {m.value for m in MemoryScope}:
                parser.raise_error(
                    f"invalid memory_scope: '{scope}'; expected one of: tl_blk, device, sys", pos
                )
            props["memory_scope"] = i32_enum_attr(MemoryScope(scope))
        view = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parse_operand_list(parser)
        parser.parse_punctuation("]")
        parser.parse_punctuation(",")
        pos = parser.pos
        mode = parser.parse_identifier()
        if mode not in {m.value for m in AtomicRMWMode}:
            parser.raise_error(
                f"unknown atomic RMW mode: '{mode}'; expected one of: and, or, xor, add, addf, "
                "max, min, umax, umin",
                pos,
            )
        props["mode"] = i32_enum_attr(AtomicRMWMode(mode))
        parser.parse_punctuation(",")
        value = parser.parse_unresolved_operand()
        token = parse_token_operand(parser)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_punctuation(":")
        value_t = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        view_t = parse_cuda_tile_type(parser)
        index_types = parse_index_types(parser, len(index))
        parser.parse_punctuation("->")
        token_t = parse_cuda_tile_type(parser)
        return cls.build(
            operands=[
                parser.resolve_operand(view, view_t),
                [parser.resolve_operand(o, t) for o, t in zip(index, index_types, strict=True)],
                parser.resolve_operand(value, value_t),
                [] if token is None else [parser.resolve_operand(token, TokenType())],
            ],
            result_types=[token_t],
            properties=props,
            attributes=dict(attrs.data) if attrs is not None else {},
        )

    def verify_(self) -> None:
        if self.memory_scope is None:
            raise self.op_error("requires attribute 'memory_scope'")
        vt = self.view.type
        check_type(self, self.view, "operand #0", "TileView instance", is_tile_view(vt))
        for i, idx in enumerate(self.index):
            check_tile_of(self, idx, f"operand #{i + 1}", INTEGER, variadic=True)
        check_tile_of(self, self.value, f"operand #{len(self.index) + 1}", ANY_ELEMENT)
        check_type(
            self,
            self.result_token,
            "result #0",
            TOKEN_TYPE,
            isinstance(self.result_token.type, TokenType),
        )
        assert isinstance(vt, TileViewType)
        if isinstance(vt, GatherScatterViewType):
            raise self.op_error("gather_scatter_view is not supported; use partition_view instead")
        if vt.padding is not None:
            raise self.op_error("views with padding_value are not supported for atomic reductions")
        tile = vt.view_tile_type()
        value_el = element_type(self.value.type)
        if tile.element_type != value_el:
            raise self.op_error(
                f"view element type ('{tile.element_type}') must match value element type "
                f"('{value_el}')"
            )
        value_shape = shape_of(self.value.type)
        if tile.dims != value_shape:
            from tileir.dialects.cuda_tile.types import shape_text

            raise self.op_error(
                f"view tile shape {shape_text(tile.dims)} must match value shape "
                f"{shape_text(value_shape)} for element-wise atomic operations"
            )
        mode = rmw_mode(self)
        if mode is AtomicRMWMode.XCHG:
            raise self.op_error("atomic_red_view_tko op cannot use xchg operation")
        error = rmw_mode_error(mode, value_el)
        if error is not None:
            raise self.op_error(error)
        if memory_semantics(self.properties) is not MemoryOrderingSemantics.RELAXED:
            raise self.op_error(
                "only 'relaxed' memory ordering is supported for view-based atomic reductions"
            )
        if memory_scope(self.properties) is MemoryScope.SYS:
            raise self.op_error(
                "memory scope 'sys' is not supported for view-based atomic reductions; use "
                "'tl_blk' or 'device' for TMA compatibility"
            )
        if len(self.index) != tile.rank:
            raise self.op_error(
                f"expected {tile.rank} index operand(s) for view with tile rank {tile.rank}, "
                f"got {len(self.index)}"
            )
        for i, idx in enumerate(self.index):
            t = idx.type
            assert isinstance(t, TileType)
            if t.rank != 0:
                from tileir.dialects.cuda_tile.types import shape_text

                raise self.op_error(
                    f"index operand {i} must be a scalar tile (rank 0), got shape "
                    f"{shape_text(t.dims)}"
                )


ATOMIC_OPS = [AtomicCASTkoOp, AtomicRMWTkoOp, AtomicRedViewTkoOp]
