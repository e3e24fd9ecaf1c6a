"""The IR after every pass, from the command line: `--print-ir-after-all`,
`--print-ir-after=PASS`, `--dump-dir DIR` and `--time-passes` for `tileir-opt` and
`tileir-as`, as MLIR's `--mlir-print-ir-after-all` and `--mlir-timing` give them.

Both drivers report each pass as a `tileir.compiler.PassEvent`, the hook the Python
API's `compile(..., trace_passes=True)` records with: `tileir-as` through
`compile_module(on_pass=...)`, `tileir-opt` through `traced_pipeline`, which runs the
`-p` passes with the named pipelines (`cuda-tile-to-ptx`) expanded into the passes of
their stages, so that each of those is dumped and timed on its own.  A `PassTracer`
consumes the events:

* `--print-ir-after-all` prints the IR after every pass on stderr (MLIR prints its
  dumps there, so stdout stays the result), under a header naming the pass, its stage
  and its place in the pipeline:
  `// -----// IR Dump After tileas-assign-layouts (tileas, pass 7 of 16) //----- //`;
* `--print-ir-after=PASS[,PASS]` only after the passes named (`stage:pass` picks one
  run of a pass that runs in several stages, `llvm:cse`);
* `--dump-dir DIR` writes the input and the IR after each pass to one numbered file
  each, `DIR/00_input.mlir`, `DIR/01_convert-cuda-tile-to-tileaa.mlir`, ...;
* `--time-passes` prints a table of every pass's time (the pass and, as xDSL's
  driver does, the verification after it) on stderr at the end.

The IR is printed by tileir's printer (`tileir.display.ir_text`), as the API's stages
and `tileir-opt`'s output are.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from tileir.diagnostics import CompileError

# The compiler is imported where a pass runs, not here: `tileir-as --help` and
# `--version` build the argument parser without it.
if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass, PassPipeline

    from tileir.compiler import PassEvent, PassHook


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The tracing flags, shared by `tileir-opt` and `tileir-as`."""
    parser.add_argument(
        "--print-ir-after-all",
        action="store_true",
        help="print the IR after every pass on stderr (named pipelines pass by pass)",
    )
    parser.add_argument(
        "--print-ir-after",
        action="append",
        default=[],
        metavar="PASS[,PASS]",
        help="print the IR after these passes on stderr ('stage:pass' picks one run, llvm:cse)",
    )
    parser.add_argument(
        "--dump-dir",
        metavar="DIR",
        help="write the input and the IR after each pass to DIR/NN_<pass>.mlir",
    )


@dataclass
class TraceOptions:
    """What to show of each pass."""

    print_after_all: bool = False
    print_after: frozenset[str] = frozenset()
    dump_dir: Path | None = None
    time_passes: bool = False

    @staticmethod
    def from_args(args: argparse.Namespace) -> TraceOptions:
        names = frozenset(
            name.strip()
            for item in getattr(args, "print_ir_after", None) or ()
            for name in item.split(",")
            if name.strip()
        )
        dump = getattr(args, "dump_dir", None)
        return TraceOptions(
            bool(getattr(args, "print_ir_after_all", False)),
            names,
            Path(dump) if dump else None,
            bool(getattr(args, "time_passes", False)),
        )

    @property
    def wants_ir(self) -> bool:
        return self.print_after_all or bool(self.print_after) or self.dump_dir is not None

    @property
    def enabled(self) -> bool:
        return self.wants_ir or self.time_passes


@dataclass
class PassTracer:
    """A pass hook (`PassEvent` in) that prints, dumps and times the passes as
    `options` asks; `finish()` prints the timing table and reports `--print-ir-after`
    names that matched no pass (a typo would otherwise print nothing, silently)."""

    options: TraceOptions
    total: int | None = None
    """How many passes the pipeline has, for the headers (None: not known)."""
    out: IO[str] = field(default_factory=lambda: sys.stderr)
    between: IO[str] | None = None
    """xDSL's `--print-between-passes`: the IR after every pass but the last, here."""
    line_width: int | None = -1
    """Where long lines are wrapped (`tileir.display.ir_text`: -1, `LINE_WIDTH`, as
    `tileir-as --emit` prints a stage; None: one line per op, as `tileir-opt` prints
    its output and FileCheck patterns read it)."""
    rows: list[tuple[str, str, float]] = field(default_factory=list[tuple[str, str, float]])
    _matched: set[str] = field(default_factory=set[str])

    def start(self, module: ModuleOp) -> None:
        """The input, before any pass (`00_input.mlir`)."""
        from tileir.display import ir_text

        if self.options.dump_dir is not None:
            self._dump_dir().joinpath("00_input.mlir").write_text(
                ir_text(module, line_width=self.line_width)
            )

    def __call__(self, event: PassEvent) -> None:
        from tileir.display import ir_text

        self.rows.append((event.stage, event.name, event.seconds))
        if event.name == "emit-ptx":
            return
        index = len(self.rows)
        label = f"{event.stage}:{event.name}" if event.stage else event.name
        chosen = {event.name, label} & self.options.print_after
        self._matched |= chosen
        between = self.between if self.between is not None and index != self.total else None
        if not (self.options.print_after_all or chosen or self.options.dump_dir or between):
            return
        text = ir_text(event.module, line_width=self.line_width)
        place = f"pass {index} of {self.total}" if self.total else f"pass {index}"
        where = f"{event.stage}, {place}" if event.stage else place
        header = f"// -----// IR Dump After {event.name} ({where}) //----- //\n"
        for stream in (self.out if self.options.print_after_all or chosen else None, between):
            if stream is not None:
                stream.write(header + text + "\n")
        if self.options.dump_dir is not None:
            self._dump_dir().joinpath(f"{index:02d}_{event.name}.mlir").write_text(text)

    def finish(self) -> None:
        unknown = sorted(self.options.print_after - self._matched)
        if unknown and self.rows:
            ran = ", ".join(dict.fromkeys(f"{s}:{n}" if s else n for s, n, _ in self.rows))
            raise CompileError(
                f"--print-ir-after: no pass named {', '.join(unknown)} ran; the passes were {ran}"
            )
        if self.options.time_passes:
            self.out.write(timing_table(self.rows))
            self.out.flush()

    def _dump_dir(self) -> Path:
        assert self.options.dump_dir is not None
        try:
            self.options.dump_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CompileError(
                f"cannot write --dump-dir '{self.options.dump_dir}': {e.strerror}"
            ) from None
        return self.options.dump_dir


