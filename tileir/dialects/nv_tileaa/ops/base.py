"""The base of every nv_tileaa op and the helpers the op families share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.utils.exceptions import VerifyException


class TileAAOp(IRDLOperation):
    """Base of the nv_tileaa ops: diagnostics name the op (`'nv_tileaa.load' op ...`)."""

    def op_error(self, message: str) -> VerifyException:
        return VerifyException(f"'{self.name}' op {message}")


@dataclass(frozen=True)
class CanonicalizedBy(HasCanonicalizationPatternsTrait):
    """Attaches seed-004 canonicalization patterns (by class name, imported lazily from
    `tileir.dialects.nv_tileaa.canonicalize`) to an op, so xDSL's `canonicalize` runs
    them too.  `tileaa-canonicalize` runs the same pattern objects in one driver."""

    names: tuple[str, ...] = ()

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        from tileir.dialects.nv_tileaa.canonicalize import patterns_named

        return patterns_named(self.names)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()


def canonicalized_by(*names: str) -> CanonicalizedBy:
    return CanonicalizedBy(tuple(names))


def opt(value: SSAValue | None) -> list[SSAValue]:
    return [] if value is None else [value]


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """`%a, %b, ...` (at least one)."""
    operands = [parser.parse_unresolved_operand()]
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    return operands


def parse_type_list(parser: Parser) -> list[Attribute]:
    """`T, U, ...` (at least one)."""
    types: list[Attribute] = [parser.parse_type()]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parser.parse_type())
    return types


def parse_paren_type_list(parser: Parser) -> list[Attribute]:
    """`(T, U)`, `()` or a single bare `T`."""
    if parser.parse_optional_punctuation("(") is None:
        return [parser.parse_type()]
    if parser.parse_optional_punctuation(")") is not None:
        return []
    types = parse_type_list(parser)
    parser.parse_punctuation(")")
    return types


def print_paren_types(printer: Printer, types: Sequence[Attribute]) -> None:
    printer.print_string("(")
    printer.print_list(types, printer.print_attribute)
    printer.print_string(")")


def split_props(
    attrs: dict[str, Attribute], names: Sequence[str]
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """A parsed attribute dictionary split into properties (`names`) and the rest."""
    props = {k: v for k, v in attrs.items() if k in names}
    rest = {k: v for k, v in attrs.items() if k not in names}
    return props, rest


def terminator(region: Region) -> Operation | None:
    block = region.blocks.last
    return block.last_op if block is not None else None


def entry_block(region: Region) -> Block | None:
    return region.blocks.first


def defined_inside(value: SSAValue, region: Region) -> bool:
    """Whether `value` is defined in `region` (at any depth)."""
    if isinstance(value, BlockArgument):
        block: Block | None = value.block
    else:
        block = value.owner.parent_block()  # pyright: ignore[reportAttributeAccessIssue]
    while block is not None:
        parent_region = block.parent
        if parent_region is region:
            return True
        parent_op = parent_region.parent if parent_region is not None else None
        block = parent_op.parent_block() if parent_op is not None else None
    return False


def types_text(types: Sequence[Attribute]) -> str:
    return ", ".join(str(t) for t in types)
