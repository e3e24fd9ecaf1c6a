"""Diagnostics: located errors for users, never tracebacks.

Passes raise `CompileError` for input they cannot handle (an unsupported op, an invalid
combination of attributes); the drivers catch it and print it located at the op's source
position, in MLIR's form (`file:line:col: error: msg`) or in tileiras's
(`loc("file":line:col): error: msg`).

`str()` of a `CompileError` (what Python and Jupyter show) and the drivers' output are
its `render()`: the located line, the source line with a caret under the column, as
clang and MLIR print them, then its notes (`prior use here`, the op that needs a
resource) rendered the same way.  Types are shown in cuda_tile's own spelling
(`tile<4xf32>`, not `!cuda_tile.tile<4xf32>`) there; `message` keeps MLIR's spelling,
which `--verify-diagnostics` matches as NVIDIA's tests expect.

The source line comes from the text the parser read (`remember_source`, for input
that is no file: `tileir.load(text)`) or else from the file itself (a `.mlir` file, or
the Python file of a cuTile kernel whose bytecode points there).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from xdsl.dialects.builtin import ArrayAttr, CallSiteLoc, FileLineColLoc, LocationAttr, UnknownLoc
from xdsl.ir import Operation


@dataclass
class SourceLocation:
    file: str
    line: int
    column: int

    def mlir(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def __str__(self) -> str:  # `file:line:col`, as diagnostics print it
        return self.mlir()

    def tileiras(self) -> str:
        return f'loc("{self.file}":{self.line}:{self.column})'


class CompileError(Exception):
    """A user-facing error, optionally located, with notes (further located messages
    that explain it: MLIR's `prior use here`)."""

    def __init__(
        self,
        message: str,
        location: SourceLocation | None = None,
        notes: Sequence[CompileError] = (),
    ):
        super().__init__(message)
        self.message = message
        self.location = location
        self.notes: list[CompileError] = list(notes)

    def format(self, style: str = "mlir") -> str:
        """The one located line (`file:line:col: error: message`), message as written."""
        return _header(self.location, "error", self.message, style)

    def render(self, style: str = "mlir", *, source: bool = True) -> str:
        """The diagnostic as a user reads it: each error (several for an error that
        holds `errors`), its source line and caret (with `source`), and its notes, types
        in cuda_tile's spelling.  `style` is `mlir` or `tileiras` (the location form)."""
        several: Sequence[object] = getattr(self, "errors", None) or ()
        errors = [e for e in several if isinstance(e, CompileError)] or [self]
        parts: list[str] = []
        for error in errors:
            # A subclass may say where it is in its own way (bytecode: the file alone).
            header = (
                _header(error.location, "error", error.message, style)
                if type(error).format is CompileError.format
                else error.format(style)
            )
            parts.append(cuda_tile_spelling(header) + (excerpt(error.location) if source else ""))
            for note in error.notes:
                text = cuda_tile_spelling(note.message)
                parts.append(
                    _header(note.location, "note", text, style)
                    + (excerpt(note.location) if source else "")
                )
        return "\n".join(parts)

    def __str__(self) -> str:
        if self.location is None and not self.notes and not getattr(self, "errors", None):
            return cuda_tile_spelling(self.message)
        return self.render()


def _header(location: SourceLocation | None, severity: str, message: str, style: str) -> str:
    if location is None:
        return f"{severity}: {message}"
    where = location.tileiras() if style == "tileiras" else location.mlir()
    return f"{where}: {severity}: {message}"


# ---------------------------------------------------------------------------- sources

#: Texts parsed from memory, by the name diagnostics give them (the last few only).
_SOURCES: OrderedDict[str, str] = OrderedDict()
_SOURCES_KEPT = 16


def remember_source(name: str, text: str) -> None:
    """Keep `text` as the source of `name` for the excerpts of later diagnostics."""
    _SOURCES[name] = text
    _SOURCES.move_to_end(name)
    while len(_SOURCES) > _SOURCES_KEPT:
        _SOURCES.popitem(last=False)


def source_line(file: str, line: int) -> str | None:
    """Line `line` (1-based) of `file`: of a remembered text, else of the file on disk;
    None where neither can be read."""
    text = _SOURCES.get(file)
    if text is None:
        try:
            path = Path(file)
            if not path.is_file() or path.stat().st_size > 64 << 20:
                return None
            text = path.read_text(errors="replace")
        except (OSError, ValueError):
            return None
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else None


def excerpt(location: SourceLocation | None) -> str:
    """A newline, the source line of `location` and a caret under its column (tabs kept, so the
    caret lines up), or nothing where the line cannot be read."""
    if location is None:
        return ""
    text = source_line(location.file, location.line)
    if text is None:
        return ""
    # MLIR's columns count from 1; cuTile writes Python's `col_offset`, from 0.
    before = location.column if location.file.endswith(".py") else location.column - 1
    if before < 0:
        return ""
    pad = "".join(c if c == "\t" else " " for c in text[:before])
    return f"\n{text}\n{pad}^"


# ---------------------------------------------------------------------------- wording

_CUDA_TILE_TYPE = re.compile(r"!cuda_tile\.(?=[A-Za-z_])")


def cuda_tile_spelling(message: str) -> str:
    """`message` with cuda_tile types as cuda_tile text writes them: `tile<4xf32>` for
    MLIR's `!cuda_tile.tile<4xf32>` (the generic spelling diagnostics are made in)."""
    return _CUDA_TILE_TYPE.sub("", message)


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`; did you mean 'x'?` (or `'x' or 'y'`) for the registered names closest to
    `word`, or "" where none is close."""
    import difflib  # an error's suggestion only: not a compilation's import

    scored = sorted(
        ((difflib.SequenceMatcher(None, word, c).ratio(), c) for c in set(candidates)),
        reverse=True,
    )
    # The best match, and a second one only where it is as close (`exp2f`: exp2, exp).
    # A short name is close at one character changed (`f33`: f32, a ratio of 2/3).
    least = 0.75 if len(word) > 4 else 0.65
    close = [c for ratio, c in scored[:2] if ratio >= least and ratio >= scored[0][0] - 0.05]
    if not close or word in close:
        return ""
    return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


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
            # A part may be a `#cuda_tile.di_loc` (read from bytecode), a location too.
            if isinstance(part, LocationAttr) or part.name == "cuda_tile.di_loc":
                frames += frames_of(part)  # pyright: ignore[reportArgumentType]
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


#: What to do about a gap that only tileir's own lowering can hit (an internal op in a
#: state the passes before it should not leave): it is tileir's to fix, not the user's.
REPORT = (
    "this is a gap in tileir's lowering, not an error in the kernel: please report it "
    "with the kernel (tileir-as --emit=tileas shows the IR it came from)"
)


def not_supported(
    op: Operation, what: str | None = None, *, instead: str | None = None
) -> CompileError:
    """An error for input tileir cannot compile yet, as a user can act on it: where (the
    op's location, the user's line), what (`what`, and the op the user wrote:
    `tileir.user_terms.written_as`), and what to do instead (`instead`: a smaller tile,
    another dtype or target, `num-warps`; by default `REPORT`).  A resource the target
    lacks is not a gap: it is worded as a limit (`exceeds the shared memory limit`)."""
    from tileir.user_terms import written_as

    detail = f": {what}" if what else ""
    return error_at(
        op, f"is not supported by tileir yet{detail}{written_as(op)}; {instead or REPORT}"
    )


def verify_module(module: Operation) -> None:
    """Verify every op; the first failure becomes a located `CompileError`.  An op whose
    verdict depends only on its signature is verified once per signature
    (tileir/utils/verified_signatures.py)."""
    from xdsl.utils.exceptions import VerifyException

    from tileir.utils.verified_signatures import verify_op
    from tileir.utils.walk import ops_of

    for op in ops_of(module):
        try:
            verify_op(op)
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
