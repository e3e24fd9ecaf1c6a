"""`tileir-as`: a tileiras-compatible assembler, the one cuTile Python can call.

    tileir-as KERNEL.tileirbc -o kernel.cubin --gpu-name sm_90 -O3 --lineinfo
    tileir-as KERNEL.mlir --gpu-name sm_80 -o kernel.ptx      # PTX only
    tileir-as KERNEL.mlir --gpu-name sm_90 --emit=tileas      # print one stage
    tileir-as --version
    tileir-as --make-tileiras-shim DIR                        # DIR/tileiras runs tileir-as

It takes the whole command line cuTile Python 1.7 gives tileiras (`-o`, `--gpu-name`,
`-O<n>`, `--lineinfo`/`--device-debug`, `--preview=`, `-l`, `--remark-format=yaml
--remarks=all --remarks-output-file=F`) and behaves as tileiras does for it: a cubin
(from ptxas) whose kernels are marked as Tile IR kernels, `.loc` line information from
the bytecode's debug info, remarks about its decisions, errors as
`loc("file":line:col): error: message` on stderr with a non-zero exit code, and
bytecode versions it cannot read rejected the way tileiras rejects them, so that
cuTile's version probe settles on the newest one tileir supports.  docs/cutile.md
tells the whole story.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tileir.backend.ptx.ptxas import PtxasRun

if __name__ == "__main__":  # one compilation in this process: before xDSL defines its classes
    from tileir.utils import cold_start

    cold_start.install()

from tileir.diagnostics import CompileError, SourceLocation
from tileir.driver.errors import guarded
from tileir.driver.pass_trace import add_arguments as add_trace_arguments
from tileir.driver.pass_trace import line_width
from tileir.targets import GPU_NAMES, resolve_gpu_name

#: The stages `--emit` can stop after (tileir.pipelines.STAGES, kept here so that
#: `--version` and `--help` do not import the compiler).
STAGES = ("cuda_tile", "tileaa", "tileas", "llvm", "ptx")

#: `TILEIR_AS_LOG=FILE` appends one line per compilation: which calls went through tileir.
LOG_ENV = "TILEIR_AS_LOG"

#: `TILEIR_ERROR_FORMAT=tileiras|mlir`: how errors are located on stderr, tileiras's
#: `loc("file":line:col): error: msg` (tileir-as's default) or MLIR's
#: `file:line:col: error: msg` (the shim's default: cuTile 1.7 parses the first into the
#: exception's `loc`, after which `str()` of the exception fails; the second it leaves
#: in the message, which `str()` then shows with the file and line).
ERROR_FORMAT_ENV = "TILEIR_ERROR_FORMAT"
ERROR_FORMATS = ("tileiras", "mlir")


class ArgumentError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArgumentError(message)


def _columns(text: str) -> int:
    """`--line-width`'s value: a number of columns, 0 or more."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a number of columns, 0 or more (0: never wrap), not {text!r}"
        )
    return value


REMARK_CATEGORIES = ("none", "all", "memory", "tensorcore")


#: The parser `parse_arguments` uses, built once per process: building it is 0.5 ms of
#: each warm request (parsing leaves it as it was), and the compile server's workers
#: inherit the one its warm-up built.
_PARSER: argparse.ArgumentParser | None = None


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    """`make_parser().parse_args(argv)`, with the process's one parser."""
    global _PARSER
    if _PARSER is None:
        _PARSER = make_parser()
    return _PARSER.parse_args(argv)


