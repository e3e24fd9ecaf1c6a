"""Types of nv_tileaa: the memory token, tiled views and queues (seed 004).

`!nv_tileaa.mem_token` is anchored once per process (`MEM_TOKEN`): the seed's walkers,
type converters and verifiers recognise tokens by identity, and a reimplementation that
re-derives the type per call site "fragments the cache".  `tokens.py` implements the
five-step result-type inference that hands that instance out per function scope.
"""

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


MEM_TOKEN = MemTokenType()
"""The process-wide anchor of `!nv_tileaa.mem_token` (seed 004: one stable address per
process, compared by identity)."""


@irdl_attr_definition
class TiledViewType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileaa.tiled_view<2x128x128xf16>`: a shaped view of tile storage (the stage
    buffers of queues and pipelines; the leading extent is the stage)."""

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


@irdl_attr_definition
class QueueType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileaa.queue<tensor<128x64xf16>>`: a bounded queue between a producer and a
    consumer agent group; each stage holds one value of the payload type (the types
    listed, in order, for a multi-value payload)."""

    name = "nv_tileaa.queue"

    payload: ArrayAttr[Attribute]

    def __init__(self, payload: Sequence[Attribute]):
        super().__init__(ArrayAttr(list(payload)))

    @property
    def payload_types(self) -> list[Attribute]:
        return list(self.payload.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        types = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, parser.parse_type)
        return (ArrayAttr(types),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_list(self.payload.data, printer.print_attribute)

    def verify(self) -> None:
        from xdsl.utils.exceptions import VerifyException

        if not self.payload.data:
            raise VerifyException("a queue carries at least one payload type")


TYPES: list[type[Attribute]] = [MemTokenType, TiledViewType, QueueType]
