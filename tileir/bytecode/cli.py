"""Bytecode in tileir-opt: the `tileirbc` frontend, `-t tileirbc` and `--bytecode-version`.

`BytecodeOptMixin` goes in front of `xDSLOptMain` in `TileirOptMain`'s bases, so the
driver itself only names it:

* a `.tileirbc` (or `.bc`) input, or `-f tileirbc`, is read by `read_bytecode`; with
  `--allow-unregistered-dialect`, ops tileir has no class for yet come in as
  unregistered ops (and can be written back);
* `-t tileirbc` writes bytes: the output stream, a file or stdout, takes the Latin-1
  text the target produces back to bytes one for one;
* `--bytecode-version V` sets the target's `bytecode-version`, and the version
  `--bytecode-roundtrip` writes and reads back.
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import replace
from typing import IO, Any, cast

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.arg_spec import parse_spec

from tileir.bytecode.target import BINARY_ENCODING, TileirbcTarget
from tileir.bytecode.version import NEWEST, SUPPORTED_VERSIONS, parse_version
from tileir.diagnostics import CompileError
from tileir.utils.output import STDOUT, ReportingStream


class _KeepOpen(io.TextIOWrapper):
    """A text layer over stdout's byte stream that leaves stdout open when closed."""

    def close(self) -> None:
        if not self.closed:
            try:
                self.flush()
            finally:
                self.detach()


class BytecodeOptMixin:
    """tileir-opt's bytecode support (see the module docstring)."""

    args: argparse.Namespace
    available_frontends: dict[str, Any]
    available_targets: dict[str, Any]
    ctx: Any

    def register_all_frontends(self) -> None:
        super().register_all_frontends()  # pyright: ignore[reportAttributeAccessIssue]
        from tileir.bytecode.reader import read_bytecode

        def parse_bytecode(stream: IO[bytes]) -> ModuleOp:
            return read_bytecode(
                stream.read(),
                self.get_input_name(),  # pyright: ignore[reportAttributeAccessIssue]
                self.ctx,
                allow_unregistered=bool(self.ctx.allow_unregistered),
                verify=not self.args.disable_verify,
            )

        self.available_frontends["tileirbc"] = parse_bytecode
        self.available_frontends.setdefault("bc", parse_bytecode)  # NVIDIA's tests use .bc

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)  # pyright: ignore[reportAttributeAccessIssue]
        arg_parser.add_argument(
            "--bytecode-version",
            type=_version_argument,
            default=None,
            help="bytecode version written by -t tileirbc (default: the newest): "
            + ", ".join(str(v) for v in SUPPORTED_VERSIONS),
        )
        arg_parser.add_argument(
            "--list-bytecode-versions",
            action=_ListVersions,
            nargs=0,
            help="print the bytecode versions tileir reads and writes, one a line, and exit "
            "(cuda-tile-translate --list-versions)",
        )

    def _binary_target(self) -> bool:
        factory = self.available_targets.get(parse_spec(self.args.target).name)
        if factory is None:
            return False
        try:
            cls = factory()
        except TypeError:  # a legacy target function
            return False
        return bool(getattr(cls, "binary_output", False))

    def prepare_output(self) -> IO[str]:
        """Standard output for no `-o` or `-o -` (as mlir-opt does); bytes go through
        unchanged for a binary target; an unwritable path, and a write that fails (a
        full disk, a closed pipe), is a diagnostic (`tileir/utils/output.py`)."""
        binary = self._binary_target()
        path = self.args.output_file
        if path is None or path == STDOUT:
            if binary:
                stream = _KeepOpen(sys.stdout.buffer, encoding=BINARY_ENCODING, newline="")
                return _reporting(stream, STDOUT)
            return _reporting(sys.stdout, STDOUT)
        try:
            if binary:
                return _reporting(open(path, "w", encoding=BINARY_ENCODING, newline=""), path)
            return _reporting(open(path, "w"), path)
        except OSError as e:
            raise CompileError(f"cannot write output file '{path}': {e.strerror}") from None

    def output_resulting_program(self, prog: ModuleOp) -> str:
        spec = parse_spec(self.args.target)
        version = self.args.bytecode_version
        roundtrip = bool(getattr(self.args, "bytecode_roundtrip", False))
        if roundtrip:
            # cuda-tile-translate --test-cudatile-roundtrip [-bytecode-version=V]: write
            # the module in version V (the newest by default), print what reads back.
            from tileir.bytecode import read_bytecode, write_bytecode

            data = write_bytecode(prog, parse_version(version or str(NEWEST)))
            prog = read_bytecode(data, self.get_input_name(), self.ctx)  # pyright: ignore[reportAttributeAccessIssue]
        if spec.name != TileirbcTarget.name:
            if version is not None and not roundtrip:
                raise ValueError(
                    "--bytecode-version applies only to -t tileirbc and --bytecode-roundtrip"
                )
            return super().output_resulting_program(prog)  # pyright: ignore[reportAttributeAccessIssue]
        target = TileirbcTarget.from_spec(spec)
        if version is not None:
            if (
                "bytecode_version" in spec.normalize_parameter_names().parameters
                and str(target.bytecode_version) != version
            ):
                raise ValueError(
                    f"--bytecode-version {version} contradicts "
                    f"bytecode-version={target.bytecode_version} in -t {self.args.target}"
                )
            target = replace(target, bytecode_version=version)
        out = io.StringIO()
        target.emit(self.ctx, prog, out)
        return out.getvalue()


class _ListVersions(argparse.Action):
    """`--list-bytecode-versions`: like `--version`, it prints and exits at once."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print("\n".join(str(v) for v in SUPPORTED_VERSIONS))
        parser.exit()


def _version_argument(text: str) -> str:
    """`--bytecode-version`'s value, checked as cuda-tile-translate checks it (`Invalid
    argument '12.0': the supported versions are [13.1 - 13.4]`)."""
    try:
        return str(parse_version(text))
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _reporting(stream: IO[str], path: str) -> IO[str]:
    """`stream` behind a `ReportingStream` (a text stream, typed as xDSL's drivers take
    their output)."""
    return cast(IO[str], ReportingStream(stream, path))