def make_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="tileir-as",
        description="Compile CUDA Tile IR to a cubin or PTX (a tileiras-compatible assembler).",
        allow_abbrev=False,
    )
    p.add_argument("input", nargs="?", help="cuda_tile bytecode (.tileirbc) or text (.mlir)")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument(
        "--list-versions", action="store_true", help="list the bytecode versions read and exit"
    )
    p.add_argument(
        "--make-tileiras-shim",
        metavar="DIR",
        help="write DIR/tileiras, which runs tileir-as (put DIR first on PATH for cuTile)",
    )
    p.add_argument(
        "--gpu-name",
        "--arch",
        dest="gpu_name",
        default="sm_90",
        help=f"target GPU: {', '.join(GPU_NAMES)} (sm_90/sm_100/sm_103 select their 'a' features)",
    )
    p.add_argument(
        "-o", "--output-file", dest="output", help="output: a cubin, or PTX if it ends in .ptx"
    )
    p.add_argument("-O", "--opt-level", dest="opt_level", type=int, default=3, choices=range(4))
    p.add_argument(
        "--lineinfo",
        action="store_true",
        help="PTX .loc line information from the bytecode's debug info (ptxas -lineinfo)",
    )
    p.add_argument(
        "--python-names",
        action="store_true",
        help="name values after the cuTile Python variables they were assigned to, read "
        "from the source files the input's locations name (as tileir.compile(kernel) does)",
    )
    p.add_argument(
        "--device-debug",
        "-g",
        dest="device_debug",
        action="store_true",
        help="debug build: line information, ptxas -O0 (no variable-level DWARF yet)",
    )
    p.add_argument(
        "--preview",
        action="append",
        default=[],
        metavar="FEATURE[,FEATURE...]",
        help="preview features (tileir supports none yet)",
    )
    p.add_argument(
        "-l", dest="libraries", action="append", default=[], metavar="PATH", help="tile library"
    )
    p.add_argument("--remark-format", choices=("yaml", "command-line"), default="command-line")
    p.add_argument("--remarks", choices=REMARK_CATEGORIES, help="remarks of every kind")
    for kind in ("passed", "missed", "failed", "analysis"):
        p.add_argument(f"--remarks-{kind}", choices=REMARK_CATEGORIES, help=f"{kind} remarks")
    p.add_argument("--remarks-output-file", default="tileir_remarks.yaml")
    p.add_argument(
        "--emit",
        choices=STAGES,
        help="stop after this stage and print it (to -o if given, else stdout)",
    )
    p.add_argument("--num-warps", type=int, default=4, help="warps per CTA (default 4)")
    add_trace_arguments(p)
    p.add_argument(
        "--print-local-scope",
        action="store_true",
        help="with --emit: print layouts in place, without #alias definitions, one line per op",
    )
    p.add_argument(
        "--line-width",
        type=_columns,
        metavar="N",
        help="with --emit and the IR dumps: wrap lines longer than N columns (default 120, "
        "tileir.printing.LINE_WIDTH; 0: one line per op, as tileir-opt prints, for FileCheck)",
    )
    p.add_argument(
        "--time-passes", action="store_true", help="print each pass's time on stderr at the end"
    )
    p.add_argument(
        "--verify-each",
        action="store_true",
        help="verify the IR after every pass, not only at each stage's end (which pass broke it)",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the result cache (also TILEIR_NO_CACHE=1; docs/cli.md)",
    )
    p.add_argument(
        "--server",
        choices=("status", "stop", "start"),
        help="manage the warm compile server (TILEIR_SERVER=0 disables it; docs/cli.md)",
    )
    return p


def tileir_version() -> str:
    try:
        from importlib.metadata import version

        return version("tileir")
    except Exception:
        return "0.1.0"


def source_digest() -> str:
    """A digest of tileir's own sources: cuTile keys its cubin cache on `--version`, so
    a changed compiler must print a different version."""
    import hashlib  # here: OpenSSL's start-up is a few ms of every compilation otherwise

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def version_text() -> str:
    from tileir.backend.ptx.ptxas import find_ptxas, ptxas_release
    from tileir.bytecode.version import SUPPORTED_VERSIONS

    ptxas = find_ptxas()
    release = ptxas_release(ptxas) if ptxas else None
    return (
        "tileir-as: tileir's Cuda Tile IR assembler (tileiras-compatible driver)\n"
        f"tileir {tileir_version()}, sources {source_digest()}\n"
        f"Tile IR bytecode {', '.join(str(v) for v in SUPPORTED_VERSIONS)}\n"
        f"ptxas: {release or 'not found'}\n"
    )


