"""Debug: print and assert, what cuda_tile's `print_tko` and `assert` become (tileir's
addition to seed 003's roster).

Seed 003 has no op for device-side printf or assertions, yet cuTile kernels use both,
and the boundary rule (docs/pipeline.md) leaves no cuda_tile op with an effect past
`convert-tileaa-to-tileas`.  Their arguments gain layouts like any other tile, so the
lowering knows which thread holds which element: each element prints once, from its
owner, and each false element of an assertion fails in the thread that holds it.

`print_tko`'s token only orders (a print reads and writes no memory of the kernel's
own), so `nv_tileas.print` has none: the conversion passes the input token on to
whatever followed the print, and program order keeps the print where it was.  Both
ops write memory as far as effects go, so DCE never erases one and CSE never merges two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerType,
    StringAttr,
    TensorType,
    i1,
)
from xdsl.ir import SSAValue
from xdsl.irdl import irdl_op_definition, operand_def, prop_def, traits_def, var_operand_def
from xdsl.traits import MemoryWriteEffect

from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.ops.misc import count_format_arguments
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.syntax import bare_tile_syntax
from tileir.dialects.nv_tileas.verifiers import ASSERT_CONDITION, PRINT_ARGUMENTS


@bare_tile_syntax
@irdl_op_definition
class PrintOp(TileASOp):
    """`nv_tileas.print "i=%d x=%f\\0A", %i, %x : tensor<64xi32>, tensor<64xf32>`

    C's printf of the format, once per element of the tensor arguments (which share a
    shape; scalars repeat with each element), or once for scalars alone."""

    name = "nv_tileas.print"
    format = prop_def(StringAttr)
    args = var_operand_def()
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$format (`,` $args^ `:` type($args))? attr-dict"
    RULES: ClassVar[tuple[str, ...]] = (PRINT_ARGUMENTS,)

    def __init__(self, text: str, args: Sequence[SSAValue]):
        super().__init__(operands=[list(args)], properties={"format": StringAttr(text)})

    def verify_(self) -> None:
        if count_format_arguments(self.format.data) is None:
            raise self.op_error("format has an unterminated conversion")
        shapes = {tuple(a.type.get_shape()) for a in self.args if isinstance(a.type, TensorType)}
        if len(shapes) > 1:
            raise self.op_error("tensor arguments must share one shape")
        for i, a in enumerate(self.args):
            el = element_type(a.type)
            if not isinstance(el, IntegerType | AnyFloat | PointerType):
                raise self.op_error(
                    f"argument #{i} must be an integer, a float or a pointer (or a tensor "
                    f"of them), got {a.type}"
                )


@bare_tile_syntax
@irdl_op_definition
class AssertOp(TileASOp):
    """`nv_tileas.assert %ok, "in range" : tensor<64xi1>`

    Fails the launch with `message` where an element of the condition is false."""

    name = "nv_tileas.assert"
    condition = operand_def()
    message = prop_def(StringAttr)
    traits = traits_def(MemoryWriteEffect())
    assembly_format = "$condition `,` $message attr-dict `:` type($condition)"
    RULES: ClassVar[tuple[str, ...]] = (ASSERT_CONDITION,)

    def __init__(self, condition: SSAValue, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})

    def verify_(self) -> None:
        if element_type(self.condition.type) != i1:
            raise self.op_error(
                f"condition must be an i1 or a tensor of i1, got {self.condition.type}"
            )


DEBUG_OPS: list[type[TileASOp]] = [PrintOp, AssertOp]
