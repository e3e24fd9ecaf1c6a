"""Ops of cuda_tile 13.4 that cuTile 1.7 writes, besides `fpowf`/`fpowi`
(floating_point.py): `insert`, the inverse of `extract`, and the grid-dependency
control ops `gdc_wait_tko` / `gdc_launch_dependents_tko` (programmatic dependent
launch: wait for the grid this one depends on; let dependent grids start).

Their forms are the ones tileirdisasm 13.5 prints:

    %r = insert %block, %dest[%i, ...] : tile<16xf32>, tile<64xf32>
    %t = gdc_wait_tko token = %t0 -> token
    %t = gdc_launch_dependents_tko token = %t0 -> token
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import i32
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure

from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.base import I32, CudaTileOp, check_tile_of
from tileir.dialects.cuda_tile.ops.memory import (
    check_ordering_tokens,
    parse_token_operand,
    print_token_operand,
)
from tileir.dialects.cuda_tile.ops.shape import INDEX_TYPE, check_tile
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_operand_list,
)
from tileir.dialects.cuda_tile.types import TileType


@irdl_op_definition
class InsertOp(CudaTileOp):
    """`%source, %dest[%i, ...] : S, D`: `dest` with its block `(i, ...)` (`dest` cut
    into blocks of the shape of `source`) replaced by `source`; the inverse of
    `extract`.  Indices are `tile<i32>`, one per dimension."""

    name = "cuda_tile.insert"
    SYNTAX: ClassVar[str] = "%source, %dest[%i, ...] [{attrs}] : S, D"
    SINCE: ClassVar[str] = "13.4"
    GROUP: ClassVar[str] = "Core"
    source = operand_def()
    destination = operand_def()
    indices = var_operand_def()
    result = result_def()
    traits = traits_def(Pure())

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.operand(self.source)
        f.literal(",")
        f.operand(self.destination)
        f.literal("[")
        f.operands(self.indices)
        f.literal("]")
        f.attr_dict(self)
        f.literal(":")
        f.type(self.source.type)
        f.literal(",")
        f.type(self.destination.type)

    @classmethod
    def parse(cls, parser: Parser) -> InsertOp:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        destination = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        indices = parse_operand_list(parser)
        parser.parse_punctuation("]")
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parse_cuda_tile_type(parser)
        parser.parse_punctuation(",")
        destination_type = parse_cuda_tile_type(parser)
        # Lifted to builtin carriers (nv_tileaa IR), the indices are plain i32 scalars.
        index_type = INDEX_TYPE if isinstance(destination_type, TileType) else i32
        return cls.create(
            operands=[
                parser.resolve_operand(source, source_type),
                parser.resolve_operand(destination, destination_type),
                *(parser.resolve_operand(i, index_type) for i in indices),
            ],
            result_types=[destination_type],
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_tile(self, self.source, "operand #0")
        check_tile(self, self.destination, "operand #1")
        for i, index in enumerate(self.indices):
            check_tile_of(self, index, f"operand #{i + 2}", I32, rank=0, variadic=True)
        if self.result.type != self.destination.type:
            raise self.op_error("failed to verify that all of {destination, result} have same type")
        source, dest = shape_of(self.source.type), shape_of(self.destination.type)
        if element_type(self.source.type) != element_type(self.destination.type):
            raise self.op_error("source and destination element type do not match")
        if len(source) != len(dest):
            raise self.op_error("source and destination must have the same rank")
        for i, (s, d) in enumerate(zip(source, dest, strict=True)):
            if s == 0 or d % s:
                raise self.op_error(
                    f"destination dimension {i} size ({d}) must be evenly divisible by source "
                    f"dimension {i} size ({s})"
                )
        if len(self.indices) != len(dest):
            raise self.op_error(f"expected {len(dest)} indices, but got {len(self.indices)}")


class GridDependencyOp(CudaTileOp):
    """`[token = %t] -> token`: a grid-dependency control point, ordered after `%t`."""

    SYNTAX: ClassVar[str] = "[token = %t] [{attrs}] -> token"
    SINCE: ClassVar[str] = "13.4"
    GROUP: ClassVar[str] = "Memory"
    token = opt_operand_def()
    result_token = result_def()

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        print_token_operand(f, self.token, spaced=True)
        f.attr_dict(self)
        f.literal("->")
        f.type(self.result_token.type)

    @classmethod
    def parse(cls, parser: Parser) -> GridDependencyOp:
        token = parse_token_operand(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        result_type = parse_cuda_tile_type(parser)
        return cls.create(
            operands=[parser.resolve_operand(token, result_type)] if token is not None else [],
            result_types=[result_type],
            attributes=attrs,
        )

    def verify_(self) -> None:
        check_ordering_tokens(self, self.token, self.result_token, "operand #0")


@irdl_op_definition
class GdcWaitTkoOp(GridDependencyOp):
    """Wait until the grids this grid depends on have completed (or let it go on):
    PTX `griddepcontrol.wait`."""

    name = "cuda_tile.gdc_wait_tko"


@irdl_op_definition
class GdcLaunchDependentsTkoOp(GridDependencyOp):
    """Allow the grids that depend on this one to be launched: PTX
    `griddepcontrol.launch_dependents`."""

    name = "cuda_tile.gdc_launch_dependents_tko"


NEWER_OPS_13_4 = [InsertOp, GdcWaitTkoOp, GdcLaunchDependentsTkoOp]