def error_format() -> str:
    """The located-error style `TILEIR_ERROR_FORMAT` asks for (tileiras's by default; an
    unknown value is ignored, with a warning, rather than failing the compile)."""
    chosen = os.environ.get(ERROR_FORMAT_ENV, "") or "tileiras"
    if chosen not in ERROR_FORMATS:
        print(
            f"tileir-as: warning: ignoring {ERROR_FORMAT_ENV}={chosen!r} "
            f"(expected one of {', '.join(ERROR_FORMATS)})",
            file=sys.stderr,
        )
        return "tileiras"
    return chosen


def make_tileiras_shim(directory: str) -> Path:
    """Write `directory/tileiras`, a script that runs this tileir-as with the Python that
    runs now (so it works whatever PATH cuTile hands it), and `directory/tileirdisasm`
    beside it (cuTile's `CUDA_TILE_LOGS=TILEIR` looks for it there), which prints
    bytecode as cuda_tile text with tileir-opt."""
    import shlex  # writing a shim only: not a compilation's import

    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    python = shlex.quote(sys.executable)
    header = (
        "# Written by `tileir-as --make-tileiras-shim`.  With this directory first on PATH\n"
        "# (and without the nvidia-cuda-tileiras wheel), cuTile Python compiles with tileir.\n"
    )
    errors = (
        "# Errors as file:line:col: error: (cuTile 1.7 cannot print an exception whose\n"
        f"# location it parsed); {ERROR_FORMAT_ENV}=tileiras gives tileiras's loc(...) form.\n"
    )
    shim = target / "tileiras"
    shim.write_text(
        _python_shim(header + errors)
        or "#!/bin/sh\n"
        + header
        + errors
        + f': "${{{ERROR_FORMAT_ENV}:=mlir}}"\n'
        + f"export {ERROR_FORMAT_ENV}\n"
        + _client_command(python)
    )
    disasm = target / "tileirdisasm"
    disasm.write_text(
        "#!/bin/sh\n" + header + "# tileirdisasm FILE [--preview=...]: the file's cuda_tile text.\n"
        f'exec {python} -m tileir.driver.opt "$1"\n'
    )
    for script in (shim, disasm):
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return shim


#: The longest `#!` line every Linux kernel reads whole (127 bytes before 5.1).
SHEBANG_LIMIT = 127


def _client_paths() -> list[str]:
    """The directories `site` found tileir and the site-packages (the `nvidia` wheels'
    ptxas) in: the client without `site` looks there."""
    import site

    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = [package_parent]
    for directory in site.getsitepackages():
        if os.path.isdir(directory) and directory not in paths:
            paths.append(directory)
    return paths


def _python_shim(comments: str) -> str | None:
    """The shim as a Python script whose `#!` line starts Python without `site` and
    without the script's directory on `sys.path` (`-SP`), with no `/bin/sh` in front
    of it (1 ms of every cache hit and every answer from the server): what
    tileir/driver/launch.py does, on the directories `site` found when this was
    written.  None where a `#!` line cannot say it (Python before 3.11 has no `-P`; a
    path with spaces, or too long), and the shim is a shell script."""
    line = f"#!{sys.executable} -SP"
    if (
        sys.version_info < (3, 11)
        or len(line) > SHEBANG_LIMIT
        or any(c.isspace() for c in sys.executable)
    ):
        return None
    return (
        f"{line}\n"
        + comments
        + '# Python without `site` (docs/cli.md, "The tileiras shim"); if tileir has moved\n'
        "# since this was written, the client as a Python with `site` would find it.\n"
        "import os\n"
        "import sys\n"
        "\n"
        f'os.environ.setdefault("{ERROR_FORMAT_ENV}", "mlir")\n'
        f"sys.path[:0] = [p for p in {_client_paths()!r} if p not in sys.path]\n"
        "try:\n"
        "    from tileir.driver import client\n"
        "except ImportError:\n"
        "    import site\n"
        "\n"
        "    site.main()\n"
        "    from tileir.driver import client\n"
        "client.main()\n"
    )


