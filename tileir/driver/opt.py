"""`tileir-opt`: xdsl-opt with tileir's dialects, passes and targets.

Everything `xdsl-opt` accepts works (`-p`, `--split-input-file`, `--print-op-generic`,
`-o`, `-t`).  On top of it:

* cuda_tile prints in NVIDIA's form (prefix-free inside `cuda_tile.module`, MLIR's
  SSA names) and parses in both forms, including tileirdisasm's bare `entry`;
* ops remember their source position, so errors from any pass are located; with
  `--split-input-file` lines are those of the whole file, as MLIR reports them;
* bad input gives `file:line:col: error: ...` with the source line, a caret under the
  column and the diagnostic's notes (`tileir.diagnostics`), and exit code 1, not a
  traceback;
* `--verify-diagnostics` is MLIR's: each chunk's diagnostics are checked against its
  `expected-*` annotations (`tileir.driver.verify_diagnostics`), mismatches are
  reported on stderr and make the exit code 1;
* `--split-input-file` without `--verify-diagnostics` is MLIR's too: every chunk is
  processed, each failing chunk's diagnostics are printed on stderr, and the exit code
  is 1 at the end if any chunk failed;
* verifier warnings (`tileir.dialects.cuda_tile.warnings`) are printed as
  `file:line:col: warning: ...` and matched by `expected-warning`;
* `--Wunsupported-hints` reports bad `optimization_hints` as warnings and
  `--Werr-hints` (with it) also makes them errors, as cuda-tile-opt does;
* `--no-implicit-module` takes one top-level op of any kind (a bare
  `cuda_tile.module`, as NVIDIA's tools do);
* `--bytecode-roundtrip` writes the result as bytecode and reads it back before printing
  (cuda-tile-translate's `--test-cudatile-roundtrip`);
* `--test-debuginfo-update-symbol-name="symbol-to-rename=... new-name=..."` runs that
  test pass, with cuda-tile-opt's option syntax;
* layouts print as `#blocked = ...` aliases (`tileir.printing`); `--print-local-scope`
  prints every attribute in place, as MLIR's `--mlir-print-local-scope`;
* `--print-ir-after-all`, `--print-ir-after=PASS`, `--dump-dir DIR` and `--time-passes`
  show every pass, named pipelines (`cuda-tile-to-ptx`) pass by pass
  (`tileir.driver.pass_trace`); so does xDSL's `--print-between-passes`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from io import BytesIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.targets.mlir import MLIRTarget
from xdsl.utils.exceptions import (
    DiagnosticException,
    MultipleSpansParseError,
    ParseError,
    VerifyException,
)
from xdsl.utils.lexer import Input, Span
from xdsl.xdsl_opt_main import xDSLOptMain

from tileir.bytecode.cli import BytecodeOptMixin
from tileir.diagnostics import (
    CompileError,
    SourceLocation,
    cuda_tile_spelling,
    excerpt,
    verify_module,
)
from tileir.dialects.cuda_tile.hints import HINT_POLICY
from tileir.dialects.cuda_tile.warnings import collecting_warnings, format_warning
from tileir.driver.pass_trace import PassTracer, TraceOptions, traced_pipeline
from tileir.driver.pass_trace import add_arguments as add_trace_arguments
from tileir.driver.verify_diagnostics import (
    Diagnostic,
    check_diagnostics,
    diagnostic_of,
    diagnostics_of,
    first_code_line,
    parse_expectations,
)
from tileir.frontend import parse_error, parse_text
from tileir.pipelines import expand
from tileir.printing import TileirPrinter
from tileir.registry import DIALECTS, PASSES, TARGETS


@dataclass(frozen=True)
class TileirMLIRTarget(MLIRTarget):
    """The `mlir` target, printing through tileir's printer."""

    #: Every attribute in place, no `#alias = ...` definitions (`--print-local-scope`).
    local_scope: bool = False

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        printer = TileirPrinter(
            stream=output,
            print_generic_format=self.print_generic_format,
            print_properties_as_attributes=self.print_properties_as_attributes,
            print_debuginfo=self.print_debuginfo,
            local_scope=self.local_scope,
        )
        printer.print_op(module)
        printer.print_metadata(ctx.loaded_dialects)
        print("\n", file=output)


@dataclass(frozen=True)
class LocalScopeMLIRTarget(TileirMLIRTarget):
    """The `mlir` target under `--print-local-scope`."""

    local_scope: bool = True


