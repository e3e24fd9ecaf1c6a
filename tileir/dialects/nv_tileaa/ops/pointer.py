"""Pointer arithmetic, facts and selection: addptr, assume, select."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.attributes import BoundedAttr, DivByAttr, SameElementsAttr
from tileir.dialects.cuda_tile.carriers import (
    check_assumption,
    check_pointer_offsets,
    element_type,
    shape_of,
)
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileaa.ops.base import TileAAOp, canonicalized_by


@irdl_op_definition
class AddPtrOp(TileAAOp):
    """`%q = nv_tileaa.addptr %p, %off : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi32>`

    Advances each pointer by `offset` elements of its pointee type (the offset is
    signed; pointers and offsets have one shape)."""

    name = "nv_tileaa.addptr"
    P: ClassVar = VarConstraint("P", AnyAttr())
    ptr = operand_def(P)
    offset = operand_def()
    result = result_def(P)
    assembly_format = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)"
    traits = traits_def(Pure(), canonicalized_by("FuseAddPtrChain"))

    def __init__(self, ptr: SSAValue, offset: SSAValue):
        super().__init__(operands=[ptr, offset], result_types=[ptr.type])

    def verify_(self) -> None:
        check_pointer_offsets(self, self.ptr.type, self.offset.type)

    @property
    def pointee(self) -> Attribute:
        el = element_type(self.ptr.type)
        assert isinstance(el, PointerType)
        return el.pointee


@irdl_op_definition
class AssumeOp(TileAAOp):
    """`%a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>`

    Returns its operand and records a fact about it (divisibility, bounds, equal
    elements) that analyses such as pointer alignment read."""

    name = "nv_tileaa.assume"
    V: ClassVar = VarConstraint("V", AnyAttr())
    value = operand_def(V)
    predicate = prop_def(DivByAttr | SameElementsAttr | BoundedAttr)
    result = result_def(V)
    assembly_format = "$value `,` $predicate attr-dict `:` type($value)"
    traits = traits_def(Pure(), canonicalized_by("PushAssumeThroughSplat"))

    def __init__(self, value: SSAValue, predicate: Attribute):
        super().__init__(
            operands=[value], properties={"predicate": predicate}, result_types=[value.type]
        )

    def verify_(self) -> None:
        check_assumption(self, self.predicate, self.value.type)


@irdl_op_definition
class SelectOp(TileAAOp):
    """`%r = nv_tileaa.select %c, %t, %f : i1, f32`

    Elementwise choice: `t[i]` where `c[i]` holds, else `f[i]`.  On scalars or on
    tensors; the condition is i1 of the result's shape."""

    name = "nv_tileaa.select"
    T: ClassVar = VarConstraint("T", AnyAttr())
    cond = operand_def()
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)
    assembly_format = (
        "$cond `,` $true_value `,` $false_value attr-dict `:` type($cond) `,` type($result)"
    )
    traits = traits_def(Pure())

    def __init__(self, cond: SSAValue, true_value: SSAValue, false_value: SSAValue):
        super().__init__(operands=[cond, true_value, false_value], result_types=[true_value.type])

    def verify_(self) -> None:
        if element_type(self.cond.type) != IntegerType(1):
            raise self.op_error(f"condition must be i1, got {self.cond.type}")
        if shape_of(self.cond.type) != shape_of(self.result.type):
            raise self.op_error(
                f"condition shape {list(shape_of(self.cond.type))} differs from the value shape "
                f"{list(shape_of(self.result.type))}"
            )


POINTER_OPS: list[type[TileAAOp]] = [AddPtrOp, AssumeOp, SelectOp]