def _client_command(python: str) -> str:
    """The shell shim's last line: tileir-as's client without Python's `site` start-up
    (tileir/driver/launch.py; 10-25 ms of every cache hit and every compilation the
    warm server answers), given the directories `site` would have found it in."""
    import shlex

    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = _client_paths()
    launcher = shlex.quote(os.path.join(package_parent, "tileir", "driver", "launch.py"))
    flags = "-S -P" if sys.version_info >= (3, 11) else "-S"
    return (
        "# Python without `site`: tileir/driver/launch.py (docs/cli.md); if tileir has\n"
        "# moved since this was written, the client as a module, with `site`.\n"
        f"if [ -f {launcher} ]; then\n"
        f"  exec {python} {flags} {launcher} "
        f'--paths {shlex.quote(os.pathsep.join(paths))} -- "$@"\n'
        "fi\n"
        f'exec {python} -m tileir.driver.client "$@"\n'
    )


def check_output_path(output: str) -> None:
    parent = Path(output).parent
    if not parent.exists():
        raise CompileError(
            f"cannot write output file '{output}': directory '{parent}' does not exist"
        )
    if not parent.is_dir():
        raise CompileError(f"cannot write output file '{output}': '{parent}' is not a directory")
    if Path(output).is_dir():
        raise CompileError(f"cannot write output file '{output}': it is a directory")


#: What this run wrote, while the client (tileir/driver/client.py) records a run for
#: its result cache: {"outputs": {path: bytes or None}, "log": "arch=... kernels=..."}.
#: None otherwise (nothing recorded).
RECORD: dict | None = None


def record_output(path: str) -> None:
    """Note that this run wrote the file `path`, with the bytes it has now (None: not a
    regular file, e.g. /dev/null, which no cache entry may stand for)."""
    if RECORD is None:
        return
    try:
        data = Path(path).read_bytes() if Path(path).is_file() else None
    except OSError:
        data = None
    RECORD["outputs"][path] = data


def write_output(output: str, data: str | bytes) -> None:
    """Write `data` to `output` (`-`: standard output); a failed write is a diagnostic."""
    from tileir.utils.output import STDOUT, write_file

    write_file(output, data)
    if output != STDOUT:
        record_output(output)


def check_input(path: str) -> None:
    p = Path(path)
    if not p.exists():
        raise CompileError(f"unable to read input file '{path}': No such file or directory")
    if p.is_dir():
        raise CompileError(f"unable to read input file '{path}': it is a directory")
    if p.stat().st_size == 0:
        raise CompileError(
            f"input file '{path}' is empty: expected Tile IR bytecode (.tileirbc) or cuda_tile text"
        )


def log_compilation(args: argparse.Namespace, arch: str, kernels: list[str]) -> None:
    log = os.environ.get(LOG_ENV)
    if not log:
        return
    # The client writes this line itself for a result it takes from the cache.
    tail = f"arch={arch} kernels={','.join(kernels) or '-'}"
    if RECORD is not None:
        RECORD["log"] = tail
    try:
        with open(log, "a") as f:
            f.write(f"tileir-as {args.input} -> {args.output} {tail}\n")
    except OSError:
        pass


#: Set by `main()`: this process is a single tileir-as run (not a caller of `run`).
_SINGLE_RUN = False


@contextmanager
def importing_the_compiler() -> Iterator[None]:
    """In a single run, import the compiler as `cold_start.single_run_imports` says (the
    collector paused over the imports, then frozen; a compilation's collector threshold;
    `isinstance` and xDSL's walks made cheaper).  Callers of `run` (tests, the Python
    API) keep their collector and xDSL's classes as they are."""
    from tileir.utils import cold_start

    if not _SINGLE_RUN:
        cold_start.resume_collector()  # the caller's collector, as it had it
        yield
        return
    with cold_start.single_run_imports():
        yield


