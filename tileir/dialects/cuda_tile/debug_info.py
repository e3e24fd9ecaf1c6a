"""Debug information of the cuda_tile dialect (`#cuda_tile.di_*`).

A kernel written in a source language keeps its source positions as a small tree of
attributes: a file, the compile unit it belongs to, the subprogram (function) and
nested lexical blocks.  An op points into that tree with the location
`loc(#cuda_tile.di_loc<loc("file.py":7:8) in #scope>)`, where the scope is a
subprogram or a lexical block.

Printed forms, as NVIDIA prints them:

    #cuda_tile.di_file<"foo.py" in "/tmp/">
    #cuda_tile.di_compile_unit<file = #di_file>
    #cuda_tile.di_subprogram<file = #di_file, line = 1, name = "k", linkageName = "k",
                             compileUnit = #di_compile_unit, scopeLine = 2>
    #cuda_tile.di_lexical_block<scope = #di_subprogram, file = #di_file, line = 3, column = 4>
    #cuda_tile.di_loc<#loc in #di_subprogram>

The struct-style parameters may come in any order on input and print in declaration
order; optional parameters (`scopeLine`, `column`) are omitted when absent.

`verify_function_debug_info`, `verify_function_body_debug_info` and
`verify_module_debug_info` enforce NVIDIA's scoping rules (a function's location is
a subprogram whose linkage name is the function's name; the ops of a function live
in that subprogram; globals carry no scope).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

# ---------------------------------------------------------------------------
# Struct-style parameter lists: `<key = value, ...>`.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class StructParam:
    """One parameter of a struct-style attribute syntax."""

    key: str
    parse: Callable[[AttrParser], Attribute]
    optional: bool = False


def parse_struct(parser: AttrParser, params: Sequence[StructParam]) -> list[Attribute]:
    """Parse `<k1 = v1, k2 = v2, ...>` in any order; absent optional parameters are
    `NoneAttr`.  The messages are MLIR's struct-parser messages."""
    by_key = {p.key: p for p in params}
    seen: dict[str, Attribute] = {}
    parser.parse_punctuation("<")
    while True:
        pos = parser.pos
        key = parser.parse_optional_identifier()
        if key is None:
            parser.raise_error("expected a parameter name in struct", pos)
        if key not in by_key or key in seen:
            parser.raise_error(f"duplicate or unknown struct parameter name: {key}", pos)
        parser.parse_punctuation("=")
        seen[key] = by_key[key].parse(parser)
        if parser.parse_optional_punctuation(",") is None:
            break
    end = parser.pos
    parser.parse_punctuation(">")
    values: list[Attribute] = []
    for p in params:
        if p.key in seen:
            values.append(seen[p.key])
        elif p.optional:
            values.append(NoneAttr())
        else:
            parser.raise_error(f"struct is missing required parameter: {p.key}", end)
    return values


def print_struct(printer: Printer, items: Sequence[tuple[str, Attribute]]) -> None:
    """`<k1 = v1, ...>`, skipping absent (`NoneAttr`) optional parameters."""
    printer.print_string("<")
    first = True
    for key, value in items:
        if isinstance(value, NoneAttr):
            continue
        if not first:
            printer.print_string(", ")
        first = False
        printer.print_string(f"{key} = ")
        if isinstance(value, IntAttr):
            printer.print_string(str(value.data))
        elif isinstance(value, StringAttr):
            printer.print_string_literal(value.data)
        else:
            printer.print_attribute(value)
    printer.print_string(">")


def _unsigned(parser: AttrParser) -> Attribute:
    pos = parser.pos
    value = parser.parse_integer(allow_boolean=False, allow_negative=False)
    if value >= 2**32:
        parser.raise_error("integer value too large for an unsigned parameter", pos)
    return IntAttr(value)


def _string(parser: AttrParser) -> Attribute:
    return StringAttr(parser.parse_str_literal())


def _attribute_of(*classes: type[Attribute]) -> Callable[[AttrParser], Attribute]:
    def parse(parser: AttrParser) -> Attribute:
        pos = parser.pos
        attr = parser.parse_attribute()
        if not isinstance(attr, classes):
            names = " or ".join(c.name for c in classes)  # pyright: ignore[reportAttributeAccessIssue]
            parser.raise_error(f"expected {names}, got {attr}", pos)
        return attr

    return parse


# ---------------------------------------------------------------------------
# Attributes.
# ---------------------------------------------------------------------------


@irdl_attr_definition
class DIFileAttr(ParametrizedAttribute):
    """`#cuda_tile.di_file<"name" in "directory">`: a source file."""

    name = "cuda_tile.di_file"

    file_name: StringAttr
    directory: StringAttr

    def __init__(self, file_name: str, directory: str):
        super().__init__(StringAttr(file_name), StringAttr(directory))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            file_name = parser.parse_str_literal()
            parser.parse_keyword("in")
            directory = parser.parse_str_literal()
        return (StringAttr(file_name), StringAttr(directory))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.file_name.data)
        printer.print_string(" in ")
        printer.print_string_literal(self.directory.data)
        printer.print_string(">")


