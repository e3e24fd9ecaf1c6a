"""Renaming a symbol and the debug info that names it (NVIDIA's `updateSymbolName`),
and the test pass `test-debuginfo-update-symbol-name` that NVIDIA's tests drive it with.

A kernel's `di_subprogram` carries its `linkageName`; a frontend that renames the
kernel (cuTile mangles names: `test_func` -> `_fqZtest_func_f32`) must update it too.
`update_symbol_name` renames the symbol (and, when asked, every reference to it in its
symbol table), then replaces the subprogram of the symbol's `di_loc` by one with the new
linkage name, everywhere inside the given scope: op locations, nested lexical blocks,
name, fused and call-site locations.  The scope must enclose the symbol.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FusedLoc,
    ModuleOp,
    NameLoc,
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.passes import ModulePass
from xdsl.traits import SymbolTable

from tileir.diagnostics import CompileError, location_of
from tileir.dialects.cuda_tile.debug_info import (
    DILexicalBlockAttr,
    DILocAttr,
    DISubprogramAttr,
    callsite_loc,
    fused_loc,
    name_loc,
)


def symbol_name(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None


def lookup_nested(root: Operation, path: list[str]) -> Operation | None:
    """The op named `a::b::c` from `root`: `a` among root's children, `b` among a's..."""
    current = root
    for name in path:
        found = None
        for region in current.regions:
            for block in region.blocks:
                for op in block.ops:
                    if symbol_name(op) == name:
                        found = op
                        break
        if found is None:
            return None
        current = found
    return current


def is_ancestor(ancestor: Operation, op: Operation) -> bool:
    current: Operation | None = op
    while current is not None:
        if current is ancestor:
            return True
        current = current.parent_op()
    return False


def _renamed_reference(attr: Attribute, old: str, new: str) -> Attribute:
    if isinstance(attr, SymbolRefAttr) and attr.root_reference.data == old:
        return SymbolRefAttr(new, [r.data for r in attr.nested_references.data])
    if isinstance(attr, ArrayAttr):
        items = [_renamed_reference(a, old, new) for a in attr.data]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        return ArrayAttr(items)
    return attr


def rename_references(table: Operation, old: str, new: str) -> None:
    """Every `@old` reference (properties and attributes) inside symbol table `table`."""
    for op in table.walk():
        for fields in (op.properties, op.attributes):
            for key, value in list(fields.items()):
                if key == "sym_name":
                    continue
                renamed = _renamed_reference(value, old, new)
                if renamed is not value:
                    fields[key] = renamed


def _with_subprogram(attr: Attribute, old: DISubprogramAttr, new: DISubprogramAttr) -> Attribute:
    """`attr` (a location or a debug-info scope) with `old` replaced by `new`."""
    if attr == old:
        return new
    if isinstance(attr, DILocAttr):
        scope = _with_subprogram(attr.scope, old, new)
        return attr if scope is attr.scope else DILocAttr(attr.source_loc, scope)
    if isinstance(attr, DILexicalBlockAttr):
        scope = _with_subprogram(attr.scope, old, new)
        if scope is attr.scope:
            return attr
        return DILexicalBlockAttr(scope, attr.file, attr.line, attr.column)
    if isinstance(attr, NameLoc):
        child = _with_subprogram(attr.location, old, new)
        return attr if child is attr.location else name_loc(attr.desc.data, child)
    if isinstance(attr, CallSiteLoc):
        callee = _with_subprogram(attr.callee, old, new)
        caller = _with_subprogram(attr.caller, old, new)
        if callee is attr.callee and caller is attr.caller:
            return attr
        return callsite_loc(callee, caller)
    if isinstance(attr, FusedLoc) and isinstance(attr.locations, ArrayAttr):
        children = [_with_subprogram(a, old, new) for a in attr.locations.data]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        if all(a is b for a, b in zip(children, attr.locations.data, strict=True)):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
            return attr
        return fused_loc(children, attr.metadata)
    return attr


def update_symbol_name(
    new_name: str, symbol: Operation, scope: Operation, rename_uses: bool
) -> None:
    """Rename `symbol` and its debug info inside `scope` (see the module doc); raises a
    located `CompileError` when `scope` does not enclose `symbol`."""
    if symbol.parent_op() is not None and not is_ancestor(scope, symbol):
        error = CompileError(
            "attempted to update symbol names in a scope that did not enclose the symbol itself",
            location_of(symbol),
        )
        object.__setattr__(error, "notes", [CompileError("scope defined here", location_of(scope))])
        raise error
    old_name = symbol_name(symbol)
    table = symbol.parent_op()
    while table is not None and not table.has_trait(SymbolTable):
        table = table.parent_op()
    if rename_uses and old_name is not None and table is not None:
        rename_references(table, old_name, new_name)
    key = "sym_name" if "sym_name" in symbol.properties else None
    if key is not None:
        symbol.properties["sym_name"] = StringAttr(new_name)
    else:
        symbol.attributes["sym_name"] = StringAttr(new_name)
    location = symbol.location
    if not isinstance(location, DILocAttr) or not isinstance(location.scope, DISubprogramAttr):
        return
    old = location.scope
    new = DISubprogramAttr(
        old.file, old.line, old.sub_name, StringAttr(new_name), old.compile_unit, old.scope_line
    )
    for op in scope.walk():
        op.location = _with_subprogram(op.location, old, new)  # pyright: ignore[reportAttributeAccessIssue]


@dataclass(frozen=True)
class TestDebugInfoUpdateSymbolNamePass(ModulePass):
    """Test pass: rename `symbol-to-rename` (`outer::inner`) to `new-name` within
    `scope` (default: the whole input), its references too with `update-uses`."""

    name = "test-debuginfo-update-symbol-name"

    symbol_to_rename: str = ""
    new_name: str = ""
    scope: str = ""
    update_uses: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        def at(path: str) -> Operation:
            found = lookup_nested(op, path.split("::"))
            if found is None:
                reference = "::".join(f"@{name}" for name in path.split("::"))
                raise CompileError(
                    f"could not find symbol op with name '{reference}'", location_of(op)
                )
            return found

        scope = at(self.scope) if self.scope else op
        symbol = at(self.symbol_to_rename)
        update_symbol_name(self.new_name, symbol, scope, self.update_uses)