def timing_table(rows: Sequence[tuple[str, str, float]]) -> str:
    """`--time-passes`: one row per pass (stage, pass, milliseconds, share), then the
    total, in the spirit of MLIR's execution time report."""
    total = sum(seconds for _, _, seconds in rows) or 1e-12
    width = max([len(name) for _, name, _ in rows] + [4])
    lines = [
        "===" + "-" * 69 + "===",
        "pass execution time report".center(75),
        "===" + "-" * 69 + "===",
        f"  {'stage':8} {'pass':{width}} {'time (ms)':>10} {'share':>6}",
    ]
    for stage, name, seconds in rows:
        lines.append(
            f"  {stage or '-':8} {name:{width}} {seconds * 1e3:10.2f} {seconds / total:6.1%}"
        )
    lines.append(f"  {'total':8} {'':{width}} {total * 1e3:10.2f} {1:6.1%}")
    return "\n".join(lines) + "\n"


#: Turns a pass into the (stage, pass) steps it stands for, or None to keep it whole.
Expander = Callable[["ModulePass", "ModuleOp"], "list[tuple[str, ModulePass]] | None"]


def traced_pipeline(
    passes: Sequence[ModulePass],
    module: ModuleOp,
    tracer: PassTracer,
    expand: Expander,
    verify: Callable[[ModuleOp], None] | None,
) -> PassPipeline:
    """A pipeline of `passes` with each named pipeline expanded (`expand`) into its
    stages' passes, reporting every pass to `tracer` (after `verify`, when given,
    which the time includes)."""
    from xdsl.passes import PassPipeline

    from tileir.compiler import PassEvent

    steps: list[tuple[str, ModulePass]] = []
    for p in passes:
        steps += expand(p, module) or [("", p)]
    stage_of = {id(p): stage for stage, p in steps}
    last_of_stage = {id(p) for i, (stage, p) in enumerate(steps) if _ends_stage(steps, i)}
    tracer.total = len(steps)
    started = time.perf_counter()

    def callback(done: ModulePass | None, op: ModuleOp, _next: ModulePass | None) -> None:
        nonlocal started
        if done is None:
            tracer.start(op)
        else:
            if verify is not None:
                verify(op)
            seconds = time.perf_counter() - started
            ends = id(done) in last_of_stage
            tracer(PassEvent(stage_of.get(id(done), ""), done.name, op, seconds, ends))
        started = time.perf_counter()

    return PassPipeline(tuple(p for _, p in steps), callback)


def _ends_stage(steps: Sequence[tuple[str, ModulePass]], index: int) -> bool:
    stage = steps[index][0]
    return bool(stage) and (index + 1 == len(steps) or steps[index + 1][0] != stage)


def compile_tracer(
    args: argparse.Namespace, module: ModuleOp, arch: str, num_warps: int, stop_after: str
) -> PassTracer | None:
    """`tileir-as`'s tracer for `compile_module` up to `stop_after` (None when no tracing
    flag is given), the input already dumped."""
    from tileir.pipelines import STAGES, stage_passes

    options = TraceOptions.from_args(args)
    if not options.enabled:
        return None
    stages = stage_passes(arch, num_warps)
    kept = [passes for stage, passes in stages if STAGES.index(stage) <= STAGES.index(stop_after)]
    tracer = PassTracer(options, total=sum(len(passes) for passes in kept))
    tracer.line_width = line_width(args)
    tracer.start(module)
    return tracer


def line_width(args: argparse.Namespace) -> int | None:
    """`tileir-as --line-width N`: where the IR it prints wraps, as `ir_text` takes it
    (-1: `LINE_WIDTH`, the default; None: never, `--line-width 0`)."""
    width = getattr(args, "line_width", None)
    if width is None:
        return -1
    return None if width <= 0 else width


def both(first: PassHook | None, second: PassHook | None) -> PassHook | None:
    """One pass hook that calls `first`, then `second` (either may be None)."""
    if first is None or second is None:
        return first or second

    def hook(event: PassEvent) -> None:
        first(event)
        second(event)

    return hook
