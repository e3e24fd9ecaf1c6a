"""Shape: splat and broadcast, the tiles cuda_tile's `reshape`/`broadcast` make from a
scalar or a smaller tile (tileir's addition to seed 003's roster).

Seed 003 has no op that makes a tile from a scalar or replicates a tile's unit
dimensions: `generate` could, through a region that yields the scalar at every
coordinate, but nothing in the seeds lowers a region per coordinate, and every kernel's
index and pointer arithmetic starts from splats and broadcasts.  They keep their
nv_tileaa semantics (seed 004's "Pointer and Shape Folds" work on them) and only gain
layouts: `tileas-assign-layouts` puts a broadcast's source in its result's layout, so
neither moves data between threads, and `convert-tileas-to-llvm` copies registers.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.syntax import bare_tile_syntax
from tileir.dialects.nv_tileas.verifiers import BROADCAST_SHAPE, SPLAT_ELEMENT


@bare_tile_syntax
@irdl_op_definition
class SplatOp(TileASOp):
    """`%t = nv_tileas.splat %x : f32 -> tensor<16x16xf32>`

    A tile with every element equal to the scalar operand (each thread holds it in each
    of its registers)."""

    name = "nv_tileas.splat"
    src = operand_def()
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())
    RULES: ClassVar[tuple[str, ...]] = (SPLAT_ELEMENT,)

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        if self.src.type != element_type(self.result.type):
            raise self.op_error(
                f"operand type {self.src.type} must be the element type of {self.result.type}"
            )


@bare_tile_syntax
@irdl_op_definition
class BroadcastOp(TileASOp):
    """`%b = nv_tileas.broadcast %x : tensor<1x16xf32> -> tensor<8x16xf32>`

    Replicates the unit dimensions of the source to the result's extents (same rank,
    same element type)."""

    name = "nv_tileas.broadcast"
    src = operand_def(TensorType)
    result = result_def(TensorType)
    assembly_format = "$src attr-dict `:` type($src) `->` type($result)"
    traits = traits_def(Pure())
    RULES: ClassVar[tuple[str, ...]] = (BROADCAST_SHAPE,)

    def __init__(self, src: SSAValue, result_type: Attribute):
        super().__init__(operands=[src], result_types=[result_type])

    def verify_(self) -> None:
        if element_type(self.src.type) != element_type(self.result.type):
            raise self.op_error(
                f"element type mismatch: {element_type(self.src.type)} vs "
                f"{element_type(self.result.type)}"
            )
        src, res = shape_of(self.src.type), shape_of(self.result.type)
        if len(src) != len(res) or any(s not in (1, r) for s, r in zip(src, res, strict=True)):
            raise self.op_error(f"cannot broadcast {list(src)} to {list(res)}")


SHAPE_OPS: list[type[TileASOp]] = [SplatOp, BroadcastOp]