def compile_file(args: argparse.Namespace) -> int:
    with importing_the_compiler():
        import tileir.bytecode.reader  # noqa: F401  (for load_module, imported here)
        from tileir.backend.ptx.ptxas import find_ptxas, ptxas_supports_tile_language, start_ptxas
        from tileir.compiler import PassEvent, compile_module, load_module
        from tileir.driver import remarks as rm
        from tileir.driver.pass_trace import both, compile_tracer
        from tileir.pipelines import check_num_warps
        from tileir.registry import make_context

    arch = resolve_gpu_name(args.gpu_name)
    for features in args.preview:
        for feature in filter(None, features.split(",")):
            raise CompileError(
                f"preview feature '{feature}' is not supported by tileir yet (cuTile asks "
                "for it for a kernel that calls foreign SIMT functions): compile that kernel "
                "with NVIDIA's tileiras, or without the foreign call"
            )
    if args.libraries:
        raise CompileError(
            "tile libraries (-l) need the 'simt' preview, which tileir does not support yet: "
            "compile a kernel that links a tile library with NVIDIA's tileiras"
        )
    if args.input is None:
        raise CompileError("no input file")
    output: str | None = args.output
    if args.emit is None and output is None:
        raise CompileError("no output: give -o FILE.cubin, -o FILE.ptx or --emit=STAGE")
    check_input(args.input)
    #: `-o -` writes to standard output (the stage text, or the cubin's bytes).
    to_stdout = output == "-"
    if output is not None and not to_stdout:
        check_output_path(output)
    wants_ptx_only = args.emit is None and output is not None and Path(output).suffix == ".ptx"
    line_info = args.lineinfo or args.device_debug
    remark_filter = rm.RemarkFilter.from_options(
        args.remarks,
        {
            "passed": args.remarks_passed,
            "missed": args.remarks_missed,
            "failed": args.remarks_failed,
            "analysis": args.remarks_analysis,
        },
    )

    plan = _ptxas_plan(args)
    ptxas = find_ptxas() if plan is not None else None
    early = None
    if plan is not None and ptxas is not None:
        early = _take_prelaunched(ptxas, *plan) or _launch_ptxas_early(ptxas, *plan)
    try:
        # One context for reading and lowering (each would otherwise make its own).
        ctx = make_context()
        module = load_module(args.input, ctx)
        if args.python_names:
            from tileir.source_names import name_values_from_python

            name_values_from_python(module)
        check_num_warps(args.num_warps, module)
        collected: list[rm.Remark] = []

        def on_pass(event: PassEvent) -> None:
            if event.stage == "tileas" and event.ends_stage:
                collected.extend(rm.tileas_remarks(event.module, arch))

        # Kernels are marked as Tile IR kernels in cubins, as tileiras marks them: cuTile's
        # launcher leaves the block size to the driver, which reads it from `.reqntid`.
        tile_kernels = ptxas is not None and ptxas_supports_tile_language(ptxas)
        stop = args.emit or "ptx"
        tracer = compile_tracer(args, module, arch, args.num_warps, stop)
        result = compile_module(
            module,
            arch,
            num_warps=args.num_warps,
            stop_after=stop,
            keep_stages=args.emit is not None,
            ctx=ctx,
            on_pass=both(on_pass if remark_filter.enabled else None, tracer),
            line_info=line_info,
            tile_kernels=tile_kernels,
            allow_empty=True,
            verify_each=args.verify_each,
            # The llvm stage is verified while ptxas runs (below); with a pass tracer it is
            # verified in order, before the tracer sees the stage.
            defer_final_verification=ptxas is not None and tracer is None,
        )
        if tracer is not None:
            tracer.finish()
        if args.emit is not None:
            text = result.stages[args.emit]
            if args.emit != "ptx" and (args.print_local_scope or args.line_width is not None):
                from tileir.display import ir_text

                local = bool(args.print_local_scope)
                width = None if local else line_width(args)  # local scope: one line per op
                text = ir_text(result.module, local_scope=local, line_width=width)
            write_output(output if output and not to_stdout else "-", text)
            return 0
        assert result.ptx is not None and output is not None
        kernels = _kernel_names(result.ptx)
        if wants_ptx_only:
            write_output(output, result.ptx)
            log_compilation(args, arch, kernels)
            return 0
        if ptxas is None:
            raise CompileError(
                "ptxas not found: install the nvidia-cuda-nvcc wheel or set CUDA_HOME"
            )
        # ptxas writes into a temporary file and tileir-as writes the output: a full disk
        # or an unwritable path is then reported as such, not as PTX ptxas rejected.
        if early is not None:
            running = early
            running.feed(result.ptx)
        else:
            assert plan is not None
            _, opt_level, extra = plan
            running = start_ptxas(result.ptx, arch, opt_level=opt_level, extra=extra)
        try:
            result.verify_deferred()  # while ptxas assembles: 6% of a compilation, off its path
        except BaseException:
            running.cancel()
            raise
        report = running.result()
        if not report.ok or report.cubin is None:
            raise CompileError(report.failure())
        write_output(output, report.cubin)
        if remark_filter.enabled:
            locations = _kernel_locations(module)
            shared = rm.shared_memory_of(report.output)
            collected.extend(rm.ptxas_remarks(report.registers, report.spills, locations, shared))
            dynamic = rm.dynamic_shared_of(result.ptx)
            collected.extend(rm.occupancy_remarks(arch, shared, dynamic, locations))
            shown = [r for r in collected if remark_filter.shows(r)]
            if args.remark_format == "yaml":
                try:
                    with open(args.remarks_output_file, "w") as f:
                        rm.write_yaml(shown, f)
                except OSError as e:
                    raise CompileError(
                        f"cannot write remarks file '{args.remarks_output_file}': {e.strerror}"
                    ) from None
                record_output(args.remarks_output_file)
            else:
                rm.print_remarks(shown)
        log_compilation(args, arch, kernels)
        return 0
    finally:
        if early is not None:
            early.cancel()  # the compilation failed (nothing once its result was taken)


