"""Token-ordered memory access: masked load and store, atomic_cas, atomic_rmw.

Every op takes an optional input token and returns a successor token that follows the
input and this op's memory effect (seed 004, `sequence_memory_effect`).  Memory
semantics and scopes are cuda_tile's (`weak`, `relaxed device`, ...), stored as the
same i32 enum properties.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import AnyFloat, BFloat16Type, Float16Type, IntegerAttr, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect

from tileir.dialects.cuda_tile.attributes import (
    AtomicRMWMode,
    MemoryOrderingSemantics,
    MemoryScope,
    enum_of_i32_attr,
    i32_enum_attr,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa.ops.base import (
    TileAAOp,
    canonicalized_by,
    opt,
    parse_operand_list,
    parse_type_list,
)
from tileir.dialects.nv_tileaa.types import MEM_TOKEN, MemTokenType


class MemoryOrderedOp(TileAAOp):
    """Shared memory-model properties of the token-ordered memory ops."""

    def semantics(self) -> MemoryOrderingSemantics:
        return enum_of_i32_attr(
            MemoryOrderingSemantics, self.properties["memory_ordering_semantics"]
        )

    def scope(self) -> MemoryScope | None:
        s = self.properties.get("memory_scope")
        return None if s is None else enum_of_i32_attr(MemoryScope, s)

    def memory_properties(self) -> dict[str, Attribute]:
        """The semantics and scope properties, to carry over to a rewritten op."""
        return {k: v for k, v in self.properties.items() if k.startswith("memory_")}

    def input_token(self) -> SSAValue | None:
        token = self.operands[-1] if self.operands else None
        return token if token is not None and isinstance(token.type, MemTokenType) else None

    def check_pointers(self, value_name: str, value: SSAValue) -> PointerType:
        """The pointers are a pointer tile of `value`'s shape and element type."""
        ptr = self.operands[0]
        ptr_el = element_type(ptr.type)
        if not isinstance(ptr_el, PointerType):
            raise self.op_error(f"expected pointers, got {ptr.type}")
        if shape_of(value.type) != shape_of(ptr.type) or element_type(value.type) != ptr_el.pointee:
            raise self.op_error(
                f"{value_name} type {value.type} does not match the pointers {ptr.type}"
            )
        return ptr_el

    def check_mask(self, mask: SSAValue | None) -> None:
        if mask is not None and (
            shape_of(mask.type) != shape_of(self.operands[0].type)
            or element_type(mask.type) != IntegerType(1)
        ):
            raise self.op_error(f"mask must be i1 of the pointers' shape, got {mask.type}")

    def check_semantics(self, allowed: Sequence[MemoryOrderingSemantics]) -> None:
        try:
            sem = self.semantics()
            self.scope()
        except Exception as e:  # an out-of-range enum index
            raise self.op_error(str(e)) from e
        if sem not in allowed:
            raise self.op_error(
                f"memory ordering '{sem.value}' is not allowed (expected one of "
                f"{', '.join(s.value for s in allowed)})"
            )
        if sem is MemoryOrderingSemantics.WEAK and self.scope() is not None:
            raise self.op_error("weak accesses take no memory scope")


def _print_semantics(printer: Printer, op: MemoryOrderedOp) -> None:
    printer.print_string(" " + op.semantics().value)
    if (scope := op.scope()) is not None:
        printer.print_string(" " + scope.value)


def _parse_semantics(parser: Parser) -> dict[str, Attribute]:
    from tileir.dialects.cuda_tile.ops.memory import parse_memory_attributes

    props: dict[str, Attribute] = {}
    parse_memory_attributes(parser, props)
    return props


def _memory_props(
    semantics: MemoryOrderingSemantics, scope: MemoryScope | None
) -> dict[str, Attribute]:
    props: dict[str, Attribute] = {"memory_ordering_semantics": i32_enum_attr(semantics)}
    if scope is not None:
        props["memory_scope"] = i32_enum_attr(scope)
    return props


def _parse_token(parser: Parser) -> UnresolvedOperand | None:
    if parser.parse_optional_keyword("token") is not None:
        return parser.parse_unresolved_operand()
    return None


