"""Global variables (NVIDIA group Core): `global` allocates static global memory at
module scope, initialized from a literal; `get_global` gives a pointer to it.

    global [private] [constant] @name [alignment = N] <ET: LIT> : tile<NxET>
    %p = get_global @name : tile<ptr<ET>>

`public` (the default) is not printed; `constant` (13.3) marks read-only memory.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import irdl_op_definition, opt_prop_def, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, SymbolOpInterface, SymbolTable

from tileir.dialects.cuda_tile.attributes import SymbolVisibility, SymbolVisibilityAttr
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.ops.base import POINTER, CudaTileOp, check_tile_of
from tileir.dialects.cuda_tile.ops.core import dense_literal_text, parse_dense_literal, parse_symbol
from tileir.dialects.cuda_tile.syntax import (
    AsmFormat,
    parse_cuda_tile_type,
    parse_integer_of,
    print_cuda_tile_type,
)
from tileir.dialects.cuda_tile.types import PointerType, TileType


@irdl_op_definition
class GlobalOp(CudaTileOp):
    """`[private] [constant] @name [alignment = N] {attrs} <ET: LIT> : tile<NxET>`."""

    name = "cuda_tile.global"
    SYNTAX: ClassVar[str] = (
        "[private] [constant] @name [alignment = N] [{attrs}] <ET: LIT> : tile<NxET>"
    )
    FIELD_SINCE: ClassVar[dict[str, str]] = {"constant": "13.3", "symbol_visibility": "13.3"}
    sym_name = prop_def(SymbolNameConstraint())
    value = prop_def(DenseIntOrFPElementsAttr)
    alignment = opt_prop_def(IntegerAttr)
    #: Since 13.3.
    constant = opt_prop_def(UnitAttr)
    #: Since 13.3.
    symbol_visibility = opt_prop_def(SymbolVisibilityAttr)
    traits = traits_def(SymbolOpInterface())

    @property
    def visibility(self) -> SymbolVisibility:
        v = self.symbol_visibility
        return SymbolVisibility.PUBLIC if v is None else v.data

    @property
    def alignment_bytes(self) -> int:
        return 0 if self.alignment is None else self.alignment.value.data

    @property
    def tile_type(self) -> TileType:
        return TileType(self.value.get_shape(), self.value.get_element_type())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if self.symbol_visibility is None:
            printer.print_string(" ")  # as tileirdisasm prints a global without one
        elif self.visibility is not SymbolVisibility.PUBLIC:
            printer.print_string(f"{self.visibility.value} ")
        if self.constant is not None:
            printer.print_string("constant ")
        printer.print_symbol_name(self.sym_name.data)
        if self.alignment_bytes:
            printer.print_string(f" alignment = {self.alignment_bytes}")
        AsmFormat(printer).attr_dict(self)
        printer.print_string(" <")
        printer.print_attribute(self.value.get_element_type())
        printer.print_string(": ")
        printer.print_string(dense_literal_text(self.value))
        printer.print_string("> : ")
        print_cuda_tile_type(printer, self.tile_type)

    @classmethod
    def parse(cls, parser: Parser) -> GlobalOp:
        props: dict[str, Attribute] = {}
        # tileirdisasm writes `global  @name` (two spaces) for a global whose bytecode
        # has no visibility (before 13.3); such a global keeps none, and prints back so.
        unrecorded = _follows_two_spaces(parser)
        word = parser.parse_optional_keyword_in(("public", "private"))  # pyright: ignore[reportArgumentType]
        if word is not None or not unrecorded:
            props["symbol_visibility"] = SymbolVisibilityAttr(SymbolVisibility(word or "public"))
        if parser.parse_optional_keyword("constant") is not None:
            props["constant"] = UnitAttr()
        props["sym_name"] = parse_symbol(parser)
        if parser.parse_optional_keyword("alignment") is not None:
            parser.parse_punctuation("=")
            props["alignment"] = IntegerAttr(parse_integer_of(parser, i64), i64)
        attrs = parser.parse_optional_attr_dict()
        value, _ = parse_dense_literal(parser)
        props["value"] = value
        return cls.create(properties=props, attributes=attrs)

    def verify_(self) -> None:
        if len(self.value.get_shape()) != 1:
            raise self.op_error("type must have rank 1")


def _follows_two_spaces(parser: Parser) -> bool:
    """The next token comes after two spaces (tileirdisasm's `global  @name`)."""
    start = parser.pos
    content = parser.lexer.input.content
    return start >= 2 and content[start - 2 : start] == "  "


def lookup_global(op: Operation, name: str) -> GlobalOp | None:
    """The `global` named `name` in the nearest symbol table around `op`."""
    parent = op.parent_op()
    while parent is not None:
        if parent.has_trait(SymbolTable) and parent.regions and parent.regions[0].blocks:
            for candidate in parent.regions[0].blocks[0].ops:
                sym = candidate.properties.get("sym_name")
                if isinstance(sym, StringAttr) and sym.data == name:
                    return candidate if isinstance(candidate, GlobalOp) else None
            return None
        parent = parent.parent_op()
    return None


@irdl_op_definition
class GetGlobalOp(CudaTileOp):
    """`@name {attrs} : tile<ptr<ET>>`: the address of a global."""

    name = "cuda_tile.get_global"
    SYNTAX: ClassVar[str] = "@name [{attrs}] : tile<ptr<ET>>"
    GROUP: ClassVar[str] = "Core"
    name_ = prop_def(SymbolRefAttr, prop_name="name")
    result = result_def()
    traits = traits_def(Pure())

    def print(self, printer: Printer) -> None:
        f = AsmFormat(printer)
        f.custom(lambda: printer.print_symbol_name(self.name_.root_reference.data))
        f.attr_dict(self)
        f.literal(":")
        f.type(self.result.type)

    @classmethod
    def parse(cls, parser: Parser) -> GetGlobalOp:
        name = parse_symbol(parser)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        t = parse_cuda_tile_type(parser)
        return cls.create(
            properties={"name": SymbolRefAttr(name)}, result_types=[t], attributes=attrs
        )

    def verify_(self) -> None:
        check_tile_of(self, self.result, "result #0", POINTER, rank=0)
        name = self.name_.root_reference.data
        target = lookup_global(self, name)
        if target is None:
            raise self.op_error(f"'{name}' does not reference a valid global")
        pointer = element_type(self.result.type)
        assert isinstance(pointer, PointerType)
        global_el = target.value.get_element_type()
        if pointer.pointee != global_el:
            raise self.op_error(
                f"pointee type of result type '{pointer}' does not match type '{global_el}' "
                f"of the global @{name}"
            )


GLOBAL_OPS = [GlobalOp, GetGlobalOp]
