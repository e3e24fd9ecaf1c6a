"""Shape wrappers: splat, broadcast, expand_dims, view and extract.

They move no data between memory and registers; canonicalization removes the ones
that do not change the logical element stream (seed 004, "Pointer and Shape Folds").
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import IntegerAttr, TensorType, i32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa.ops.base import TileAAOp, canonicalized_by


class UnaryShapeOp(TileAAOp):
    """`%src : S -> R`."""

    src = operand_def()
    result = result_def()
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def check_elements(self) -> None:
        if not isinstance(self.result.type, TensorType):
            raise self.op_error(f"result must be a tensor, got {self.result.type}")
        if element_type(self.src.type) != element_type(self.result.type):
            raise self.op_error(
                f"element type mismatch: {element_type(self.src.type)} vs "
                f"{element_type(self.result.type)}"
            )


@irdl_op_definition
class SplatOp(TileAAOp):
    """`%s = nv_tileaa.splat %x : f32 -> tensor<16x16xf32>`

    A tensor with every element equal to the scalar operand."""

    name = "nv_tileaa.splat"
    src = operand_def()
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure(), canonicalized_by("PushSelectThroughSplat"))

    def __init__(self, src: SSAValue, result_type: TensorType[Attribute]):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        if self.src.type != element_type(self.result.type):
            raise self.op_error(
                f"operand type {self.src.type} must be the element type of {self.result.type}"
            )


@irdl_op_definition
class BroadcastOp(UnaryShapeOp):
    """`%b = nv_tileaa.broadcast %x : tensor<1x16xf32> -> tensor<8x16xf32>`

    Replicates the unit dimensions of the source to the result's extents (same rank)."""

    name = "nv_tileaa.broadcast"
    traits = traits_def(Pure(), canonicalized_by("FoldBroadcastOfSplat"))

    def verify_(self) -> None:
        self.check_elements()
        src, res = shape_of(self.src.type), shape_of(self.result.type)
        if len(src) != len(res) or any(s not in (1, r) for s, r in zip(src, res, strict=True)):
            raise self.op_error(f"cannot broadcast {list(src)} to {list(res)}")


@irdl_op_definition
class ExpandDimsOp(TileAAOp):
    """`%e = nv_tileaa.expand_dims %x {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>`

    Inserts a unit dimension at `axis`."""

    name = "nv_tileaa.expand_dims"
    src = operand_def()
    axis = prop_def(IntegerAttr)
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure(), canonicalized_by("FoldExpandDimsOfSplat"))

    def __init__(self, src: SSAValue, axis: int):
        shape = list(shape_of(src.type))
        shape.insert(axis, 1)
        super().__init__(
            operands=[src],
            properties={"axis": IntegerAttr(axis, i32)},
            result_types=[TensorType(element_type(src.type), shape)],
        )

    @property
    def axis_value(self) -> int:
        return self.axis.value.data

    def verify_(self) -> None:
        src = list(shape_of(self.src.type))
        axis = self.axis_value
        if not 0 <= axis <= len(src):
            raise self.op_error(f"axis {axis} out of range for rank {len(src)}")
        if element_type(self.src.type) != element_type(self.result.type):
            raise self.op_error(
                f"element type mismatch: {element_type(self.src.type)} vs "
                f"{element_type(self.result.type)}"
            )
        src.insert(axis, 1)
        if list(shape_of(self.result.type)) != src:
            raise self.op_error(
                f"expected result shape {src}, got {list(shape_of(self.result.type))}"
            )


@irdl_op_definition
class ViewOp(UnaryShapeOp):
    """`%v = nv_tileaa.view %x : tensor<4x8xf32> -> tensor<32xf32>`

    Reinterprets the elements (row-major) with another shape of the same size.  The
    result may be rank 0, the scalar carrier of a `tile<f32>`, when the source holds
    one element (`tensor<1x1xf32> -> f32`: cuda_tile's `reshape` to rank 0)."""

    name = "nv_tileaa.view"
    traits = traits_def(Pure(), canonicalized_by("FoldViewChain"))

    def verify_(self) -> None:
        if isinstance(self.result.type, TensorType):
            self.check_elements()
        elif not isinstance(self.src.type, TensorType):
            raise self.op_error(f"source must be a tensor, got {self.src.type}")
        elif self.result.type != element_type(self.src.type):
            raise self.op_error(
                f"a rank-0 result must be the element type {element_type(self.src.type)}, "
                f"got {self.result.type}"
            )
        if math.prod(shape_of(self.src.type)) != math.prod(shape_of(self.result.type)):
            raise self.op_error("source and result must have the same number of elements")


@irdl_op_definition
class ExtractOp(TileAAOp):
    """`%e = nv_tileaa.extract %x[%i, %j] : tensor<8x16xf32> -> tensor<4x16xf32>`

    The sub-tile at tile coordinates (`%i`, `%j`, i32) when the source is cut into
    tiles of the result's shape: element `r` of the result is element
    `index * result_shape + r` of the source (cuda_tile `extract`)."""

    name = "nv_tileaa.extract"
    source = operand_def(TensorType)
    indices = var_operand_def(i32)
    result = result_def(TensorType)
    assembly_format = "$source `[` $indices `]` attr-dict `:` type($source) `->` type($result)"
    traits = traits_def(Pure(), canonicalized_by("HoistExtractThroughElementwise"))

    def __init__(
        self, source: SSAValue, indices: list[SSAValue], result_type: TensorType[Attribute]
    ):
        super().__init__(operands=[source, indices], result_types=[result_type])

    def verify_(self) -> None:
        src, res = shape_of(self.source.type), shape_of(self.result.type)
        if element_type(self.source.type) != element_type(self.result.type):
            raise self.op_error(
                f"element type mismatch: {element_type(self.source.type)} vs "
                f"{element_type(self.result.type)}"
            )
        if len(src) != len(res):
            raise self.op_error(f"result rank {len(res)} differs from the source rank {len(src)}")
        if len(self.indices) != len(src):
            raise self.op_error(
                f"expects {len(src)} indices (one per dimension), got {len(self.indices)}"
            )
        for s, r in zip(src, res, strict=True):
            if r < 1 or s % r:
                raise self.op_error(
                    f"result shape {list(res)} must divide the source shape {list(src)}"
                )


SHAPE_OPS: list[type[TileAAOp]] = [SplatOp, BroadcastOp, ExpandDimsOp, ViewOp, ExtractOp]
