"""Types of nv_tileaa."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer


@irdl_attr_definition
class MemTokenType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileaa.mem_token`: a pure ordering edge between memory effects.

    It carries no data; an op that consumes a token happens after every memory effect
    that contributed to it (seed 004, "Mem-Token Lifecycle")."""

    name = "nv_tileaa.mem_token"


@irdl_attr_definition
class TiledViewType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileaa.tiled_view<2x128x128xf16>`: a shaped view of tile storage (stage
    buffers of queues and pipelines)."""

    name = "nv_tileaa.tiled_view"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element_type)

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            dims, element = parser.parse_ranked_shape()
        return (ArrayAttr([IntAttr(d) for d in dims]), element)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + "".join(f"{d}x" for d in self.dims))
        printer.print_attribute(self.element_type)
        printer.print_string(">")


TYPES: list[type[Attribute]] = [MemTokenType, TiledViewType]
