"""Pointer: addptr and assume, the pointer arithmetic and the facts about values that
cuda_tile's `offset` and `assume` (nv_tileaa's `addptr` and `assume`) become (tileir's
addition to seed 003's roster).

Seed 003 addresses memory through tiled views and coordinates; it has no op that
advances a pointer, yet cuTile kernels compute their pointer tiles element by element
(`base + offsets`), and the pointer ops of the tiled memops family (`load`, `store`,
`atomic_rmw`, ...) and the gmem `view` of a pointer tile take such tiles.  Nor has it a
place for the facts a kernel states about its values (`assume div_by<16>`,
`bounded<0, ?>`): the axis analysis reads them to choose vector widths, in
`convert-tileaa-to-tileas` and again in `tileas-assign-layouts`.  Both keep their
nv_tileaa semantics (seed 004's "Pointer and Shape Folds" ran on them before the
boundary) and only gain layouts: `tileas-assign-layouts` gives an addptr's offsets its
result's layout, and `convert-tileas-to-llvm` computes one address per register and
lets an assumed value pass through.
"""

from __future__ import annotations

from typing import ClassVar

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
)
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.syntax import bare_tile_syntax
from tileir.dialects.nv_tileas.verifiers import ADDPTR_OPERANDS, ASSUME_PREDICATE


@bare_tile_syntax
@irdl_op_definition
class AddPtrOp(TileASOp):
    """`%q = nv_tileas.addptr %p, %off : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi64>`

    Advances each pointer by the signed offset of the same coordinate, in elements of
    its pointee type (cuda_tile's `offset`); a scalar pointer by a scalar offset too.
    The result has the pointers' type."""

    name = "nv_tileas.addptr"
    P: ClassVar = VarConstraint("P", AnyAttr())
    ptr = operand_def(P)
    offset = operand_def()
    result = result_def(P)
    assembly_format = "$ptr `,` $offset attr-dict `:` type($ptr) `,` type($offset)"
    traits = traits_def(Pure())
    RULES: ClassVar[tuple[str, ...]] = (ADDPTR_OPERANDS,)

    def __init__(self, ptr: SSAValue, offset: SSAValue):
        super().__init__(operands=[ptr, offset], result_types=[ptr.type])

    def verify_(self) -> None:
        check_pointer_offsets(self, self.ptr.type, self.offset.type)

    @property
    def pointee(self) -> Attribute:
        el = element_type(self.ptr.type)
        assert isinstance(el, PointerType)
        return el.pointee


@bare_tile_syntax
@irdl_op_definition
class AssumeOp(TileASOp):
    """`%a = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>`

    Returns its operand and records a fact about it with cuda_tile's predicate attribute
    (`div_by`, `bounded`, `same_elements`), unchanged, for the analyses that read it
    (pointer alignment, vector widths)."""

    name = "nv_tileas.assume"
    V: ClassVar = VarConstraint("V", AnyAttr())
    value = operand_def(V)
    predicate = prop_def(DivByAttr | SameElementsAttr | BoundedAttr)
    result = result_def(V)
    assembly_format = "$value `,` $predicate attr-dict `:` type($value)"
    traits = traits_def(Pure())
    RULES: ClassVar[tuple[str, ...]] = (ASSUME_PREDICATE,)

    def __init__(self, value: SSAValue, predicate: Attribute):
        super().__init__(
            operands=[value], properties={"predicate": predicate}, result_types=[value.type]
        )

    def verify_(self) -> None:
        check_assumption(self, self.predicate, self.value.type)


POINTER_OPS: list[type[TileASOp]] = [AddPtrOp, AssumeOp]
