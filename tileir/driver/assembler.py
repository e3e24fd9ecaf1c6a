"""`tileir-as`: a tileiras-compatible driver.

    tileir-as KERNEL.mlir --gpu-name sm_90 -o kernel.ptx      # PTX
    tileir-as KERNEL.mlir --gpu-name sm_80 -o kernel.cubin    # PTX, then ptxas
    tileir-as KERNEL.mlir --gpu-name sm_90a --emit=tileas     # print one stage
    tileir-as KERNEL.tileirbc --gpu-name sm_90 -o kernel.ptx  # bytecode, as tileiras takes

Errors are reported as tileiras reports them, `loc("file":line:col): error: ...` on
stderr with exit code 1; a Python traceback is a tileir bug.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tileir.compiler import compile_module, load_module, resolve_gpu_name
from tileir.diagnostics import CompileError
from tileir.pipelines import GPU_NAMES, STAGES


class ArgumentError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArgumentError(message)


def make_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="tileir-as",
        description="Compile CUDA Tile IR to PTX or a cubin (a tileiras-compatible driver).",
    )
    p.add_argument("input", help="cuda_tile bytecode (.tileirbc) or text (.mlir)")
    p.add_argument(
        "--gpu-name",
        "--arch",
        dest="gpu_name",
        default="sm_90",
        help=f"target GPU: {', '.join(GPU_NAMES)} (sm_90/sm_100 select sm_90a/sm_100a)",
    )
    p.add_argument("-o", "--output-file", dest="output", help="output .ptx or .cubin")
    p.add_argument("-O", "--opt-level", dest="opt_level", type=int, default=3, choices=range(4))
    p.add_argument(
        "--emit",
        choices=STAGES,
        help="stop after this stage and print it (to -o if given, else stdout)",
    )
    p.add_argument("--num-warps", type=int, default=4, help="warps per CTA (default 4)")
    return p


def run(argv: list[str]) -> int:
    try:
        args = make_parser().parse_args(argv)
    except ArgumentError as e:
        print(f"tileir-as: error: {e}", file=sys.stderr)
        return 1
    try:
        arch = resolve_gpu_name(args.gpu_name)
        if args.num_warps not in (1, 2, 4, 8, 16, 32):
            raise CompileError(f"--num-warps must be a power of two up to 32, got {args.num_warps}")
        output = args.output
        if args.emit is None and output is None:
            raise CompileError("no output: give -o FILE.ptx, -o FILE.cubin or --emit=STAGE")
        if args.emit is None and Path(output).suffix not in (".ptx", ".cubin"):
            raise CompileError(f"output {output} must end in .ptx or .cubin")
        module = load_module(args.input)
        stop = args.emit or "ptx"
        result = compile_module(module, arch, num_warps=args.num_warps, stop_after=stop, keep_stages=args.emit is not None)
        if args.emit is not None:
            text = result.stages[args.emit]
            if output:
                Path(output).write_text(text)
            else:
                sys.stdout.write(text)
            return 0
        assert result.ptx is not None
        if Path(output).suffix == ".ptx":
            Path(output).write_text(result.ptx)
            return 0
        from tileir.backend.ptx.ptxas import run_ptxas

        report = run_ptxas(result.ptx, arch, output, opt_level=args.opt_level)
        if not report.ok:
            raise CompileError(f"ptxas rejected the generated PTX (a tileir bug):\n{report.output}")
        return 0
    except CompileError as e:
        print(e.format("tileiras"), file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


def main() -> None:
    sys.exit(run(sys.argv[1:]))


if __name__ == "__main__":
    main()
