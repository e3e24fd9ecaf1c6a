"""`tileir-opt`: xdsl-opt with tileir's dialects, passes and targets.

Everything `xdsl-opt` accepts works (`-p`, `--split-input-file`,
`--verify-diagnostics`, `--print-op-generic`, `-o`, `-t`).  On top of it:

* cuda_tile prints in NVIDIA's form (prefix-free inside `cuda_tile.module`, MLIR's
  SSA names) and parses in both forms, including tileirdisasm's bare `entry`;
* ops remember their source position, so errors from any pass are located;
* bad input gives `file:line:col: error: ...` and exit code 1, not a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.targets.mlir import MLIRTarget
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

from tileir.diagnostics import CompileError, verify_module
from tileir.frontend import parse_error, parse_text
from tileir.printing import TileirPrinter
from tileir.registry import DIALECTS, PASSES, TARGETS


@dataclass(frozen=True)
class TileirMLIRTarget(MLIRTarget):
    """The `mlir` target, printing through tileir's printer."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        printer = TileirPrinter(
            stream=output,
            print_generic_format=self.print_generic_format,
            print_properties_as_attributes=self.print_properties_as_attributes,
            print_debuginfo=self.print_debuginfo,
        )
        printer.print_op(module)
        printer.print_metadata(ctx.loaded_dialects)
        print("\n", file=output)


class TileirOptMain(xDSLOptMain):
    version_format = "tileir-opt (tileir 0.1.0) built on xdsl {xdsl_version}"

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        for name, factory in DIALECTS.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_frontends(self) -> None:
        super().register_all_frontends()

        def parse_mlir(io: IO[bytes]) -> ModuleOp:
            return parse_text(
                self.ctx,
                io.read(),
                self.get_input_name(),
                implicit_module=not self.args.no_implicit_module,
            )

        self.available_frontends["mlir"] = parse_mlir

    def parse_chunk(self, chunk: IO[bytes], file_extension: str, start_offset: int = 0) -> ModuleOp | None:
        """Parse, then verify op by op so that a failure is located."""
        module = super().parse_chunk(chunk, file_extension, start_offset)
        if module is None or self.args.disable_verify:
            return module
        try:
            verify_module(module)
        except CompileError as e:
            if self.args.verify_diagnostics:
                print(e.format())
                return None
            raise
        return module

    def register_all_passes(self) -> None:
        super().register_all_passes()
        for name, factory in PASSES.items():
            if name not in self.available_passes:
                self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        self.available_targets["mlir"] = lambda: TileirMLIRTarget
        super().register_all_targets()
        for name, factory in TARGETS.items():
            self.available_targets.setdefault(name, factory)  # pyright: ignore[reportArgumentType]


def run(argv: Sequence[str] | None = None) -> int:
    try:
        main = TileirOptMain(description="tileir modular optimizer driver", args=argv)
    except ValueError as e:
        print(f"tileir-opt: error: {e}", file=sys.stderr)
        return 1
    try:
        main.run()
    except ParseError as e:
        print(parse_error(e).format(), file=sys.stderr)
        return 1
    except CompileError as e:
        print(e.format(), file=sys.stderr)
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
    sys.exit(run())


if __name__ == "__main__":
    main()
