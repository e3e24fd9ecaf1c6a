"""The base of every nv_tileas op, and small helpers the op families share."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i1
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tileir.dialects.nv_tileas.syntax import int_array_values
from tileir.dialects.nv_tileas.verifiers import fail


class TileASOp(IRDLOperation):
    """Base of the nv_tileas ops.  `RULES` lists the ids of the verifier rules
    (`tileir.dialects.nv_tileas.verifiers.RULES`) the op enforces."""

    RULES: ClassVar[tuple[str, ...]] = ()

    def op_error(self, message: str) -> VerifyException:
        return fail(self, message)

    def int_prop(self, name: str) -> int | None:
        attr = self.properties.get(name)
        return attr.value.data if isinstance(attr, IntegerAttr) else None


def bool_array(values: Sequence[bool]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i1, [1 if v else 0 for v in values])


def split_props(
    attrs: dict[str, Attribute], names: Sequence[str]
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """Split a parsed attribute dictionary into properties (`names`) and the rest."""
    props = {k: v for k, v in attrs.items() if k in names}
    rest = {k: v for k, v in attrs.items() if k not in names}
    return props, rest


def print_attr_dict(
    printer: Printer, op: IRDLOperation, elide: Sequence[str] = ("operandSegmentSizes",)
) -> None:
    """Properties and attributes in one `{...}` (properties first), eliding `elide`."""
    props = {k: v for k, v in op.properties.items() if k not in elide}
    printer.print_op_attributes({**props, **op.attributes})


def drop_segment_sizes(parser: Parser, attrs: dict[str, Attribute], sizes: Sequence[int]) -> None:
    """Accept an explicit `operandSegmentSizes` in a custom form (seed 003 prints it) if it
    agrees with the operands written; the builder recomputes it."""
    given = attrs.pop("operandSegmentSizes", None)
    if given is None:
        return
    values = list(int_array_values(given)) if isinstance(given, DenseArrayBase) else None
    if values != list(sizes):
        parser.raise_error(
            f"operandSegmentSizes {values} does not match the operands written {list(sizes)}"
        )


def parse_optional_keyword_operand(parser: Parser, keyword: str) -> UnresolvedOperand | None:
    if parser.parse_optional_keyword(keyword) is None:
        return None
    return parser.parse_unresolved_operand()


def single_block(region: Region) -> Block | None:
    return region.blocks.first if len(region.blocks) == 1 else None


def values_types(values: Sequence[SSAValue]) -> list[Attribute]:
    return [v.type for v in values]