@irdl_attr_definition
class DICompileUnitAttr(ParametrizedAttribute):
    """`#cuda_tile.di_compile_unit<file = #di_file>`: a translation unit."""

    name = "cuda_tile.di_compile_unit"

    file: DIFileAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return parse_struct(parser, (StructParam("file", _attribute_of(DIFileAttr)),))

    def print_parameters(self, printer: Printer) -> None:
        print_struct(printer, (("file", self.file),))


@irdl_attr_definition
class DISubprogramAttr(ParametrizedAttribute):
    """`#cuda_tile.di_subprogram<file, line, name, linkageName, compileUnit[,
    scopeLine]>`: a function of the source program."""

    name = "cuda_tile.di_subprogram"

    file: DIFileAttr
    line: IntAttr
    sub_name: StringAttr
    linkage_name: StringAttr
    compile_unit: DICompileUnitAttr
    scope_line: IntAttr | NoneAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return parse_struct(
            parser,
            (
                StructParam("file", _attribute_of(DIFileAttr)),
                StructParam("line", _unsigned),
                StructParam("name", _string),
                StructParam("linkageName", _string),
                StructParam("compileUnit", _attribute_of(DICompileUnitAttr)),
                StructParam("scopeLine", _unsigned, optional=True),
            ),
        )

    def print_parameters(self, printer: Printer) -> None:
        print_struct(
            printer,
            (
                ("file", self.file),
                ("line", self.line),
                ("name", self.sub_name),
                ("linkageName", self.linkage_name),
                ("compileUnit", self.compile_unit),
                ("scopeLine", self.scope_line),
            ),
        )


@irdl_attr_definition
class DILexicalBlockAttr(ParametrizedAttribute):
    """`#cuda_tile.di_lexical_block<scope, file, line[, column]>`: a nested scope."""

    name = "cuda_tile.di_lexical_block"

    scope: Attribute
    file: DIFileAttr
    line: IntAttr
    column: IntAttr | NoneAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        return parse_struct(
            parser,
            (
                StructParam("scope", _attribute_of(DISubprogramAttr, DILexicalBlockAttr)),
                StructParam("file", _attribute_of(DIFileAttr)),
                StructParam("line", _unsigned),
                StructParam("column", _unsigned, optional=True),
            ),
        )

    def print_parameters(self, printer: Printer) -> None:
        print_struct(
            printer,
            (
                ("scope", self.scope),
                ("file", self.file),
                ("line", self.line),
                ("column", self.column),
            ),
        )

    def verify(self) -> None:
        if not isinstance(self.scope, DISubprogramAttr | DILexicalBlockAttr):
            raise VerifyException(
                f"expected a local scope (di_subprogram or di_lexical_block), got {self.scope}"
            )


DILocalScope = DISubprogramAttr | DILexicalBlockAttr


@irdl_attr_definition
class DILocAttr(ParametrizedAttribute):
    """`#cuda_tile.di_loc<loc("f.py":7:8) in #scope>`: a source location inside a
    debug-info scope.  It is used as an op location: `loc(#cuda_tile.di_loc<...>)`."""

    name = "cuda_tile.di_loc"

    source_loc: FileLineColLoc
    scope: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        pos = parser.pos
        if parser._current_token.text == "loc":  # pyright: ignore[reportPrivateUsage]
            source = parser.parse_optional_location()
        else:
            source = parser.parse_attribute()
        if not isinstance(source, FileLineColLoc):
            parser.raise_error(f"expected a file location, got {source}", pos)
        parser.parse_keyword("in")
        scope = _attribute_of(DISubprogramAttr, DILexicalBlockAttr)(parser)
        parser.parse_punctuation(">")
        return (source, scope)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        # A location nested in an attribute prints with its own `loc(...)`.
        saved = printer.printing_location
        printer.printing_location = False
        try:
            printer.print_attribute(self.source_loc)
        finally:
            printer.printing_location = saved
        printer.print_string(" in ")
        printer.print_attribute(self.scope)
        printer.print_string(">")

    def verify(self) -> None:
        if not isinstance(self.scope, DISubprogramAttr | DILexicalBlockAttr):
            raise VerifyException(
                f"expected a local scope (di_subprogram or di_lexical_block), got {self.scope}"
            )


DEBUG_INFO_ATTRIBUTES: list[type[Attribute]] = [
    DIFileAttr,
    DICompileUnitAttr,
    DISubprogramAttr,
    DILexicalBlockAttr,
    DILocAttr,
]

#: Alias names MLIR's printer gives the debug-info attributes (`#di_file`, ...).
ALIAS_NAMES: dict[type[Attribute], str] = {
    DIFileAttr: "di_file",
    DICompileUnitAttr: "di_compile_unit",
    DISubprogramAttr: "di_subprogram",
    DILexicalBlockAttr: "di_lexical_block",
}


