"""Minimal foreign types the nv_tileas seeds write, so that their IR parses.

Seed 003's worked example types a TMA descriptor as `!cute_nvgpu.tma_descriptor_tiled`
and the result of an async TMA load as `!async.value<tile<...>>`.  Neither dialect
exists in xDSL 0.74, so tileir declares just these two types, each in a dialect of its
own name (registered in `tileir.registry`).  They carry no behaviour beyond parsing,
printing and uniquing; nv_tileas ops accept them where the seed uses them:

* `!async.value<T>` (MLIR's `async` dialect): a future holding a `T`.  Async nv_tileas
  ops that produce data return one; `nv_tileas.async.future_wait` unwraps it.
* `!cute_nvgpu.tma_descriptor_tiled` (CUTLASS's CuTe NVGPU dialect): a tiled TMA
  descriptor, accepted wherever `!nv_tileas.tma_desc` is.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from tileir.dialects.nv_tileas.syntax import parse_type_bare, print_type_bare


@irdl_attr_definition
class AsyncValueType(ParametrizedAttribute, TypeAttribute):
    """`!async.value<T>`: a future of a `T` (MLIR's async dialect spelling)."""

    name = "async.value"

    value_type: Attribute

    def __init__(self, value_type: Attribute):
        super().__init__(value_type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        value_type = parse_type_bare(parser)
        parser.parse_punctuation(">")
        return (value_type,)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        print_type_bare(printer, self.value_type)
        printer.print_string(">")


@irdl_attr_definition
class TmaDescriptorTiledType(ParametrizedAttribute, TypeAttribute):
    """`!cute_nvgpu.tma_descriptor_tiled`: CuTe's tiled TMA descriptor."""

    name = "cute_nvgpu.tma_descriptor_tiled"


Async = Dialect("async", [], [AsyncValueType])
CuteNvgpu = Dialect("cute_nvgpu", [], [TmaDescriptorTiledType])