class TileirOptMain(BytecodeOptMixin, xDSLOptMain):
    version_format = "tileir-opt (tileir 0.1.0) built on xdsl {xdsl_version}"

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in DIALECTS.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        if self.args.input_file is None and sys.stdin is None:
            raise ValueError("no input file, and standard input is closed")
        return super().get_input_stream()

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            source = io.read()
            name = self.get_input_name()
            if not self.args.no_implicit_module:
                return parse_text(self.ctx, source, name)
            return parse_single_top_level_op(self.ctx, source, name)

        self.available_frontends["mlir"] = parse_mlir

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        """Parse, then verify op by op so that a failure is located.

        A chunk of a split text file is parsed behind `start_offset` empty lines, so that its
        ops' locations are lines of the whole file.  A parse error is given back with a
        span into the chunk itself, which xDSL then shifts by `start_offset`."""
        if start_offset and file_extension == "mlir":
            chunk = BytesIO(b"\n" * start_offset + chunk.read())
        else:
            start_offset = 0
        try:
            module = super().parse_chunk(chunk, file_extension, start_offset)
        except ParseError as e:
            raise _without_padding(e, start_offset) from None
        if module is not None and not self.args.disable_verify:
            verify_module(module)
        return module

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        add_trace_arguments(arg_parser)
        arg_parser.add_argument(
            "--print-local-scope",
            action="store_true",
            help="print attributes in place, without #alias definitions "
            "(MLIR's --mlir-print-local-scope)",
        )
        arg_parser.add_argument(
            "--Wunsupported-hints",
            dest="warn_unsupported_hints",
            action="store_true",
            help="warn about optimization_hints that are unknown or out of range",
        )
        arg_parser.add_argument(
            "--test-debuginfo-update-symbol-name",
            dest="test_update_symbol_name",
            metavar="OPTIONS",
            default=None,
            help="run the test pass test-debuginfo-update-symbol-name after the -p passes, "
            "with MLIR-style options ('symbol-to-rename=a::b new-name=c update-uses=true'), "
            "as cuda-tile-opt's flag of that name does",
        )
        arg_parser.add_argument(
            "--bytecode-roundtrip",
            action="store_true",
            help="write the result as bytecode and read it back before printing "
            "(cuda-tile-translate --test-cudatile-roundtrip)",
        )
        arg_parser.add_argument(
            "--Werr-hints",
            dest="error_hints",
            action="store_true",
            help="with --Wunsupported-hints: such hints make the op fail to verify",
        )

    def run(self) -> None:
        HINT_POLICY.warn = bool(self.args.warn_unsupported_hints)
        HINT_POLICY.error = HINT_POLICY.warn and bool(self.args.error_hints)
        if self.args.verify_diagnostics:
            if not self.run_verifying_diagnostics():
                raise DiagnosticsMismatch()
            return
        if self.args.split_input_file or HINT_POLICY.warn:
            if not self.run_all_chunks():
                raise ChunksFailed()
            return
        with collecting_warnings() as warnings:
            try:
                super().run()
            finally:
                for warning in warnings:
                    print(format_warning(warning), file=sys.stderr)

    def run_all_chunks(self) -> bool:
        """MLIR's `--split-input-file`: process every chunk, print each failing chunk's
        diagnostics (and every chunk's warnings) on stderr.  True when none failed."""
        chunks, file_extension = self.prepare_input()
        output = self.prepare_output()
        all_succeeded = True
        try:
            for index, (chunk, offset) in enumerate(chunks):
                with chunk:
                    source = chunk.read()
                if index > 0:
                    output.write("// -----\n")
                printed, produced = self.diagnose_chunk(source, file_extension, offset)
                if printed is not None:
                    output.write(printed)
                output.flush()
                for diagnostic in produced:
                    print(_format_diagnostic(diagnostic), file=sys.stderr)
                    all_succeeded = all_succeeded and diagnostic.severity != "error"
        finally:
            if output is not sys.stdout:
                output.close()
        return all_succeeded

    def run_verifying_diagnostics(self) -> bool:
        """MLIR's `--verify-diagnostics`: run each chunk, match what it reports against its
        annotations, report the mismatches on stderr.  True when every chunk matched."""
        chunks, file_extension = self.prepare_input()
        output = self.prepare_output()
        filename = self.get_input_name()
        all_matched = True
        try:
            for index, (chunk, offset) in enumerate(chunks):
                with chunk:
                    source = chunk.read()
                if index > 0:
                    output.write("// -----\n")
                text = source.decode("utf-8", errors="replace")
                expected, mismatches = parse_expectations(text, filename, offset)
                printed, produced = self.diagnose_chunk(source, file_extension, offset)
                if printed is not None:
                    output.write(printed)
                    output.flush()
                mismatches += check_diagnostics(
                    expected, produced, filename, first_code_line(text, offset)
                )
                lines = text.split("\n")
                for mismatch in mismatches:
                    index_in_chunk = (mismatch.line or 0) - offset - 1
                    quoted = (
                        lines[index_in_chunk]
                        if mismatch.file == filename and 0 <= index_in_chunk < len(lines)
                        else None
                    )
                    print(mismatch.format(quoted), file=sys.stderr)
                all_matched = all_matched and not mismatches
        finally:
            if output is not sys.stdout:
                output.close()
        return all_matched

    def diagnose_chunk(
        self, source: bytes, file_extension: str, offset: int
    ) -> tuple[str | None, list[Diagnostic]]:
        """Parse, verify, run the passes on and print one chunk.  Returns the printed
        output (None when it failed) and its diagnostics: the warnings, then the error
        that stopped it."""
        with collecting_warnings() as warnings:
            printed, errors = self._diagnose_chunk(source, file_extension, offset)
        return printed, [diagnostic_of(w) for w in warnings] + errors

    def _diagnose_chunk(
        self, source: bytes, file_extension: str, offset: int
    ) -> tuple[str | None, list[Diagnostic]]:
        module: ModuleOp | None = None
        try:
            module = self.parse_chunk(BytesIO(source), file_extension, offset)
            if module is None:
                return None, []
            self.apply_passes(module)
            return self.output_resulting_program(module), []
        except ParseError as e:
            return None, diagnostics_of(_map_spans(e, lambda s: replace(s, line_offset=offset)))
        except CompileError as e:
            return None, diagnostics_of(e)
        except VerifyException as e:
            # The pipeline verifies the whole module after each pass; find the op that
            # fails, for its location.
            if module is not None:
                try:
                    verify_module(module)
                except CompileError as located:
                    return None, diagnostics_of(located)
            return None, [Diagnostic("error", _first_line(e))]
        except DiagnosticException as e:
            return None, [Diagnostic("error", _first_line(e))]

    def apply_passes(self, prog: ModuleOp) -> None:
        """The `-p` passes; with `--print-ir-after-all`, `--print-ir-after`, `--dump-dir`,
        `--time-passes` or `--print-between-passes`, the named pipelines expanded pass by
        pass and each pass reported (`tileir.driver.pass_trace`)."""
        options = TraceOptions.from_args(self.args)
        between = bool(self.args.print_between_passes)
        if not (options.enabled or between):
            super().apply_passes(prog)
            return
        tracer = PassTracer(options, line_width=None)  # one line per op, as its output
        if between:
            tracer.between = sys.stdout
        verify = None if self.args.disable_verify else verify_module
        traced_pipeline(self.pipeline.passes, prog, tracer, expand, verify).apply(self.ctx, prog)
        tracer.finish()

    def setup_pipeline(self) -> None:
        options = self.args.test_update_symbol_name
        if options is not None:
            spec = f"test-debuginfo-update-symbol-name{{{_pass_options(options)}}}"
            self.args.passes = f"{self.args.passes},{spec}" if self.args.passes else spec
        super().setup_pipeline()

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in PASSES.items():
            if name not in self.available_passes:
                self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        def mlir_target() -> type[TileirMLIRTarget]:
            local = bool(getattr(self.args, "print_local_scope", False))
            return LocalScopeMLIRTarget if local else TileirMLIRTarget

        self.available_targets["mlir"] = mlir_target
        super().register_all_targets()
        for name, factory in TARGETS.items():
            self.available_targets.setdefault(name, factory)  # pyright: ignore[reportArgumentType]


