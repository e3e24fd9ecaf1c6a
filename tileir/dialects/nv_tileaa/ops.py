"""Ops of nv_tileaa, the alias-aware tile dialect (seed 004).

At this level a tile is a builtin `tensor<...>` (a rank-0 tile is its bare element
type), memory is addressed by tensors of `!cuda_tile.ptr<T>` built with `addptr`, and
memory effects are ordered by `!nv_tileaa.mem_token` values.  The elementwise
arithmetic stays in cuda_tile ops, which accept these builtin carriers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, IntegerType, TensorType, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, NoMemoryEffect, Pure
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.cuda_tile.attributes import (
    BoundedAttr,
    DivByAttr,
    MemoryOrderingSemantics,
    MemoryScope,
    SameElementsAttr,
    enum_of_i32_attr,
    i32_enum_attr,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa.types import MemTokenType


class TileAAOp(IRDLOperation):
    def op_error(self, message: str) -> VerifyException:
        return VerifyException(f"'{self.name}' op {message}")


# ---------------------------------------------------------------------------
# Memory tokens (seed 004, "Mem-Token Lifecycle").
# ---------------------------------------------------------------------------


@irdl_op_definition
class CreateMemTokenOp(TileAAOp):
    """Starts an ordering chain (hop one of `cuda_tile.make_token`)."""

    name = "nv_tileaa.create_mem_token"
    result = result_def(MemTokenType)
    assembly_format = "attr-dict `:` type($result)"
    traits = traits_def(NoMemoryEffect())

    def __init__(self):
        super().__init__(result_types=[MemTokenType()])


@irdl_op_definition
class JoinMemTokenOp(TileAAOp):
    """A token complete only when every input token is (hop one of
    `cuda_tile.join_tokens`)."""

    name = "nv_tileaa.join_mem_token"
    tokens = var_operand_def(MemTokenType)
    result = result_def(MemTokenType)
    assembly_format = "$tokens attr-dict `:` type($result)"
    traits = traits_def(NoMemoryEffect())

    def __init__(self, tokens: Sequence[SSAValue]):
        super().__init__(operands=[list(tokens)], result_types=[MemTokenType()])

    def verify_(self) -> None:
        if len(self.tokens) < 2:
            raise self.op_error(f"expects at least 2 tokens, got {len(self.tokens)}")


# ---------------------------------------------------------------------------
# Shape wrappers.
# ---------------------------------------------------------------------------


class UnaryShapeOp(TileAAOp):
    """`%src : S -> R`."""

    src = operand_def()
    result = result_def()
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def check_elements(self) -> None:
        if element_type(self.src.type) != element_type(self.result.type):
            raise self.op_error(
                f"element type mismatch: {element_type(self.src.type)} vs "
                f"{element_type(self.result.type)}"
            )
        if not isinstance(self.result.type, TensorType):
            raise self.op_error(f"result must be a tensor, got {self.result.type}")


@irdl_op_definition
class SplatOp(TileAAOp):
    """`%x : E -> tensor<S x E>`: a tensor with every element equal to the scalar."""

    name = "nv_tileaa.splat"
    src = operand_def()
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: TensorType):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        if self.src.type != element_type(self.result.type):
            raise self.op_error(
                f"operand type {self.src.type} must be the element type of {self.result.type}"
            )


@irdl_op_definition
class BroadcastOp(UnaryShapeOp):
    """Replicates the unit dimensions of the source to the result's extents."""

    name = "nv_tileaa.broadcast"

    def verify_(self) -> None:
        self.check_elements()
        src, res = shape_of(self.src.type), shape_of(self.result.type)
        if len(src) != len(res) or any(s not in (1, r) for s, r in zip(src, res, strict=True)):
            raise self.op_error(f"cannot broadcast {list(src)} to {list(res)}")


@irdl_op_definition
class ExpandDimsOp(TileAAOp):
    """Inserts a unit dimension at `axis`."""

    name = "nv_tileaa.expand_dims"
    src = operand_def()
    axis = prop_def(IntegerAttr)
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, axis: int):
        shape = list(shape_of(src.type))
        shape.insert(axis, 1)
        super().__init__(
            operands=[src],
            properties={"axis": IntegerAttr(axis, i32)},
            result_types=[TensorType(element_type(src.type), shape)],
        )

    def verify_(self) -> None:
        src = list(shape_of(self.src.type))
        axis = self.axis.value.data
        if not 0 <= axis <= len(src):
            raise self.op_error(f"axis {axis} out of range for rank {len(src)}")
        src.insert(axis, 1)
        if list(shape_of(self.result.type)) != src:
            raise self.op_error(f"expected result shape {src}, got {list(shape_of(self.result.type))}")


@irdl_op_definition
class ViewOp(UnaryShapeOp):
    """Reinterprets the elements (row-major) with another shape of the same size."""

    name = "nv_tileaa.view"

    def verify_(self) -> None:
        self.check_elements()
        import math

        if math.prod(shape_of(self.src.type)) != math.prod(shape_of(self.result.type)):
            raise self.op_error("source and result must have the same number of elements")


