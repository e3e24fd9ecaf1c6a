"""tileir's Python API: the whole compiler as objects to poke at.

    import tileir

    module = tileir.load("tests/corpus/vadd_f32.tileirbc")   # bytecode or text
    result = tileir.compile(module, arch="sm_90a")           # every stage, timed
    result = tileir.compile(ct_kernel, signature, arch="sm_90")  # a cuTile @ct.kernel
    result.tileas                                             # a Stage: .module, .text
    result.asm["tileas"]                                      # the text, as Triton's kernel.asm
    result.remarks                                            # the compiler's decisions
    result.ptx.ptxas()                                        # registers and spills
    result.diff("tileas")                                     # what lowering to nv_tileas changed
    after = tileir.run_pass(result.tileas.module, "tileas-canonicalize")

Inputs are never changed: `compile` and `run_pass` work on copies (unless
`in_place=True`).  Errors in the input (text that does not parse, bytecode that is
malformed, IR that fails a verifier, an op tileir cannot compile yet) raise
`tileir.CompileError`, whose message is the located diagnostic `tileir-as` prints.

In Jupyter every object here renders itself (see `tileir.display`); modules and ops
from xDSL render highlighted once this module is imported.
"""

from __future__ import annotations

import importlib
import inspect
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline

from tileir.compiler import (
    PassEvent,
    compile_module,
    load_module,
    parse_module_text,
)
from tileir.diagnostics import CompileError, verify_module
from tileir.display import (
    IRDiff,
    IRView,
    PtxasReport,
    diff_texts,
    highlight_html,
    ir_text,
    op_counts,
    preview,
    ptxas_report,
    register_ipython_formatters,
)
from tileir.pipelines import STAGES, check_num_warps
from tileir.registry import PASSES, make_context
from tileir.targets import resolve_gpu_name

if TYPE_CHECKING:
    from tileir.driver.remarks import Remark

__all__ = [
    "Compilation",
    "LaunchUnavailable",
    "PassRecord",
    "Stage",
    "available_passes",
    "compile",
    "diff",
    "emit_ptx",
    "launch",
    "load",
    "load_cutile",
    "run_pass",
]

#: Suffixes `load` reads as files when given a string.
_FILE_SUFFIXES = (".mlir", ".tileirbc", ".bc", ".txt")

#: compile_module's parameters that are not pipeline options.
_NOT_OPTIONS = {"module", "arch", "stop_after", "keep_stages", "ctx", "on_pass"}


# ---------------------------------------------------------------------------
# load
# ---------------------------------------------------------------------------


def load(source: str | bytes | Path, *, name: str | None = None) -> ModuleOp:
    """A verified module from cuda_tile text or `.tileirbc` bytecode.

    `source` is a path (a `Path`, or a string naming an existing file or ending in
    `.mlir`/`.tileirbc`), bytecode bytes, or the text itself.  `name` is the file name
    diagnostics and locations use for in-memory input."""
    if isinstance(source, Path):
        return load_module(source)
    if isinstance(source, bytes | bytearray):
        data = bytes(source)
        from tileir.bytecode import is_bytecode, read_bytecode

        if is_bytecode(data):
            return read_bytecode(data, name or "<bytecode>", make_context())
        return parse_module_text(data, name or "<text>")
    if isinstance(source, str):
        one_line = "\n" not in source and "{" not in source
        if one_line and (
            Path(source).is_file()
            or source.endswith(_FILE_SUFFIXES)
            or ("/" in source and " " not in source)
        ):
            return load_module(source)
        return parse_module_text(source, name or "<text>")
    raise TypeError(f"load() takes a path, text or bytecode bytes, not {type(source).__name__}")