def _print_tail(
    printer: Printer, op: MemoryOrderedOp, operands: Sequence[SSAValue], token: SSAValue | None
) -> None:
    printer.print_string(" ")
    printer.print_list(operands, printer.print_operand)
    if token is not None:
        printer.print_string(" token ")
        printer.print_operand(token)
    printer.print_op_attributes(op.attributes)
    printer.print_string(" : ")
    printer.print_list([v.type for v in operands], printer.print_attribute)


def _resolve(
    parser: Parser, operands: Sequence[UnresolvedOperand], types: Sequence[Attribute]
) -> list[SSAValue]:
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def _token_operand(parser: Parser, token: UnresolvedOperand | None) -> list[SSAValue]:
    return [] if token is None else [parser.resolve_operand(token, MEM_TOKEN)]


_LOAD_SEMANTICS = (
    MemoryOrderingSemantics.WEAK,
    MemoryOrderingSemantics.RELAXED,
    MemoryOrderingSemantics.ACQUIRE,
)
_STORE_SEMANTICS = (
    MemoryOrderingSemantics.WEAK,
    MemoryOrderingSemantics.RELAXED,
    MemoryOrderingSemantics.RELEASE,
)
_ATOMIC_SEMANTICS = (
    MemoryOrderingSemantics.RELAXED,
    MemoryOrderingSemantics.ACQUIRE,
    MemoryOrderingSemantics.RELEASE,
    MemoryOrderingSemantics.ACQ_REL,
)