# ---------------------------------------------------------------------------
# Pointer arithmetic.
# ---------------------------------------------------------------------------


@irdl_op_definition
class AddPtrOp(TileAAOp):
    """`%ptr, %offset : P, I`: advances each pointer by `offset` elements of its
    pointee type."""

    name = "nv_tileaa.addptr"
    P: ClassVar = VarConstraint("P", AnyAttr())
    ptr = operand_def(P)
    offset = operand_def()
    result = result_def(P)
    assembly_format = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)"
    traits = traits_def(Pure())

    def __init__(self, ptr: SSAValue, offset: SSAValue):
        super().__init__(operands=[ptr, offset], result_types=[ptr.type])

    def verify_(self) -> None:
        if not isinstance(element_type(self.ptr.type), PointerType):
            raise self.op_error(f"expected a pointer or tensor of pointers, got {self.ptr.type}")
        if not isinstance(element_type(self.offset.type), IntegerType):
            raise self.op_error(f"expected integer offsets, got {self.offset.type}")
        if shape_of(self.ptr.type) != shape_of(self.offset.type):
            raise self.op_error("pointer and offset shapes differ")

    @property
    def pointee(self) -> Attribute:
        el = element_type(self.ptr.type)
        assert isinstance(el, PointerType)
        return el.pointee


# ---------------------------------------------------------------------------
# assume
# ---------------------------------------------------------------------------


@irdl_op_definition
class AssumeOp(TileAAOp):
    """Returns its operand and records a fact about it (divisibility, bounds, equal
    elements) that analyses such as pointer alignment read."""

    name = "nv_tileaa.assume"
    V: ClassVar = VarConstraint("V", AnyAttr())
    value = operand_def(V)
    predicate = prop_def(DivByAttr | SameElementsAttr | BoundedAttr)
    result = result_def(V)
    assembly_format = "$value `,` $predicate attr-dict `:` type($value)"
    traits = traits_def(Pure())

    def __init__(self, value: SSAValue, predicate: Attribute):
        super().__init__(
            operands=[value], properties={"predicate": predicate}, result_types=[value.type]
        )


# ---------------------------------------------------------------------------
# Masked memory access.
# ---------------------------------------------------------------------------


class MemoryOrderedOp(TileAAOp):
    """Shared memory-model properties of the token-ordered memory ops."""

    def semantics(self) -> MemoryOrderingSemantics:
        return enum_of_i32_attr(MemoryOrderingSemantics, self.properties["memory_ordering_semantics"])

    def scope(self) -> MemoryScope | None:
        s = self.properties.get("memory_scope")
        return None if s is None else enum_of_i32_attr(MemoryScope, s)


def _print_semantics(printer: Printer, op: MemoryOrderedOp) -> None:
    printer.print_string(" " + op.semantics().value)
    if (scope := op.scope()) is not None:
        printer.print_string(" " + scope.value)


def _parse_semantics(parser: Parser) -> dict[str, Attribute]:
    from tileir.dialects.cuda_tile.ops.memory import parse_memory_attributes

    props: dict[str, Attribute] = {}
    parse_memory_attributes(parser, props)
    return props


@irdl_op_definition
class LoadOp(MemoryOrderedOp):
    """`SEM [SCOPE] %ptrs[, %mask[, %other]] [token %t] : P[, M[, T]] -> T, token`.

    Loads `*ptrs[i]` where `mask[i]` holds and yields `other[i]` elsewhere (undefined
    without `other`).  The result token follows the input token and this read."""

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
    traits = traits_def(MemoryReadEffect())

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
        props: dict[str, Attribute] = {"memory_ordering_semantics": i32_enum_attr(semantics)}
        if scope is not None:
            props["memory_scope"] = i32_enum_attr(scope)
        super().__init__(
            operands=[ptr, _opt(mask), _opt(other), _opt(token)],
            result_types=[result_type, MemTokenType()],
            properties=props,
        )

    def print(self, printer: Printer) -> None:
        _print_semantics(printer, self)
        printer.print_string(" ")
        printer.print_list([self.ptr, *self.mask_and_other()], printer.print_operand)
        if self.token is not None:
            printer.print_string(" token ")
            printer.print_operand(self.token)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list(
            [v.type for v in (self.ptr, *self.mask_and_other())], printer.print_attribute
        )
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def mask_and_other(self) -> list[SSAValue]:
        return [v for v in (self.mask, self.other) if v is not None]

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        props = _parse_semantics(parser)
        operands = [parser.parse_unresolved_operand()]
        while parser.parse_optional_punctuation(","):
            operands.append(parser.parse_unresolved_operand())
        token = None
        if parser.parse_optional_keyword("token") is not None:
            token = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        while parser.parse_optional_punctuation(","):
            types.append(parser.parse_type())
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        if len(types) != len(operands) or len(operands) > 3:
            parser.raise_error("expected 1 to 3 operands with as many types")
        values = [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]
        op = cls.build(
            operands=[
                values[0],
                values[1:2],
                values[2:3],
                [] if token is None else [parser.resolve_operand(token, MemTokenType())],
            ],
            result_types=[result_type, MemTokenType()],
            properties=props,
            attributes=attrs,
        )
        return op

    def verify_(self) -> None:
        ptr_el = element_type(self.ptr.type)
        if not isinstance(ptr_el, PointerType):
            raise self.op_error(f"expected pointers, got {self.ptr.type}")
        shape = shape_of(self.ptr.type)
        if shape_of(self.result.type) != shape or element_type(self.result.type) != ptr_el.pointee:
            raise self.op_error(
                f"result type {self.result.type} does not match the pointers {self.ptr.type}"
            )
        if self.mask is not None and (
            shape_of(self.mask.type) != shape or element_type(self.mask.type) != IntegerType(1)
        ):
            raise self.op_error(f"mask must be i1 of the pointers' shape, got {self.mask.type}")
        if self.other is not None:
            if self.mask is None:
                raise self.op_error("'other' requires a mask")
            if self.other.type != self.result.type:
                raise self.op_error(
                    f"'other' must have the result type {self.result.type}, got {self.other.type}"
                )