def _ptxas_plan(args: argparse.Namespace) -> tuple[str, int, list[str]] | None:
    """What ptxas a command line runs (its target, `-O` level and further options), or
    None if it wants no cubin (`--emit`, `-o K.ptx`, no output)."""
    if args.emit is not None or args.output is None or Path(args.output).suffix == ".ptx":
        return None
    line_info = args.lineinfo or args.device_debug
    opt_level = 0 if args.device_debug else args.opt_level
    return resolve_gpu_name(args.gpu_name), opt_level, ["-lineinfo"] if line_info else []


def _launch_ptxas_early(ptxas: str, arch: str, opt_level: int, extra: list[str]) -> PtxasRun | None:
    """ptxas started before the compilation, reading its PTX from a pipe once the PTX
    is printed (`launch_ptxas`): its start-up, about 15 ms of CPU, overlaps the
    compilation instead of following it.  None where it cannot start: then
    `start_ptxas` runs after the compilation as before, and reports a ptxas that
    cannot run after the kernel's own errors, as before."""
    from tileir.backend.ptx.ptxas import launch_ptxas

    try:
        return launch_ptxas(arch, opt_level, extra)
    except OSError:
        return None


#: A ptxas the compile server's spare worker started before its request came
#: (`prelaunch_ptxas`), and what it was started as (`_ptxas_key`).
_PRELAUNCHED: tuple[tuple[object, ...], PtxasRun] | None = None


def _ptxas_key(ptxas: str, arch: str, opt_level: int, extra: list[str]) -> tuple[object, ...]:
    """Everything a ptxas process is started with: its path and command line, the
    environment, the directory and the umask."""
    umask = os.umask(0o022)
    os.umask(umask)
    return (ptxas, arch, opt_level, tuple(extra), sorted(os.environ.items()), os.getcwd(), umask)