@irdl_op_definition
class LoadOp(MemoryOrderedOp):
    """`%x, %t1 = nv_tileaa.load weak %ptrs, %mask, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>`

    Loads `*ptrs[i]` where `mask[i]` holds and yields `other[i]` elsewhere (undefined
    without `other`).  The result token follows the input token and this read.
    Semantics: weak, relaxed or acquire."""

    name = "nv_tileaa.load"
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    ptr = operand_def()
    mask = opt_operand_def()
    other = opt_operand_def()
    token = opt_operand_def(MemTokenType)
    result = result_def()
    result_token = result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), canonicalized_by("CanonicalizeMaskedLoad"))

    def __init__(
        self,
        ptr: SSAValue,
        mask: SSAValue | None,
        other: SSAValue | None,
        token: SSAValue | None,
        result_type: Attribute,
        semantics: MemoryOrderingSemantics = MemoryOrderingSemantics.WEAK,
        scope: MemoryScope | None = None,
    ):
        super().__init__(
            operands=[ptr, opt(mask), opt(other), opt(token)],
            result_types=[result_type, MEM_TOKEN],
            properties=_memory_props(semantics, scope),
        )

    def mask_and_other(self) -> list[SSAValue]:
        return [v for v in (self.mask, self.other) if v is not None]

    def print(self, printer: Printer) -> None:
        _print_semantics(printer, self)
        _print_tail(printer, self, [self.ptr, *self.mask_and_other()], self.token)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        props = _parse_semantics(parser)
        operands = parse_operand_list(parser)
        token = _parse_token(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        if len(types) != len(operands) or len(operands) > 3:
            parser.raise_error("expected 1 to 3 operands with as many types")
        values = _resolve(parser, operands, types)
        return cls.build(
            operands=[values[0], values[1:2], values[2:3], _token_operand(parser, token)],
            result_types=[result_type, MEM_TOKEN],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        self.check_semantics(_LOAD_SEMANTICS)
        self.check_pointers("result", self.result)
        self.check_mask(self.mask)
        if self.other is not None:
            if self.mask is None:
                raise self.op_error("'other' requires a mask")
            if self.other.type != self.result.type:
                raise self.op_error(
                    f"'other' must have the result type {self.result.type}, got {self.other.type}"
                )


@irdl_op_definition
class StoreOp(MemoryOrderedOp):
    """`%t1 = nv_tileaa.store weak %ptrs, %v, %mask token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>`

    Writes `value[i]` to `*ptrs[i]` where `mask[i]` holds.  Semantics: weak, relaxed or
    release."""

    name = "nv_tileaa.store"
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(MemTokenType)
    result_token = result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect(), canonicalized_by("CanonicalizeMaskedStore"))

    def __init__(
        self,
        ptr: SSAValue,
        value: SSAValue,
        mask: SSAValue | None,
        token: SSAValue | None,
        semantics: MemoryOrderingSemantics = MemoryOrderingSemantics.WEAK,
        scope: MemoryScope | None = None,
    ):
        super().__init__(
            operands=[ptr, value, opt(mask), opt(token)],
            result_types=[MEM_TOKEN],
            properties=_memory_props(semantics, scope),
        )

    def print(self, printer: Printer) -> None:
        _print_semantics(printer, self)
        _print_tail(printer, self, [self.ptr, self.value, *opt(self.mask)], self.token)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        props = _parse_semantics(parser)
        operands = parse_operand_list(parser)
        token = _parse_token(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        if len(types) != len(operands) or not 2 <= len(operands) <= 3:
            parser.raise_error("expected 2 or 3 operands with as many types")
        values = _resolve(parser, operands, types)
        return cls.build(
            operands=[values[0], values[1], values[2:3], _token_operand(parser, token)],
            result_types=[MEM_TOKEN],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        self.check_semantics(_STORE_SEMANTICS)
        self.check_pointers("value", self.value)
        self.check_mask(self.mask)


# ---------------------------------------------------------------------------
# Atomics.
# ---------------------------------------------------------------------------

INTEGER_MODES = frozenset(
    {
        AtomicRMWMode.AND,
        AtomicRMWMode.OR,
        AtomicRMWMode.XOR,
        AtomicRMWMode.ADD,
        AtomicRMWMode.MAX,
        AtomicRMWMode.MIN,
        AtomicRMWMode.UMAX,
        AtomicRMWMode.UMIN,
    }
)


def _atomic_width_ok(el: Attribute, allow_half: bool) -> bool:
    if isinstance(el, IntegerType):
        return el.width.data in (32, 64)
    if isinstance(el, Float16Type | BFloat16Type):
        return allow_half
    return isinstance(el, AnyFloat) and el.bitwidth in (32, 64)


@irdl_op_definition
class AtomicRmwOp(MemoryOrderedOp):
    """`%old, %t1 = nv_tileaa.atomic_rmw relaxed device add %ptrs, %v, %mask token %t : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>, tensor<16xi1>`

    Atomically replaces `*ptrs[i]` with `old MODE v[i]` where `mask[i]` holds and returns
    the old values (undefined where the mask is off).  Modes: and, or, xor, add, max, min,
    umax, umin on i32/i64; addf on f16, bf16, f32, f64; xchg on 32- and 64-bit values.
    Semantics: relaxed, acquire, release or acq_rel."""

    name = "nv_tileaa.atomic_rmw"
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    mode = prop_def(IntegerAttr)
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(MemTokenType)
    result = result_def()
    result_token = result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), canonicalized_by("FoldAtomicRmw"))

    def __init__(
        self,
        ptr: SSAValue,
        mode: AtomicRMWMode,
        value: SSAValue,
        mask: SSAValue | None,
        token: SSAValue | None,
        semantics: MemoryOrderingSemantics = MemoryOrderingSemantics.RELAXED,
        scope: MemoryScope | None = MemoryScope.DEVICE,
    ):
        props = _memory_props(semantics, scope)
        props["mode"] = i32_enum_attr(mode)
        super().__init__(
            operands=[ptr, value, opt(mask), opt(token)],
            result_types=[value.type, MEM_TOKEN],
            properties=props,
        )

    def rmw_mode(self) -> AtomicRMWMode:
        return enum_of_i32_attr(AtomicRMWMode, self.mode)

    def print(self, printer: Printer) -> None:
        _print_semantics(printer, self)
        printer.print_string(" " + self.rmw_mode().value)
        _print_tail(printer, self, [self.ptr, self.value, *opt(self.mask)], self.token)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRmwOp:
        props = _parse_semantics(parser)
        modes = [m.value for m in AtomicRMWMode]
        word = parser.parse_optional_identifier()
        if word not in modes:
            parser.raise_error(f"expected an atomic mode ({', '.join(modes)}), got {word!r}")
        props["mode"] = i32_enum_attr(AtomicRMWMode(word))
        operands = parse_operand_list(parser)
        token = _parse_token(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        if len(types) != len(operands) or not 2 <= len(operands) <= 3:
            parser.raise_error("expected 2 or 3 operands with as many types")
        values = _resolve(parser, operands, types)
        return cls.build(
            operands=[values[0], values[1], values[2:3], _token_operand(parser, token)],
            result_types=[values[1].type, MEM_TOKEN],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        self.check_semantics(_ATOMIC_SEMANTICS)
        try:
            mode = self.rmw_mode()
        except Exception as e:
            raise self.op_error(str(e)) from e
        self.check_pointers("value", self.value)
        self.check_mask(self.mask)
        if self.result.type != self.value.type:
            raise self.op_error(
                f"result type {self.result.type} must be the value type {self.value.type}"
            )
        el = element_type(self.value.type)
        if mode in INTEGER_MODES:
            ok = isinstance(el, IntegerType) and _atomic_width_ok(el, False)
        elif mode is AtomicRMWMode.ADDF:
            ok = isinstance(el, AnyFloat) and _atomic_width_ok(el, True)
        else:
            ok = _atomic_width_ok(el, False)
        if not ok:
            raise self.op_error(f"atomic mode '{mode.value}' does not apply to {el}")


@irdl_op_definition
class AtomicCasOp(MemoryOrderedOp):
    """`%old, %t1 = nv_tileaa.atomic_cas acq_rel device %ptrs, %cmp, %v token %t : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>, tensor<16xi32>`

    Atomically writes `v[i]` to `*ptrs[i]` if it holds `cmp[i]` (where `mask[i]` holds)
    and returns the old values.  32- and 64-bit integers and floats (floats compare
    bitwise).  Semantics: relaxed, acquire, release or acq_rel."""

    name = "nv_tileaa.atomic_cas"
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    ptr = operand_def()
    compare = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(MemTokenType)
    result = result_def()
    result_token = result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect(), canonicalized_by("FoldAtomicCas"))

    def __init__(
        self,
        ptr: SSAValue,
        compare: SSAValue,
        value: SSAValue,
        mask: SSAValue | None,
        token: SSAValue | None,
        semantics: MemoryOrderingSemantics = MemoryOrderingSemantics.ACQ_REL,
        scope: MemoryScope | None = MemoryScope.DEVICE,
    ):
        super().__init__(
            operands=[ptr, compare, value, opt(mask), opt(token)],
            result_types=[value.type, MEM_TOKEN],
            properties=_memory_props(semantics, scope),
        )

    def print(self, printer: Printer) -> None:
        _print_semantics(printer, self)
        _print_tail(
            printer, self, [self.ptr, self.compare, self.value, *opt(self.mask)], self.token
        )

    @classmethod
    def parse(cls, parser: Parser) -> AtomicCasOp:
        props = _parse_semantics(parser)
        operands = parse_operand_list(parser)
        token = _parse_token(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parse_type_list(parser)
        if len(types) != len(operands) or not 3 <= len(operands) <= 4:
            parser.raise_error("expected 3 or 4 operands with as many types")
        values = _resolve(parser, operands, types)
        return cls.build(
            operands=[values[0], values[1], values[2], values[3:4], _token_operand(parser, token)],
            result_types=[values[2].type, MEM_TOKEN],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        self.check_semantics(_ATOMIC_SEMANTICS)
        self.check_pointers("value", self.value)
        if self.compare.type != self.value.type:
            raise self.op_error(
                f"compare type {self.compare.type} must be the value type {self.value.type}"
            )
        self.check_mask(self.mask)
        if self.result.type != self.value.type:
            raise self.op_error(
                f"result type {self.result.type} must be the value type {self.value.type}"
            )
        el = element_type(self.value.type)
        if not _atomic_width_ok(el, False):
            raise self.op_error(f"atomic_cas needs 32- or 64-bit elements, got {el}")


MEMORY_OPS: list[type[TileAAOp]] = [LoadOp, StoreOp, AtomicCasOp, AtomicRmwOp]
