"""Compiling cuda_tile to PTX from Python: the shared core of `tileir-as`, the demo
and the tests.  Every stage can be kept as text, so nothing the compiler did is
hidden."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from tileir.backend.ptx.target import check_kernel_names, module_to_ptx
from tileir.diagnostics import CompileError, location_of, verify_module
from tileir.frontend import parse_error, parse_text
from tileir.pipelines import STAGES, stage_passes
from tileir.printing import LINE_WIDTH, SIGNATURE_WIDTH, TileirPrinter
from tileir.registry import make_context


def print_ir(module: ModuleOp) -> str:
    out = io.StringIO()
    printer = TileirPrinter(stream=out, width=SIGNATURE_WIDTH, line_width=LINE_WIDTH)
    printer.print_op(module)  # a stage's text: long signatures and lines wrapped
    return out.getvalue() + "\n"


def load_module(path: str | Path, ctx: Context | None = None) -> ModuleOp:
    """Read a cuda_tile file (text, or `.tileirbc` bytecode); errors become located
    `CompileError`s."""
    ctx = ctx or make_context()
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise CompileError(f"no such file: {path}") from None
    except OSError as e:
        raise CompileError(f"cannot read {path}: {e.strerror}") from None
    if p.suffix in (".tileirbc", ".bc") or data.startswith(b"\x7fTileIR"):
        from tileir.bytecode.reader import read_bytecode

        return read_bytecode(data, str(path), ctx)
    return parse_module_text(data, str(path), ctx)


def parse_module_text(text: str | bytes, filename: str, ctx: Context | None = None) -> ModuleOp:
    ctx = ctx or make_context()
    try:
        module = parse_text(ctx, text, filename)
    except ParseError as e:
        raise parse_error(e) from None
    verify_module(module)
    return module


def resolve_gpu_name(name: str) -> str:
    """The architecture `--gpu-name name` compiles for (tileir/targets.py)."""
    from tileir.targets import resolve_gpu_name as resolve

    return resolve(name)


@dataclass
class PassEvent:
    """One step of `compile_module`, reported to its `on_pass` hook: the pass `name`
    (`emit-ptx` for the PTX printer) ran as part of `stage` in `seconds` (the pass, and
    for a stage's last pass the verification of the stage: see `compile_module`);
    `module` is the IR right after it (still being lowered: clone it to keep it);
    `ends_stage` marks a stage's last pass."""

    stage: str
    name: str
    module: ModuleOp
    seconds: float
    ends_stage: bool


PassHook = Callable[[PassEvent], None]


@dataclass
class CompileResult:
    module: ModuleOp
    arch: str
    stages: dict[str, str] = field(default_factory=dict)
    ptx: str | None = None
    #: The last stage is not verified yet (`compile_module`'s `defer_final_verification`):
    #: the caller calls `verify_deferred` before it uses the PTX.
    verification_pending: bool = False

    def verify_deferred(self) -> None:
        """Verify the last stage, if `compile_module` left it to the caller; its
        CompileError is the one the compilation would have raised."""
        if self.verification_pending:
            self.verification_pending = False
            verify_module(self.module)


def compile_module(
    module: ModuleOp,
    arch: str = "sm_90a",
    *,
    num_warps: int = 4,
    stop_after: str = "ptx",
    keep_stages: bool = False,
    ctx: Context | None = None,
    on_pass: PassHook | None = None,
    line_info: bool = False,
    tile_kernels: bool = False,
    allow_empty: bool = False,
    verify_each: bool = False,
    warp_specialize: bool = True,
    tma_feeds: bool = False,
    defer_final_verification: bool = False,
) -> CompileResult:
    """Lower `module` (in place) to `stop_after`; returns the requested artifacts.
    `warp_specialize=False` keeps every K loop in one agent (`tileas-specialize-agents`
    builds a producer and a consumer agent where the target takes them);
    `tma_feeds=True` runs `tileas-tma-feeds` (off by default: no GPU has run it yet).
    `on_pass`, when given, sees every pass as it finishes (the Python API times and
    snapshots the stages with it).  `line_info`, `tile_kernels` and `allow_empty` are
    `module_to_ptx`'s options (`.loc` lines, Tile IR kernel marking, empty modules).

    The IR is verified once per stage, after the stage's last pass: what a stage hands
    on (and `--emit` prints) is verified, and the input was verified when it was read.
    A verification walks the whole module through xDSL's generic constraint checks and
    cost as much as the passes themselves when it followed every pass (45% of
    `compile_module` with 11 of the 14 passes verified).  A pass that breaks the IR is a
    tileir bug, still reported at the end of its stage; `tileir-opt -p`, which verifies
    after every pass, tells which pass it was, and so does `verify_each=True`
    (`tileir-as --verify-each`), which verifies after every pass here too.

    `defer_final_verification=True` (with `stop_after="ptx"`) leaves the last stage's
    verification to the caller, who must call `result.verify_deferred()` before it uses
    the PTX: `tileir-as` runs it while ptxas assembles (tileir/driver/assembler.py).  If
    the PTX printer fails on the unverified module, the verification runs first, so that
    an invalid module is reported as the verifier reports it, as without the deferral."""
    if stop_after not in STAGES:
        raise CompileError(f"unknown stage '{stop_after}'; expected one of {', '.join(STAGES)}")
    ctx = ctx or make_context()
    result = CompileResult(module, arch)
    if keep_stages:
        result.stages["cuda_tile"] = print_ir(module)
    if stop_after == "cuda_tile":
        return result
    if stop_after == "ptx":  # before the lowering, while the entries say where they are
        check_kernel_names(module)

    stages = stage_passes(arch, num_warps, warp_specialize, tma_feeds)
    defer = defer_final_verification and stop_after == "ptx" and not verify_each
    for stage, passes in stages:
        for i, p in enumerate(passes):
            ends_stage = i == len(passes) - 1
            start = time.perf_counter()
            _apply(ctx, p, module)
            if defer and ends_stage and stage == stages[-1][0]:
                result.verification_pending = True
            elif ends_stage or verify_each:
                verify_module(module)
            if on_pass is not None:
                seconds = time.perf_counter() - start
                on_pass(PassEvent(stage, p.name, module, seconds, ends_stage))
        if keep_stages:
            result.stages[stage] = print_ir(module)
        if stage == stop_after:
            return result
    start = time.perf_counter()
    try:
        result.ptx = module_to_ptx(
            module, arch, line_info=line_info, tile_kernels=tile_kernels, allow_empty=allow_empty
        )
    except Exception:
        result.verify_deferred()  # an invalid module: the verifier's error, as before
        raise
    if on_pass is not None:
        on_pass(PassEvent("ptx", "emit-ptx", module, time.perf_counter() - start, True))
    if keep_stages:
        result.stages["ptx"] = result.ptx
    return result


def _apply(ctx: Context, p: ModulePass, module: ModuleOp) -> None:
    try:
        p.apply(ctx, module)
    except CompileError:
        raise
    except (DiagnosticException, VerifyException) as e:
        raise _diagnostic(e) from None


def _diagnostic(e: DiagnosticException) -> CompileError:
    """Errors raised inside rewrite patterns arrive wrapped; unwrap a CompileError."""
    cause = e.__cause__ or e.__context__
    if isinstance(cause, CompileError):
        return cause
    return CompileError(str(e).splitlines()[0])


_ = location_of
