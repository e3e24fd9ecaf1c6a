"""Diagnostics: located errors for users, never tracebacks.

Passes raise `CompileError` for input they cannot handle (an unsupported op, an invalid
combination of attributes); the drivers catch it and print one line per diagnostic,
located at the op's source position, in MLIR's form (`file:line:col: error: msg`) or in
tileiras's (`loc("file":line:col): error: msg`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, CallSiteLoc, FileLineColLoc, LocationAttr, UnknownLoc
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


#: Where the files of a Python DSL's own package lie (cuTile: `.../cuda/tile/_stub.py`).
#: A call-site location whose innermost frames are there is reported at the user's
#: frame that called into it.
LIBRARY_PATHS = ("/cuda/tile/",)


def location_of(op: Operation | None) -> SourceLocation | None:
    """The source position of `op`, or of its closest located ancestor."""
    while op is not None:
        loc = _to_source(op.location)
        if loc is not None:
            return loc
        op = op.parent_op()
    return None


def is_library_file(file: str) -> bool:
    """Whether `file` belongs to the DSL's package rather than to the user's code."""
    path = file.replace("\\", "/")
    return any(marker in path for marker in LIBRARY_PATHS)


def frames_of(loc: LocationAttr) -> list[SourceLocation]:
    """The file positions in `loc`, innermost call frame first: a call site is its
    callee's frames, then its caller's; a fused or debug-info location, those of its
    parts in order."""
    if isinstance(loc, FileLineColLoc):
        return [SourceLocation(loc.filename.data, loc.line.data, loc.column.data)]
    if isinstance(loc, UnknownLoc):
        return []
    if isinstance(loc, CallSiteLoc):
        frames: list[SourceLocation] = []
        for part in (loc.callee, loc.caller):
            if isinstance(part, LocationAttr):
                frames += frames_of(part)
        return frames
    frames = []
    for param in getattr(loc, "parameters", ()):
        items = param.data if isinstance(param, ArrayAttr) else (param,)
        for item in items:
            if isinstance(item, LocationAttr):
                frames += frames_of(item)
    return frames


def _to_source(loc: LocationAttr) -> SourceLocation | None:
    """The position a diagnostic about `loc` points at: its innermost frame in the
    user's code.  cuTile locates an op it builds inside its own functions (`astype`,
    `mma` in `cuda/tile/_stub.py`) with `callsite(stub at user line)`, and an op of
    an inlined user helper with `callsite(helper line at kernel line)`: the first is
    reported at the user's line that called the stub, the second at the helper's line
    (the call that made the op).  Without a user frame, the innermost one."""
    frames = frames_of(loc)
    user = [f for f in frames if not is_library_file(f.file)]
    return (user or frames or [None])[0]


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