def _pass_options(options: str) -> str:
    """MLIR's `key=value key=value` pass options as an xDSL pass spec's: values other
    than booleans and numbers are quoted."""
    items: list[str] = []
    for item in options.split():
        key, _, value = item.partition("=")
        if value in ("true", "false") or value.lstrip("-").isdigit():
            items.append(f"{key}={value}")
        else:
            items.append(f'{key}="{value}"')
    return " ".join(items)


def parse_single_top_level_op(ctx: Context, source: bytes | str, name: str) -> ModuleOp:
    """`--no-implicit-module`, as in MLIR: the input is one top-level op, which need not
    be a `builtin.module` (NVIDIA's tools take a bare `cuda_tile.module`).  tileir's
    passes work on a `builtin.module`, so another op is wrapped in one."""
    try:
        return parse_text(ctx, source, name, implicit_module=False)
    except ParseError:
        module = parse_text(ctx, source, name)
    top_level = list(module.ops)
    if len(top_level) != 1:
        raise CompileError(
            "source must contain a single top-level operation, found "
            f"{len(top_level)} (--no-implicit-module)",
            SourceLocation(name, 1, 1),
        )
    return module


class DiagnosticsMismatch(Exception):
    """`--verify-diagnostics` found a mismatch; it has been reported on stderr."""