# ---------------------------------------------------------------------------
# Locations that wrap other locations.  xDSL's builtin constructors only accept
# builtin locations as children; a di_loc is a location too, so these build the
# wrappers without that check.
# ---------------------------------------------------------------------------


def _unchecked(cls: type[ParametrizedAttribute], params: Sequence[Attribute]) -> Attribute:
    attr = cls.__new__(cls)
    for (field_name, _), param in zip(cls.get_irdl_definition().parameters, params, strict=True):
        object.__setattr__(attr, field_name, param)
    return attr


def name_loc(name: str, child: Attribute) -> Attribute:
    return _unchecked(NameLoc, (StringAttr(name), child))


def fused_loc(children: Sequence[Attribute], metadata: Attribute | None = None) -> Attribute:
    return _unchecked(FusedLoc, (ArrayAttr(children), metadata or NoneAttr()))


def callsite_loc(callee: Attribute, caller: Attribute) -> Attribute:
    return _unchecked(CallSiteLoc, (callee, caller))


def is_location(attr: Attribute) -> bool:
    return isinstance(
        attr, UnknownLoc | FileLineColLoc | NameLoc | FusedLoc | CallSiteLoc | DILocAttr
    )


# ---------------------------------------------------------------------------
# NVIDIA's scoping rules.
# ---------------------------------------------------------------------------


def di_loc_of(loc: Attribute) -> DILocAttr | None:
    """The di_loc a location carries, looking through name, fused and call-site
    (caller side) wrappers."""
    if isinstance(loc, DILocAttr):
        return loc
    if isinstance(loc, CallSiteLoc):
        return di_loc_of(loc.caller)
    if isinstance(loc, FusedLoc):
        locations = loc.locations
        if isinstance(locations, ArrayAttr):
            for sub in locations.data:  # pyright: ignore[reportUnknownVariableType]
                if (found := di_loc_of(sub)) is not None:  # pyright: ignore[reportUnknownArgumentType]
                    return found
        return None
    if isinstance(loc, NameLoc):
        return di_loc_of(loc.location)
    return None


def subprogram_of(scope: Attribute) -> DISubprogramAttr | None:
    if isinstance(scope, DISubprogramAttr):
        return scope
    if isinstance(scope, DILexicalBlockAttr):
        return subprogram_of(scope.scope)
    return None


def attribute_text(attr: Attribute) -> str:
    """An attribute as MLIR streams it into a diagnostic (generic form)."""
    return str(attr)


def verify_function_debug_info(func: Operation, name: str) -> str | None:
    """Rules 1, 2 and 6 for a function op; the error text (without the op prefix)."""
    loc = func.location
    if isinstance(loc, CallSiteLoc):
        return (
            f"invalid function debug info location: {attribute_text(loc)}. Function location "
            "must not be a CallSiteLoc."
        )
    di = di_loc_of(loc)
    if di is None:
        return None
    subprogram = di.scope if isinstance(di.scope, DISubprogramAttr) else None
    if subprogram is None:
        return (
            f"invalid function debug info scope: {attribute_text(di.scope)}. Function "
            "location must have cuda_tile.di_subprogram debug info scope."
        )
    if subprogram.linkage_name.data != name:
        return (
            f"invalid function debug info scope: {attribute_text(subprogram)}. Function name "
            f'"{name}" does not match subprogram scope linkage name '
            f'"{subprogram.linkage_name.data}".'
        )
    return None


def verify_function_body_debug_info(func: Operation) -> tuple[Operation, str] | None:
    """Rules 3 and 4: the first op whose scope disagrees with its function's, with the
    error text."""
    fn_di = di_loc_of(func.location)
    fn_subprogram = subprogram_of(fn_di.scope) if fn_di is not None else None
    for op in func.walk():
        if op is func:
            continue
        di = di_loc_of(op.location)
        op_subprogram = subprogram_of(di.scope) if di is not None else None
        if op_subprogram is None:
            continue
        if fn_subprogram is None:
            return op, (
                f"invalid operation debug info scope: {attribute_text(op_subprogram)}. "
                "Operation has debug info scope, but function debug info scope is undefined."
            )
        if op_subprogram != fn_subprogram:
            return op, (
                f"invalid operation debug info scope: {attribute_text(op_subprogram)}. "
                "Operation debug info scope does not match function debug info scope: "
                f"{attribute_text(fn_subprogram)}."
            )
    return None


def verify_module_debug_info(
    ops: Sequence[Operation], is_function: Callable[[Operation], bool]
) -> tuple[Operation, str] | None:
    """Rule 5: module-level ops other than functions (globals) carry no scope."""
    for op in ops:
        if is_function(op):
            continue
        di = di_loc_of(op.location)
        if di is not None:
            return op, (
                f"invalid operation debug info scope: {attribute_text(di)}. Global variables "
                "must not have scope."
            )
    return None