def load_cutile(kernel: Any, signature: Any, arch: str = "sm_90a") -> ModuleOp:
    """The module cuTile Python exports for `kernel` (a `@ct.kernel`) and `signature`:
    a `cuda.tile.compilation.KernelSignature`, a list of them, or the list of parameters
    one signature holds (`ArrayConstraint`s, `ScalarConstraint`s, ints for constants),
    with cuTile's calling convention.  cuTile writes Tile IR bytecode for `arch` (no GPU
    needed) and tileir reads it back, with the kernel's Python lines as locations and
    its variables' names as value names (`%tx` for `tx = ct.load(...)`, in every stage:
    `tileir.source_names`)."""
    import io

    try:
        from cuda.tile.compilation import CallingConvention, KernelSignature, export_kernel
    except ImportError as e:
        raise CompileError(
            f"compiling a cuTile kernel needs cuTile Python (pip install cuda-tile): {e}"
        ) from None
    from tileir.bytecode import read_bytecode
    from tileir.bytecode.version import SUPPORTED_VERSIONS

    if isinstance(signature, KernelSignature):
        signatures = [signature]
    elif isinstance(signature, Sequence) and all(isinstance(s, KernelSignature) for s in signature):
        signatures = list(signature)  # pyright: ignore[reportUnknownArgumentType]
    elif isinstance(signature, Sequence):
        signatures = [KernelSignature(list(signature), CallingConvention.cutile_python_v1())]  # pyright: ignore[reportUnknownArgumentType]
    else:
        raise TypeError(
            "signature: a cuda.tile.compilation.KernelSignature, a list of them, or the "
            f"list of a signature's parameters, not {type(signature).__name__}"
        )
    gpu = resolve_gpu_name(arch, "arch").removesuffix("a")
    _check_parameter_count(kernel, signatures)
    out = io.BytesIO()
    try:
        export_kernel(
            kernel,
            signatures,
            out,
            output_format="tileir_bytecode",
            gpu_code=gpu,
            bytecode_version=str(SUPPORTED_VERSIONS[-1]),
        )
    except Exception as e:  # cuTile's own errors (a type error in the kernel, ...)
        hint = ""
        if "could not get source code" in str(e):
            hint = (
                "; cuTile reads a kernel's Python source: define the kernel in a file or "
                "a notebook cell (`python -c` and standard input keep no source)"
            )
        raise CompileError(f"cuTile could not export the kernel: {e}{hint}") from e
    name = getattr(getattr(kernel, "_pyfunc", None), "__name__", None) or "kernel"
    module = read_bytecode(out.getvalue(), f"<cuTile {name}>", make_context())
    # The bytecode names no values; the kernel's source does (`x = ct.load(...)`).
    from tileir.source_names import name_values_from_python

    name_values_from_python(module)
    return module


def _check_parameter_count(kernel: Any, signatures: Sequence[Any]) -> None:
    """A signature of the wrong length is a mistake in the call, which cuTile reports
    from deep inside its export (`zip() argument 2 is longer than argument 1`): say
    which parameters the kernel has instead."""
    import inspect

    function = getattr(kernel, "_pyfunc", None)
    if function is None:
        return
    names = list(inspect.signature(function).parameters)
    for signature in signatures:
        given = getattr(signature, "parameters", None)
        if given is not None and len(given) != len(names):
            raise CompileError(
                f"the signature gives {len(given)} parameter(s), but kernel "
                f"'{function.__name__}' takes {len(names)} ({', '.join(names)}): give one "
                "constraint per parameter, in order"
            )


def _is_cutile_kernel(value: object) -> bool:
    """A `@ct.kernel` object (without importing cuTile where it is not in use)."""
    return type(value).__module__.startswith("cuda.tile") and hasattr(value, "_pyfunc")


def _as_module(module: ModuleOp | str | bytes | Path) -> ModuleOp:
    if isinstance(module, ModuleOp):
        return module
    if isinstance(module, Operation):
        raise TypeError(f"expected a builtin.module, got '{module.name}' (wrap it in a ModuleOp)")
    return load(module)


# ---------------------------------------------------------------------------
# compile
# ---------------------------------------------------------------------------


