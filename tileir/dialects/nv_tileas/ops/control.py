"""Control and metadata: the region terminator, optimizer directives, and program-id
cancellation (seed 003).

`yield` terminates reduce, scan, generate and pragma regions (pipeline regions use
`async.pipeline.yield`).  `pragma` wraps a region with optimizer-control directives
active on entry (`ocgEnterDirectives`) and exit (`ocgLeaveDirectives`).
`cancel_next_program_id` asks the hardware to cancel a not-yet-launched program (CTA)
and returns whether it succeeded and that program's id, so a persistent kernel can do
its work (Blackwell cluster launch control); the async form returns futures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, StringAttr, i1, i32
from xdsl.ir import Attribute, Region, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, RecursiveMemoryEffect

from tileir.dialects.nv_tileas.foreign import AsyncValueType
from tileir.dialects.nv_tileas.ops.base import TileASOp
from tileir.dialects.nv_tileas.ops.compute import ReduceOp, ScanOp
from tileir.dialects.nv_tileas.ops.layout import GenerateOp
from tileir.dialects.nv_tileas.syntax import bare_tile_syntax, parse_types
from tileir.dialects.nv_tileas.verifiers import PRAGMA_DIRECTIVES, REGION_YIELD_TYPES


@bare_tile_syntax
@irdl_op_definition
class PragmaOp(TileASOp):
    """`%r = nv_tileas.pragma -> (tensor<128xf32>) attributes {ocgEnterDirectives = ["maxnreg=128"], ocgLeaveDirectives = ["maxnreg=default"]} { ... nv_tileas.yield %v : tensor<128xf32> }`

    Runs its region with optimizer-control directives: `ocgEnterDirectives` become
    active on entry, `ocgLeaveDirectives` on exit.  The region's yield gives the
    results."""

    name = "nv_tileas.pragma"
    ocg_enter = opt_prop_def(ArrayAttr[StringAttr], prop_name="ocgEnterDirectives")
    ocg_leave = opt_prop_def(ArrayAttr[StringAttr], prop_name="ocgLeaveDirectives")
    outputs = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    RULES: ClassVar[tuple[str, ...]] = (PRAGMA_DIRECTIVES, REGION_YIELD_TYPES)

    def __init__(
        self,
        body: Region,
        result_types: Sequence[Attribute] = (),
        *,
        enter: Sequence[str] = (),
        leave: Sequence[str] = (),
    ):
        props: dict[str, Attribute] = {}
        if enter:
            props["ocgEnterDirectives"] = ArrayAttr([StringAttr(d) for d in enter])
        if leave:
            props["ocgLeaveDirectives"] = ArrayAttr([StringAttr(d) for d in leave])
        super().__init__(result_types=[list(result_types)], regions=[body], properties=props)

    def print(self, printer: Printer) -> None:
        if self.outputs:
            printer.print_string(" -> (")
            printer.print_list([r.type for r in self.outputs], printer.print_attribute)
            printer.print_string(")")
        printer.print_op_attributes(
            dict(self.properties) | dict(self.attributes), print_keyword=True
        )
        printer.print_string(" ")
        printer.print_region(self.body)

    @classmethod
    def parse(cls, parser: Parser) -> PragmaOp:
        types: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            parser.parse_punctuation("(")
            types = parse_types(parser)
            parser.parse_punctuation(")")
        attrs = parser.parse_optional_attr_dict_with_keyword()
        entries = dict(attrs.data) if attrs is not None else {}
        names = ("ocgEnterDirectives", "ocgLeaveDirectives")
        props = {k: v for k, v in entries.items() if k in names}
        rest = {k: v for k, v in entries.items() if k not in names}
        body = parser.parse_region()
        return cls.build(result_types=[types], regions=[body], properties=props, attributes=rest)

    def verify_(self) -> None:
        if self.ocg_enter is None and self.ocg_leave is None:
            raise self.op_error("needs ocgEnterDirectives or ocgLeaveDirectives")
        last = self.body.block.last_op
        yielded = [v.type for v in last.operands] if isinstance(last, YieldOp) else None
        if yielded != [r.type for r in self.outputs]:
            raise self.op_error("region must end with nv_tileas.yield of the result types")


@bare_tile_syntax
@irdl_op_definition
class YieldOp(TileASOp):
    """`nv_tileas.yield %v : f32`

    Terminates reduce, scan, generate and pragma regions."""

    name = "nv_tileas.yield"
    values = var_operand_def()
    traits = lazy_traits_def(
        lambda: (IsTerminator(), HasParent(ReduceOp, ScanOp, GenerateOp, PragmaOp))
    )
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: Sequence[SSAValue] = ()):
        super().__init__(operands=[list(values)])


@bare_tile_syntax
@irdl_op_definition
class CancelNextProgramIdOp(TileASOp):
    """`%ok, %pid = nv_tileas.cancel_next_program_id : i1, i32`

    Cancels the launch of a pending program and returns whether that succeeded and
    its linear program id."""

    name = "nv_tileas.cancel_next_program_id"
    valid = result_def(i1)
    program_id = result_def(i32)
    assembly_format = "attr-dict `:` type($valid) `,` type($program_id)"

    def __init__(self):
        super().__init__(result_types=[i1, i32])


@bare_tile_syntax
@irdl_op_definition
class AsyncCancelNextProgramIdOp(TileASOp):
    """`%ok, %pid = nv_tileas.async.cancel_next_program_id : !async.value<i1>, !async.value<i32>`

    `cancel_next_program_id` whose answer arrives asynchronously."""

    name = "nv_tileas.async.cancel_next_program_id"
    valid = result_def(AsyncValueType)
    program_id = result_def(AsyncValueType)
    assembly_format = "attr-dict `:` type($valid) `,` type($program_id)"

    def __init__(self):
        super().__init__(result_types=[AsyncValueType(i1), AsyncValueType(i32)])


CONTROL_OPS: list[type[TileASOp]] = [
    YieldOp,
    PragmaOp,
    CancelNextProgramIdOp,
    AsyncCancelNextProgramIdOp,
]
