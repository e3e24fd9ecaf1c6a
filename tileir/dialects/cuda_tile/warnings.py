"""Warnings from cuda_tile verifiers, as MLIR's `emitWarning` gives them.

Some of NVIDIA's verifiers warn without failing: an `extract` at a constant index
that is out of range, a bad optimization hint under `-Wunsupported-hints`.  A
verifier calls `emit_warning(op, message)`; the warning goes to the innermost
sink installed with `collecting_warnings()` (tileir-opt installs one per input
chunk, so that `--verify-diagnostics` can match `expected-warning`s and a plain run
prints them as `file:line:col: warning: ...`).  Without a sink the warning is
printed on stderr, once per location and message: a pipeline verifies the module
after each pass, and the same op would otherwise warn again each time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from xdsl.ir import Operation

from tileir.diagnostics import CompileError, SourceLocation, location_of

WarningSink = Callable[[CompileError], None]

_SINKS: list[WarningSink] = []
_PRINTED: set[tuple[str, str]] = set()


def make_warning(op: Operation, message: str) -> CompileError:
    """A located diagnostic of severity `warning` (read by the driver's
    `diagnostic_of`)."""
    return warning_at(location_of(op), message)


def warning_at(location: SourceLocation | None, message: str) -> CompileError:
    """A diagnostic of severity `warning` at `location`."""
    warning = CompileError(message, location)
    object.__setattr__(warning, "severity", "warning")
    return warning


def format_warning(warning: CompileError) -> str:
    """`file:line:col: warning: message` (or `warning: message` when unlocated)."""
    if warning.location is None:
        return f"warning: {warning.message}"
    return f"{warning.location.mlir()}: warning: {warning.message}"


def emit_warning(op: Operation, message: str) -> None:
    """Report a warning about `op` to the current sink (see the module doc)."""
    _report(make_warning(op, message), message)


def emit_warning_at(location: SourceLocation, message: str) -> None:
    """Report a warning at a source position (a literal the parser read, before its op
    exists) to the current sink."""
    _report(warning_at(location, message), message)


def _report(warning: CompileError, message: str) -> None:
    if _SINKS:
        _SINKS[-1](warning)
        return
    key = (warning.location.mlir() if warning.location else "", message)
    if key not in _PRINTED:
        _PRINTED.add(key)
        print(format_warning(warning), file=sys.stderr)


@contextmanager
def collecting_warnings() -> Iterator[list[CompileError]]:
    """Collect the warnings emitted inside the block, each (location, message) once,
    in the order they came."""
    collected: list[CompileError] = []
    seen: set[tuple[str, str]] = set()

    def sink(warning: CompileError) -> None:
        key = (warning.location.mlir() if warning.location else "", warning.message)
        if key not in seen:
            seen.add(key)
            collected.append(warning)

    _SINKS.append(sink)
    try:
        yield collected
    finally:
        _SINKS.remove(sink)
