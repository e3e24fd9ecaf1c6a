"""Diagnostics: located errors for users, never tracebacks.

Passes raise `CompileError` for input they cannot handle (an unsupported op, an invalid
combination of attributes); the drivers catch it and print one line per diagnostic,
located at the op's source position, in MLIR's form (`file:line:col: error: msg`) or in
tileiras's (`loc("file":line:col): error: msg`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc, LocationAttr, UnknownLoc
from xdsl.ir import Operation


@dataclass
class SourceLocation:
    file: str
    line: int
    column: int

    def mlir(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def tileiras(self) -> str:
        return f'loc("{self.file}":{self.line}:{self.column})'


class CompileError(Exception):
    """A user-facing error, optionally located."""

    def __init__(self, message: str, location: SourceLocation | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def format(self, style: str = "mlir") -> str:
        if self.location is None:
            return f"error: {self.message}"
        where = self.location.tileiras() if style == "tileiras" else self.location.mlir()
        return f"{where}: error: {self.message}"


def location_of(op: Operation | None) -> SourceLocation | None:
    """The source position of `op`, or of its closest located ancestor."""
    while op is not None:
        loc = _to_source(op.location)
        if loc is not None:
            return loc
        op = op.parent_op()
    return None


def _to_source(loc: LocationAttr) -> SourceLocation | None:
    if isinstance(loc, FileLineColLoc):
        return SourceLocation(loc.filename.data, loc.line.data, loc.column.data)
    if isinstance(loc, UnknownLoc):
        return None
    # Debug-info and fused locations carry a file position somewhere inside.
    for param in getattr(loc, "parameters", ()):
        if isinstance(param, LocationAttr) and (found := _to_source(param)) is not None:
            return found
    return None


def error_at(op: Operation | None, message: str) -> CompileError:
    """An error about `op` (the op's name is prefixed, as MLIR's emitOpError does)."""
    prefix = f"'{op.name}' op " if op is not None else ""
    return CompileError(prefix + message, location_of(op))


def not_supported(op: Operation, what: str | None = None) -> CompileError:
    detail = f": {what}" if what else ""
    return error_at(op, f"is not supported by tileir yet{detail}")


def verify_module(module: Operation) -> None:
    """Verify every op; the first failure becomes a located `CompileError`."""
    from xdsl.utils.exceptions import VerifyException

    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            message = str(e).split("\n")[0]
            message = message.removeprefix("Operation does not verify: ")
            where = location_of(_redefinition(op, message) or op)
            raise CompileError(message, where) from None


def _redefinition(table: Operation, message: str) -> Operation | None:
    """For a symbol table's `Redefinition of symbol "k"`, the second op that defines `k`
    (the error is about it, not about the table)."""
    import re

    from xdsl.dialects.builtin import StringAttr

    m = re.fullmatch(r'Redefinition of symbol "(.+)"', message)
    if m is None:
        return None
    seen = 0
    for region in table.regions:
        for block in region.blocks:
            for child in block.ops:
                name = child.properties.get("sym_name") or child.attributes.get("sym_name")
                if isinstance(name, StringAttr) and name.data == m.group(1):
                    seen += 1
                    if seen == 2:
                        return child
    return None