def prelaunch_ptxas(argv: list[str]) -> None:
    """Start, in the compile server's spare worker, the ptxas that `argv` (the previous
    request's command line, whose directory, environment and umask the spare took)
    would start, so that its start-up is over before the next request comes, at a
    moment the machine had nothing else to do: cuTile compiles kernel after kernel for
    the same target from the same process.  The next compilation takes it if it would
    start that very ptxas (`_ptxas_key`: path, options, environment, directory,
    umask), and starts its own otherwise; the same cubin comes out either way."""
    global _PRELAUNCHED
    drop_prelaunched()
    try:
        args = parse_arguments(argv)
        plan = _ptxas_plan(args)
        if plan is None:
            return
        from tileir.backend.ptx.ptxas import find_ptxas

        ptxas = find_ptxas()
        if ptxas is None:
            return
        key = _ptxas_key(ptxas, *plan)
    except (Exception, SystemExit):  # a command line that fails fails in its own run
        return
    run = _launch_ptxas_early(ptxas, *plan)
    if run is not None:
        _PRELAUNCHED = (key, run)


def drop_prelaunched() -> None:
    """Stop the prelaunched ptxas, if any (its request did not come, or wanted another)."""
    global _PRELAUNCHED
    if _PRELAUNCHED is not None:
        _, run = _PRELAUNCHED
        _PRELAUNCHED = None
        run.cancel()


def _take_prelaunched(ptxas: str, arch: str, opt_level: int, extra: list[str]) -> PtxasRun | None:
    """The prelaunched ptxas, if it was started as this compilation would start one."""
    global _PRELAUNCHED
    if _PRELAUNCHED is None:
        return None
    key, run = _PRELAUNCHED
    try:
        same = key == _ptxas_key(ptxas, arch, opt_level, extra)
    except OSError:  # the directory is gone
        same = False
    if not same:
        drop_prelaunched()
        return None
    _PRELAUNCHED = None
    return run


def _kernel_names(ptx: str) -> list[str]:
    import re

    return re.findall(r"^\.visible \.entry ([\w$.]+)\(", ptx, re.M)


def _kernel_locations(module: object) -> dict[str, SourceLocation | None]:
    from xdsl.dialects import llvm
    from xdsl.dialects.builtin import ModuleOp

    from tileir.diagnostics import location_of

    assert isinstance(module, ModuleOp)
    return {
        op.sym_name.data: location_of(op) for op in module.walk() if isinstance(op, llvm.FuncOp)
    }


def run_unguarded(argv: list[str]) -> int:
    try:
        args = parse_arguments(argv)
    except ArgumentError as e:
        print(f"tileir-as: error: {e}", file=sys.stderr)
        return 1
    if args.server is not None:
        from tileir.driver.client import server_command

        return server_command(args.server)
    if args.version:
        sys.stdout.write(version_text())
        return 0
    if args.list_versions:
        from tileir.bytecode.version import SUPPORTED_VERSIONS

        for v in SUPPORTED_VERSIONS:
            print(v)
        return 0
    if args.make_tileiras_shim is not None:
        try:
            shim = make_tileiras_shim(args.make_tileiras_shim)
        except OSError as e:
            print(f"tileir-as: error: cannot write the shim: {e}", file=sys.stderr)
            return 1
        print(
            f"wrote {shim} and {shim.parent / 'tileirdisasm'}; put {shim.parent} first on PATH "
            "to compile cuTile kernels with tileir"
        )
        return 0
    try:
        return compile_file(args)
    except CompileError as e:
        print(e.render(error_format()), file=sys.stderr)
        return 1
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


def run(argv: list[str]) -> int:
    return guarded("tileir-as", lambda: run_unguarded(argv))


def main() -> None:
    global _SINGLE_RUN
    _SINGLE_RUN = True
    status = run(sys.argv[1:])
    from tileir.driver.client import exit_at_once

    exit_at_once(status)  # no finalization of the compiler's heap: 30 ms
    sys.exit(status)


if __name__ == "__main__":
    main()