@dataclass
class PassRecord:
    """One pass of a compilation: its stage, time (pass + verification), the op counts
    before and after it, and, when compiled with `trace_passes=True`, the IR text
    before and after."""

    stage: str
    name: str
    seconds: float
    ops_before: Counter[str]
    ops_after: Counter[str]
    text_before: str | None = None
    text_after: str | None = None

    @property
    def changed_ops(self) -> dict[str, tuple[int, int]]:
        return diff_texts("", "", self.ops_before, self.ops_after).changed_ops

    def __repr__(self) -> str:
        return f"<PassRecord {self.stage}:{self.name} {self.seconds * 1e3:.1f} ms>"

    def diff(self) -> IRDiff:
        if self.text_before is None or self.text_after is None:
            raise CompileError(
                f"the IR around pass '{self.name}' was not kept: compile with trace_passes=True"
            )
        return diff_texts(
            self.text_before, self.text_after, self.ops_before, self.ops_after, f"pass {self.name}"
        )


@dataclass
class Stage:
    """The IR after one stage of the pipeline: `module` (a private copy, None for
    `ptx`), `text` (printed on first use) and the passes that produced it."""

    name: str
    module: ModuleOp | None
    arch: str
    passes: list[PassRecord] = field(default_factory=list[PassRecord])
    _text: str | None = None
    _ptxas: PtxasReport | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            assert self.module is not None
            self._text = ir_text(self.module)
        return self._text

    @property
    def language(self) -> str:
        return "ptx" if self.name == "ptx" else "mlir"

    @property
    def ops(self) -> Counter[str]:
        """Op counts of the stage (empty for PTX)."""
        return op_counts(self.module) if self.module is not None else Counter()

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.passes)

    def ptxas(self) -> PtxasReport:
        """`ptxas -arch=<arch> -v` on this PTX: registers, spills, stack, shared memory."""
        if self.name != "ptx":
            raise CompileError(f"ptxas reads PTX; this is the '{self.name}' stage")
        if self._ptxas is None:
            self._ptxas = ptxas_report(self.text, self.arch)
        return self._ptxas

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<Stage {self.name}: {self._summary()}>"

    def view(self) -> IRView:
        return IRView(self.text, self.language, f"stage {self.name}")

    def _summary(self) -> str:
        lines = self.text.count("\n")
        if self.name == "cuda_tile":
            return f"{lines} lines (input)"
        return f"{lines} lines, {len(self.passes)} passes, {self.seconds * 1e3:.1f} ms"

    def _ptxas_html(self) -> str:
        try:
            return self.ptxas()._repr_html_()
        except FileNotFoundError as e:
            return f"<i>{e}</i>"

    def _repr_html_(self) -> str:
        extra = self._ptxas_html() if self.name == "ptx" else ""
        return f"<b>stage {self.name}</b> ({self._summary()}){extra}" + highlight_html(
            self.text, self.language
        )

    def _repr_markdown_(self) -> str:
        return (
            f"**stage {self.name}** ({self._summary()})\n\n"
            + IRView(self.text, self.language)._repr_markdown_()
        )


class StageTexts(Mapping[str, str]):
    """`Compilation.asm`: stage name -> the stage's text, printed when first read."""

    def __init__(self, stages: Mapping[str, Stage]):
        self._stages = stages

    def __getitem__(self, name: str) -> str:
        if name not in self._stages:
            produced = ", ".join(self._stages)
            raise KeyError(f"no stage '{name}' in this compilation; it has {produced}")
        return self._stages[name].text

    def __iter__(self) -> Iterator[str]:
        return iter(self._stages)

    def __len__(self) -> int:
        return len(self._stages)

    def __repr__(self) -> str:
        return f"<asm: {', '.join(self._stages)}>"


class StageNotProduced(AttributeError):
    """A stage after `stop_after` was asked for."""