class ChunksFailed(Exception):
    """Some chunk of a split input failed; its diagnostics have been printed."""


def _format_diagnostic(diagnostic: Diagnostic) -> str:
    """MLIR's `file:line:col: severity: message` with the source line and a caret, then
    its notes the same way, types in cuda_tile's spelling (`CompileError.render`)."""
    lines: list[str] = []
    for part in diagnostic.flattened():
        where = part.location.mlir() + ": " if part.location is not None else ""
        message = cuda_tile_spelling(part.message)
        lines.append(f"{where}{part.severity}: {message}{excerpt(part.location)}")
    return "\n".join(lines)


def _first_line(error: Exception) -> str:
    return str(error).split("\n")[0].removeprefix("Operation does not verify: ")


def _without_padding(error: ParseError, padding: int) -> ParseError:
    """`error` with its spans moved from the padded chunk into the chunk itself."""
    if not padding:
        return error

    def unpad(span: Span[str] | Span[bytes]) -> Span[str] | Span[bytes]:
        start, end = max(span.start - padding, 0), max(span.end - padding, 0)
        content, name = span.input.content, span.input.name
        if isinstance(content, str):
            return Span(start, end, Input(content[padding:], name), span.line_offset)
        return Span(start, end, Input(content[padding:], name), span.line_offset)

    return _map_spans(error, unpad)


def _map_spans(
    error: ParseError, change: Callable[[Span[str] | Span[bytes]], Span[str] | Span[bytes]]
) -> ParseError:
    """Apply `change` to every span of `error`: its own, those of its notes
    (`MultipleSpansParseError`) and those of the errors it groups (`errors`)."""
    error.span = change(error.span)
    if isinstance(error, MultipleSpansParseError):
        error.refs = [(change(span), message) for span, message in error.refs]
    for inner in getattr(error, "errors", None) or ():
        if isinstance(inner, ParseError) and inner is not error:
            _map_spans(inner, change)
    return error


def _pass_spec_error(error: ValueError, argv: Sequence[str] | None) -> str:
    """xDSL's refusal of the `-p` spec (`Unrecognized passes: ['x']`, `Provided
    arguments [...] not found`), as what is wrong and what to write instead
    (`tileir.pass_specs`): a misspelled pass or option gets the closest names."""
    from tileir.api import available_passes
    from tileir.pass_specs import explain_pass_spec

    spec = _passes_argument(list(sys.argv[1:] if argv is None else argv))
    if spec is None:
        return str(error)
    return explain_pass_spec(spec, error, available_passes())


def _passes_argument(argv: list[str]) -> str | None:
    """The value of `-p`/`--passes` in `argv` (the last one), if any."""
    spec: str | None = None
    for i, arg in enumerate(argv):
        if arg in ("-p", "--passes") and i + 1 < len(argv):
            spec = argv[i + 1]
        elif arg.startswith("--passes="):
            spec = arg.split("=", 1)[1]
        elif arg.startswith("-p") and not arg.startswith("--") and len(arg) > 2:
            spec = arg[2:]
    return spec


def run(argv: Sequence[str] | None = None) -> int:
    try:
        main = TileirOptMain(description="tileir modular optimizer driver", args=argv)
    except ValueError as e:
        print(f"tileir-opt: error: {_pass_spec_error(e, argv)}", file=sys.stderr)
        return 1
    try:
        main.run()
    except (DiagnosticsMismatch, ChunksFailed):
        return 1
    except ParseError as e:
        print(parse_error(e).render(), file=sys.stderr)
        return 1
    except CompileError as e:
        print(e.render(), file=sys.stderr)
        return 1
    except (DiagnosticException, VerifyException) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (FileNotFoundError, IsADirectoryError) as e:
        print(f"tileir-opt: error: {e}", file=sys.stderr)
        return 1
    except ValueError as e:
        print(f"tileir-opt: error: {e}", file=sys.stderr)
        return 1
    return 0


def main() -> None:
    from tileir.driver.errors import guarded

    sys.exit(guarded("tileir-opt", run))


if __name__ == "__main__":
    main()
