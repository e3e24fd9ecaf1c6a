"""Types of nv_tileas."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from tileir.dialects.nv_tileas.attributes import Residency, ResidencyAttr


@irdl_attr_definition
class TiledViewType(ParametrizedAttribute, TypeAttribute):
    """`!nv_tileas.tiled_view<128x128xf16, smem>`: a tile-shaped view of storage, with
    its residency (rmem, smem, tmem or gmem) as a parameter."""

    name = "nv_tileas.tiled_view"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    residency: ResidencyAttr

    def __init__(self, shape: Sequence[int], element_type: Attribute, residency: Residency):
        super().__init__(
            ArrayAttr([IntAttr(d) for d in shape]), element_type, ResidencyAttr(residency)
        )

    @property
    def dims(self) -> tuple[int, ...]:
        return tuple(d.data for d in self.shape)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        dims, element = parser.parse_ranked_shape()
        parser.parse_punctuation(",")
        residency = Residency(parser.parse_str_enum(Residency))
        parser.parse_punctuation(">")
        return (ArrayAttr([IntAttr(d) for d in dims]), element, ResidencyAttr(residency))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + "".join(f"{d}x" for d in self.dims))
        printer.print_attribute(self.element_type)
        printer.print_string(f", {self.residency.data.value}>")


TYPES: list[type[Attribute]] = [TiledViewType]