@dataclass
class Compilation:
    """The result of `tileir.compile`: every stage (`.cuda_tile`, `.tileaa`,
    `.tileas`, `.llvm`, `.ptx`, or `stages[name]`) and every pass with its time."""

    arch: str
    options: dict[str, Any]
    stages: dict[str, Stage]
    passes: list[PassRecord]
    _remarks: list[Remark] | None = None

    @property
    def asm(self) -> StageTexts:
        """The text of every stage produced, by stage name (`asm["tileas"]`,
        `asm["ptx"]`), as Triton's `kernel.asm` maps its stages; printed on first use."""
        return StageTexts(self.stages)

    @property
    def remarks(self) -> list[Remark]:
        """The decisions the compiler recorded in the IR, as `tileir-as --remarks=all`
        reports them (`tileir.driver.remarks`): the copy atom of each global load and
        store (and what kept it narrow), each layout conversion, the warps per CTA, the
        tensor-core instruction of each dot and how its operands are fed.  Each is a
        `Remark` (`kind`, `category`, `name`, `message`, `function`, `location`).
        ptxas's registers and spills are `ptx.ptxas()`.  Empty when compilation stopped
        before `tileas`."""
        if self._remarks is None:
            from tileir.driver.remarks import tileas_remarks

            tileas = self.stages.get("tileas")
            module = tileas.module if tileas is not None else None
            self._remarks = tileas_remarks(module, self.arch) if module is not None else []
        return self._remarks

    def remark_rows(self) -> list[tuple[str, str, str, str, str]]:
        """(kind, category, name, where, message) for each remark, for tables."""
        rows = []
        for r in self.remarks:
            where = r.location.mlir() if r.location is not None else r.function
            rows.append((r.kind, r.category, r.name, where, r.message))
        return rows

    def stage(self, name: str) -> Stage:
        if name not in STAGES:
            raise CompileError(f"unknown stage '{name}'; expected one of {', '.join(STAGES)}")
        if name not in self.stages:
            last = list(self.stages)[-1]
            raise StageNotProduced(f"compilation stopped after '{last}'; no '{name}' stage")
        return self.stages[name]

    @property
    def cuda_tile(self) -> Stage:
        return self.stage("cuda_tile")

    @property
    def tileaa(self) -> Stage:
        return self.stage("tileaa")

    @property
    def tileas(self) -> Stage:
        return self.stage("tileas")

    @property
    def llvm(self) -> Stage:
        return self.stage("llvm")

    @property
    def ptx(self) -> Stage:
        return self.stage("ptx")

    @property
    def seconds(self) -> float:
        """Time spent in passes (and PTX emission), in seconds."""
        return sum(p.seconds for p in self.passes)

    @property
    def timings(self) -> list[tuple[str, str, float]]:
        """(stage, pass, seconds) for every pass, in order."""
        return [(p.stage, p.name, p.seconds) for p in self.passes]

    def __iter__(self) -> Iterator[Stage]:
        return iter(self.stages.values())

    def pass_record(self, name: str) -> PassRecord:
        """The record of pass `name` (`stage:pass` picks one of several runs, e.g.
        `llvm:cse`)."""
        stage, _, pass_name = name.rpartition(":")
        found = [p for p in self.passes if p.name == pass_name and stage in ("", p.stage)]
        if not found:
            known = ", ".join(f"{p.stage}:{p.name}" for p in self.passes)
            raise CompileError(f"no pass '{name}' in this compilation; it ran {known}")
        if len(found) > 1:
            where = ", ".join(f"{p.stage}:{p.name}" for p in found)
            raise CompileError(f"pass '{name}' ran {len(found)} times; name one of {where}")
        return found[0]

    def diff(self, a: str, b: str | None = None) -> IRDiff:
        """What changed: `diff("tileas")` from the previous stage to `tileas`;
        `diff("tileaa", "llvm")` between two stages; `diff("tileas-assign-layouts")`
        across one pass (needs `trace_passes=True`)."""
        if a not in STAGES:
            if b is not None:
                raise CompileError(f"unknown stage '{a}'; expected one of {', '.join(STAGES)}")
            return self.pass_record(a).diff()
        if b is None:
            index = STAGES.index(a)
            if index == 0:
                raise CompileError("cuda_tile is the input: there is no stage before it")
            a, b = STAGES[index - 1], a
        first, second = self.stage(a), self.stage(b)
        return diff_texts(first.text, second.text, first.ops, second.ops, f"{a} → {b}")

    def timing_rows(self) -> list[tuple[str, str, str, str]]:
        total = self.seconds or 1.0
        rows = []
        for p in self.passes:
            delta = ", ".join(f"{n} {x}→{y}" for n, (x, y) in list(p.changed_ops.items())[:4])
            more = len(p.changed_ops) - 4
            if more > 0:
                delta += f", +{more} more"
            delta = delta or "—"  # only types or attributes changed (or nothing)
            rows.append(
                (f"{p.stage}", p.name, f"{p.seconds * 1e3:.1f} ms ({p.seconds / total:.0%})", delta)
            )
        return rows

    def _header(self) -> str:
        kernels = []
        cuda_tile = self.stages["cuda_tile"].module
        if cuda_tile is not None:
            kernels = [
                str(op.properties["sym_name"]).strip('"')
                for op in cuda_tile.walk()
                if op.name == "cuda_tile.entry"
            ]
        return (
            f"tileir compile for {self.arch} ({', '.join(f'{k}={v}' for k, v in self.options.items())}): "
            f"{', '.join(kernels) or 'no kernels'}; {len(self.stages)} stages, "
            f"{len(self.passes)} passes, {self.seconds * 1e3:.0f} ms"
        )

    def __repr__(self) -> str:
        return f"<Compilation {self._header()}>"

    def __str__(self) -> str:
        lines = [self._header()]
        lines += [f"  {s:9} {n:32} {t:>18}  {d}" for s, n, t, d in self.timing_rows()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        import html as _html

        from tileir.display import _html_table

        parts = [f"<b>{_html.escape(self._header())}</b>"]
        parts.append(_html_table(("stage", "pass", "time", "ops changed"), self.timing_rows()))
        if self.remarks:
            parts.append(
                f"<details><summary><b>remarks</b> ({len(self.remarks)}: the compiler's "
                "decisions)</summary>"
                + _html_table(("kind", "category", "name", "where", "remark"), self.remark_rows())
                + "</details>"
            )
        for name, stage in self.stages.items():
            more = f" (result.{name} shows all)"
            body = highlight_html(preview(stage.text, more=more), stage.language)
            extra = stage._ptxas_html() if name == "ptx" else ""
            parts.append(
                f"<details><summary><b>{name}</b> ({_html.escape(stage._summary())})</summary>"
                f"{extra}{body}</details>"
            )
        return "".join(parts)

    def _repr_markdown_(self) -> str:
        from tileir.display import _md_table

        parts = [
            f"**{self._header()}**\n",
            _md_table(("stage", "pass", "time", "ops changed"), self.timing_rows()),
        ]
        if self.remarks:
            parts.append(f"**remarks** ({len(self.remarks)})\n")
            parts.append(
                _md_table(("kind", "category", "name", "where", "remark"), self.remark_rows())
            )
        for name, stage in self.stages.items():
            text = preview(stage.text, more=f" (result.{name} shows all)")
            parts.append(f"**stage {name}** ({stage._summary()})\n")
            parts.append(IRView(text, stage.language)._repr_markdown_())
        return "\n".join(parts)


def _pipeline_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Pipeline options (`num_warps=8`, or `num-warps`) checked against what
    `compile_module` accepts."""
    accepted = [
        name for name in inspect.signature(compile_module).parameters if name not in _NOT_OPTIONS
    ]
    out: dict[str, Any] = {}
    for key, value in options.items():
        name = key.replace("-", "_")
        if name not in accepted:
            raise CompileError(
                f"unknown pipeline option '{key}'; expected one of {', '.join(accepted)}"
            )
        out[name] = value
    return out


class _Recorder:
    """The `on_pass` hook of `compile`: times each pass, counts its ops, and keeps a
    copy of the IR at the end of each stage (and its text, when tracing)."""

    def __init__(self, module: ModuleOp, arch: str, trace: bool):
        self.arch = arch
        self.trace = trace
        self.stages: dict[str, Stage] = {"cuda_tile": Stage("cuda_tile", module.clone(), arch)}
        self.records: list[PassRecord] = []
        self._pending: list[PassRecord] = []
        self._counts = op_counts(module)
        self._text = ir_text(module) if trace else None

    def __call__(self, event: PassEvent) -> None:
        if event.name == "emit-ptx":
            self.records.append(
                PassRecord("ptx", "emit-ptx", event.seconds, self._counts, self._counts)
            )
            return
        counts = op_counts(event.module)
        text = ir_text(event.module) if self.trace else None
        record = PassRecord(
            event.stage, event.name, event.seconds, self._counts, counts, self._text, text
        )
        self._counts, self._text = counts, text
        self.records.append(record)
        self._pending.append(record)
        if event.ends_stage:
            stage = Stage(event.stage, event.module.clone(), self.arch, list(self._pending))
            stage._text = text
            self.stages[event.stage] = stage
            self._pending.clear()


def compile(
    module: ModuleOp | str | bytes | Path | Any,
    arch_or_signature: Any = None,
    stop_after: str | None = None,
    *,
    arch: str | None = None,
    signature: Any = None,
    trace_passes: bool = False,
    **pipeline_options: Any,
) -> Compilation:
    """Compile `module` (a module, anything `load` takes, or a cuTile `@ct.kernel`) for
    `arch` (`sm_80` ... `sm_100a`; `sm_90` means `sm_90a` as with tileiras; default
    `sm_90a`), keeping every stage up to `stop_after` (default: all of them, through
    `ptx`).  The second positional argument is the arch, or for a cuTile kernel its
    signature (`load_cutile`): `compile(kernel, signature, arch="sm_90")`.

    Pipeline options are those of `tileir-as` (`num_warps=4`).  With
    `trace_passes=True` the IR around every pass is kept too, for `result.diff(pass)`
    (this prints the IR after each pass, so it roughly doubles the compile time).
    The input module is not changed."""
    if _is_cutile_kernel(module):
        if arch_or_signature is not None and not isinstance(arch_or_signature, str):
            if signature is not None:
                raise TypeError("compile() got the signature twice")
            signature = arch_or_signature
        elif arch_or_signature is not None:
            arch = _one_arch(arch_or_signature, arch)
        if signature is None:
            raise TypeError(
                "compiling a cuTile kernel needs its signature: compile(kernel, signature)"
            )
        arch = resolve_gpu_name(arch or "sm_90a", "arch")
        source = load_cutile(module, signature, arch)
    else:
        if signature is not None:
            raise TypeError("signature= is for cuTile kernels; this is a module")
        if arch_or_signature is not None and not isinstance(arch_or_signature, str):
            raise TypeError(f"arch must be a string such as 'sm_90a', not {arch_or_signature!r}")
        arch = resolve_gpu_name(_one_arch(arch_or_signature, arch) or "sm_90a", "arch")
        source = _as_module(module)
    stop = stop_after or "ptx"
    if stop not in STAGES:
        raise CompileError(f"unknown stage '{stop}'; expected one of {', '.join(STAGES)}")
    options = _pipeline_options(pipeline_options)
    working = source.clone()
    verify_module(working)
    if "num_warps" in options:  # as tileir-as checks --num-warps: a message, not a layout's
        check_num_warps(options["num_warps"], working)

    recorder = _Recorder(working, arch, trace_passes)
    result = compile_module(working, arch, stop_after=stop, on_pass=recorder, **options)
    if result.ptx is not None:
        recorder.stages["ptx"] = Stage("ptx", None, arch, [recorder.records[-1]], result.ptx)
    shown = {"num_warps": inspect.signature(compile_module).parameters["num_warps"].default}
    return Compilation(arch, shown | options, recorder.stages, recorder.records)


def _one_arch(positional: str | None, keyword: str | None) -> str | None:
    if positional is not None and keyword is not None:
        raise TypeError("compile() got the arch twice (positional and arch=)")
    return positional or keyword


def emit_ptx(module: ModuleOp, arch: str = "sm_90a") -> Stage:
    """The PTX of a module already lowered to llvm + nvvm (for instance by
    `run_pass(..., "convert-tileas-to-llvm")` after your own passes), as a `Stage`
    whose `ptxas()` checks it."""
    from tileir.backend.ptx.target import module_to_ptx

    arch = resolve_gpu_name(arch, "arch")
    return Stage("ptx", None, arch, [], module_to_ptx(module, arch))


# ---------------------------------------------------------------------------
# passes
# ---------------------------------------------------------------------------


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Every pass `run_pass` knows: tileir's (`tileir.registry.PASSES`) and xDSL's."""
    from xdsl.universe import Universe

    passes = dict(Universe.get_multiverse().all_passes)
    passes.update(PASSES)
    return passes


def run_pass(
    module: ModuleOp | str | bytes | Path,
    pass_: str | ModulePass | type[ModulePass],
    *,
    in_place: bool = False,
    **options: Any,
) -> ModuleOp:
    """Run one pass (or a pipeline `"a,b{opt=v}"`) and return the module after it.

    `pass_` is a registered name (`"tileas-canonicalize"`, xDSL's `"cse"`), a spec
    with options (`"tileas-assign-layouts{num-warps=8}"`), a `ModulePass` instance, or
    a pass class (built with `options`).  The input is copied first unless
    `in_place=True`; the result is verified."""
    target = _as_module(module)
    if not in_place:
        target = target.clone()
    ctx = make_context()
    passes: list[ModulePass]
    if isinstance(pass_, ModulePass):
        if options:
            raise CompileError("options go into the pass instance itself, not run_pass(...)")
        passes = [pass_]
    elif isinstance(pass_, type) and issubclass(pass_, ModulePass):
        passes = [_build_pass(pass_, options)]
    elif isinstance(pass_, str):
        known = available_passes()
        if options:
            if "," in pass_ or "{" in pass_:
                raise CompileError("give options either in the spec or as keywords, not both")
            if pass_ not in known:
                raise _unknown_pass(pass_)
            passes = [_build_pass(known[pass_](), options)]
        else:
            try:
                passes = list(PassPipeline.parse_spec(known, pass_).passes)
            except ValueError as e:
                from tileir.pass_specs import explain_pass_spec

                message = explain_pass_spec(pass_, e, known)
                if message.startswith("unknown pass"):
                    raise CompileError(f"{message}; {_OUR_PASSES}") from None
                raise CompileError(f"bad pass spec '{pass_}': {message}") from None
    else:
        raise TypeError(
            f"run_pass() takes a pass name, class or instance, not {type(pass_).__name__}"
        )
    from tileir.compiler import _apply

    for p in passes:
        _apply(ctx, p, target)
        verify_module(target)
    return target


def _build_pass(cls: type[ModulePass], options: Mapping[str, Any]) -> ModulePass:
    from tileir.diagnostics import did_you_mean
    from tileir.pass_specs import options_of

    known = options_of(cls)
    for key in options:
        name = key.replace("_", "-")
        if name not in known:
            listing = ", ".join(known) or "none"
            raise CompileError(
                f"bad options for pass '{cls.name}': it has no option '{name}'"
                f"{did_you_mean(name, known)} (its options: {listing})"
            )
    fields = {k.replace("-", "_"): v for k, v in options.items()}
    try:
        return cls(**fields)
    except TypeError as e:
        raise CompileError(f"bad options for pass '{cls.name}': {e}") from None


_OUR_PASSES = f"tileir's passes are {', '.join(PASSES)} (and xDSL's)"


def _unknown_pass(spec: str) -> CompileError:
    from tileir.diagnostics import did_you_mean

    close = did_you_mean(spec, available_passes())
    return CompileError(f"unknown pass '{spec}'{close}; {_OUR_PASSES}")


# ---------------------------------------------------------------------------
# diff
# ---------------------------------------------------------------------------


def diff(
    before: Operation | Stage | str, after: Operation | Stage | str, title: str = "diff"
) -> IRDiff:
    """What changed between two modules/ops, stages or texts: op counts and lines."""

    def text_and_ops(x: Operation | Stage | str) -> tuple[str, Counter[str]]:
        if isinstance(x, Operation):
            return ir_text(x), op_counts(x)
        if isinstance(x, Stage):
            return x.text, x.ops
        return x, Counter()

    (b_text, b_ops), (a_text, a_ops) = text_and_ops(before), text_and_ops(after)
    return diff_texts(b_text, a_text, b_ops, a_ops, title)


# ---------------------------------------------------------------------------
# launch
# ---------------------------------------------------------------------------


class LaunchUnavailable(RuntimeError):
    """The requested launcher (numpy interpreter or GPU runtime) cannot run here."""


_LAUNCHERS = {
    "interpreter": ("tileir.interpreter", "the numpy interpreter"),
    "gpu": ("tileir.runtime", "the GPU runtime"),
}


def launcher(backend: str = "interpreter") -> Callable[..., Any]:
    """The `launch` function of `backend`: `interpreter` (numpy reference semantics,
    no GPU needed) or `gpu` (tileir's PTX through the CUDA driver)."""
    if backend not in _LAUNCHERS:
        raise ValueError(f"unknown backend '{backend}'; expected one of {', '.join(_LAUNCHERS)}")
    module_name, what = _LAUNCHERS[backend]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if e.name is not None and (
            module_name.startswith(e.name) or e.name.startswith(module_name)
        ):
            raise LaunchUnavailable(
                f"{what} ({module_name}) is not part of this tileir build"
            ) from None
        raise LaunchUnavailable(f"{what} needs the '{e.name}' package: {e}") from None
    fn = getattr(module, "launch", None)
    if fn is None:
        raise LaunchUnavailable(f"{module_name} has no launch() in this tileir build")
    return fn


def launch(*args: Any, backend: str = "interpreter", **kwargs: Any) -> Any:
    """Run a kernel: `backend="interpreter"` calls `tileir.interpreter.launch`,
    `backend="gpu"` calls `tileir.runtime.launch`, with the same arguments
    (`launch(module_or_path, grid, *kernel_args)`; arrays are updated in place).
    `LaunchUnavailable` says why a backend cannot run here (for the GPU: no device,
    no CUDA driver binding)."""
    fn = launcher(backend)
    if backend != "gpu":
        return fn(*args, **kwargs)
    unavailable = getattr(importlib.import_module("tileir.runtime"), "GpuUnavailable", ())
    try:
        return fn(*args, **kwargs)
    except unavailable as e:
        raise LaunchUnavailable(f"the GPU runtime cannot run here: {e}. {GPU_NEEDS}") from None


#: What `launch(backend="gpu")` needs, said when it cannot run.
GPU_NEEDS = (
    "It needs an NVIDIA GPU with its driver, and CuPy (pip install -e '.[gpu]', or "
    "`make gpu`) or cuda-python's driver bindings (pip install cuda-python); "
    'backend="interpreter" runs the kernel without a GPU'
)


register_ipython_formatters()