@irdl_op_definition
class StoreOp(MemoryOrderedOp):
    """`SEM [SCOPE] %ptrs, %value[, %mask] [token %t] : P, T[, M] -> token`.

    Writes `value[i]` to `*ptrs[i]` where `mask[i]` holds."""

    name = "nv_tileaa.store"
    memory_ordering_semantics = prop_def(IntegerAttr)
    memory_scope = opt_prop_def(IntegerAttr)
    ptr = operand_def()
    value = operand_def()
    mask = opt_operand_def()
    token = opt_operand_def(MemTokenType)
    result_token = result_def(MemTokenType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(MemoryWriteEffect())

    def __init__(
        self,
        ptr: SSAValue,
        value: SSAValue,
        mask: SSAValue | None,
        token: SSAValue | None,
        semantics: MemoryOrderingSemantics = MemoryOrderingSemantics.WEAK,
        scope: MemoryScope | None = None,
    ):
        props: dict[str, Attribute] = {"memory_ordering_semantics": i32_enum_attr(semantics)}
        if scope is not None:
            props["memory_scope"] = i32_enum_attr(scope)
        super().__init__(
            operands=[ptr, value, _opt(mask), _opt(token)],
            result_types=[MemTokenType()],
            properties=props,
        )

    def print(self, printer: Printer) -> None:
        _print_semantics(printer, self)
        printer.print_string(" ")
        operands = [self.ptr, self.value, *([self.mask] if self.mask is not None else [])]
        printer.print_list(operands, printer.print_operand)
        if self.token is not None:
            printer.print_string(" token ")
            printer.print_operand(self.token)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([v.type for v in operands], printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        props = _parse_semantics(parser)
        operands = [parser.parse_unresolved_operand()]
        while parser.parse_optional_punctuation(","):
            operands.append(parser.parse_unresolved_operand())
        token = None
        if parser.parse_optional_keyword("token") is not None:
            token = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = [parser.parse_type()]
        while parser.parse_optional_punctuation(","):
            types.append(parser.parse_type())
        if len(types) != len(operands) or not 2 <= len(operands) <= 3:
            parser.raise_error("expected 2 or 3 operands with as many types")
        values = [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]
        return cls.build(
            operands=[
                values[0],
                values[1],
                values[2:3],
                [] if token is None else [parser.resolve_operand(token, MemTokenType())],
            ],
            result_types=[MemTokenType()],
            properties=props,
            attributes=attrs,
        )

    def verify_(self) -> None:
        ptr_el = element_type(self.ptr.type)
        if not isinstance(ptr_el, PointerType):
            raise self.op_error(f"expected pointers, got {self.ptr.type}")
        shape = shape_of(self.ptr.type)
        if shape_of(self.value.type) != shape or element_type(self.value.type) != ptr_el.pointee:
            raise self.op_error(
                f"value type {self.value.type} does not match the pointers {self.ptr.type}"
            )
        if self.mask is not None and (
            shape_of(self.mask.type) != shape or element_type(self.mask.type) != IntegerType(1)
        ):
            raise self.op_error(f"mask must be i1 of the pointers' shape, got {self.mask.type}")


def _opt(v: SSAValue | None) -> list[SSAValue]:
    return [] if v is None else [v]


OPS = [
    CreateMemTokenOp,
    JoinMemTokenOp,
    SplatOp,
    BroadcastOp,
    ExpandDimsOp,
    ViewOp,
    AddPtrOp,
    AssumeOp,
    LoadOp,
    StoreOp,
]

_ = i32
