"""Writing a driver's output: a failed write is a diagnostic that names the output.

A full disk (`-o /dev/full`), a closed pipe (`tileir-as --emit=ptx | head -1`), a
read-only file system: the drivers report `cannot write output file 'F': No space left
on device` (or `cannot write to standard output: ...`) with exit code 1, never an
internal compiler error.  After standard output failed, it is pointed at /dev/null, so
that the interpreter's own flush at exit does not fail a second time.
"""

from __future__ import annotations

import io
import os
import sys
from typing import IO

from tileir.diagnostics import CompileError

STDOUT = "-"


def write_error(path: str, error: OSError) -> CompileError:
    """The diagnostic for a failed write to `path` (`-` for standard output)."""
    reason = error.strerror or str(error)
    if path == STDOUT:
        silence_stdout()
        return CompileError(f"cannot write to standard output: {reason}")
    return CompileError(f"cannot write output file '{path}': {reason}")


def silence_stdout() -> None:
    """Drop what standard output still buffers and send the rest to /dev/null."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def write_file(path: str, data: str | bytes) -> None:
    """Write `data` (text or bytes) to `path`, or to standard output for `-`."""
    try:
        if path == STDOUT:
            if isinstance(data, bytes):
                sys.stdout.flush()
                sys.stdout.buffer.write(data)
                sys.stdout.buffer.flush()
            else:
                sys.stdout.write(data)
                sys.stdout.flush()
            return
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
    except OSError as e:
        raise write_error(path, e) from None


class ReportingStream(io.TextIOBase):
    """A text output stream whose write errors are `CompileError`s naming `path`.
    Closing it closes the stream it wraps unless that is standard output."""

    def __init__(self, stream: IO[str], path: str):
        super().__init__()
        self.stream = stream
        self.path = path
        self.finished = False

    def write(self, s: str) -> int:
        try:
            return self.stream.write(s)
        except OSError as e:
            raise write_error(self.path, e) from None

    def flush(self) -> None:
        if self.finished:
            return
        try:
            self.stream.flush()
        except OSError as e:
            raise write_error(self.path, e) from None

    def close(self) -> None:
        if self.finished:
            return
        self.finished = True
        try:
            if self.stream is sys.stdout:
                self.stream.flush()
            else:
                self.stream.close()
        except OSError as e:
            raise write_error(self.path, e) from None
        finally:
            super().close()

    def writable(self) -> bool:
        return True
