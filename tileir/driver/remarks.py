"""Optimization remarks: what tileir decided for each kernel, as tileiras reports it.

`tileir-as --remarks=all --remark-format=yaml --remarks-output-file=F` writes LLVM's
remark YAML (the format tileiras writes and cuTile Python stores in its cache):

    --- !Passed
    Pass:            Memory
    Name:            GlobalLoadVectorized
    DebugLoc:        { File: 'kernel.py', Line: 32, Column: 8 }
    Function:        vadd_f32
    Args:
      - Remark:      'global load moves 4 x f32 (16 bytes) per thread per access (ldg_128b)'
    ...

Every remark states a decision the compiler recorded in the IR it produced, read back
right after the stage that made it, never a guess:

* `Memory`: the global-memory copy atom convert-tileaa-to-tileas chose for each tiled
  load and store (`Passed` when it is a vector access, `Missed` with the axis-analysis
  facts that limited it: contiguity, alignment, tile extent), and each
  `convert_layout` tileas-assign-layouts had to insert (`Missed`: data goes through
  shared memory);
* `Kernel`: the warps per CTA tileas-assign-layouts chose (`Analysis`), the
  registers, static shared memory and spills ptxas reports (`Analysis`), and how many
  CTAs per SM the kernel's shared memory (static and dynamic) allows on the target
  (`SharedMemoryOccupancy`), and where the kernel is compiled for fewer CTAs per SM
  than its `occupancy` hint asks because a loop's accumulators do not fit the hint's
  registers (`Missed`: `OccupancyHintNotHonoured`, `occupancy.fit_occupancy`).

* `TensorCore`: for each `mmaf`/`mmai`, the instruction the code generator will use
  (`Passed`: `wgmma.mma_async` on sm_90a, `mma.sync` elsewhere or where the warps do
  not form whole warpgroups along M; `Missed` where it falls back from `wgmma` to
  `mma.sync` on sm_90a, and where the dot runs on FMAs, with the reason); for a dot in
  a loop, whether its operands arrive through a ring of `cp.async` copies and how many
  stages deep (`DotPipelined`), or why not (`DotNotPipelined`); for a dot whose
  accumulator does not fit in registers, the passes split-dot-accumulators runs its
  loop in (`AccumulatorSplit`) or why it left it whole (`AccumulatorNotSplit`); for a
  dot whose operand stage does not fit twice in the shared memory its rings may take,
  the narrower K steps split-dot-k-steps runs its loop in (`KStepSplit`) or why it kept
  the step (`KStepNotSplit`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, TensorType
from xdsl.ir import Operation

from tileir.diagnostics import SourceLocation, location_of
from tileir.targets import ARCHS

if TYPE_CHECKING:
    from tileir.dialects.nv_tileas import ops as tas

KINDS = ("passed", "missed", "failed", "analysis")
CATEGORIES = ("none", "all", "memory", "tensorcore")

#: YAML tag of each kind, as LLVM writes them.
_TAGS = {"passed": "Passed", "missed": "Missed", "failed": "Failure", "analysis": "Analysis"}


@dataclass
class Remark:
    kind: str  # one of KINDS
    category: str  # "Memory", "TensorCore" or "Kernel"
    name: str
    message: str
    function: str
    location: SourceLocation | None = None

    def __str__(self) -> str:  # one line, as diagnostics read: `print(*result.remarks)`
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.kind} {self.name}: {self.message}"


@dataclass
class RemarkFilter:
    """Which kinds are shown for which category (`--remarks`, `--remarks-passed`, ...)."""

    by_kind: dict[str, str] = field(default_factory=lambda: dict.fromkeys(KINDS, "none"))

    @classmethod
    def from_options(cls, all_kinds: str | None, per_kind: dict[str, str | None]) -> RemarkFilter:
        f = cls()
        for kind in KINDS:
            chosen = per_kind.get(kind) or all_kinds or "none"
            f.by_kind[kind] = chosen
        return f

    @property
    def enabled(self) -> bool:
        return any(v != "none" for v in self.by_kind.values())

    def shows(self, remark: Remark) -> bool:
        chosen = self.by_kind[remark.kind]
        if chosen == "all":
            return True
        return chosen == remark.category.lower()


def _function_name(op: Operation) -> str:
    parent = op if isinstance(op, func.FuncOp) else op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        parent = parent.parent_op()
    return parent.sym_name.data if isinstance(parent, func.FuncOp) else "?"


def _vector_dimension(op: Operation) -> int | None:
    """The dimension along which the layout of a tiled load's or store's tile gives a
    thread consecutive elements (where the lowering vectorizes), if its layout says."""
    from tileir.dialects.nv_tileas import ops as tas
    from tileir.dialects.nv_tileas.layouts import DistributedLayout

    if isinstance(op, tas.TiledLoadOp):
        t = op.result.type
    elif isinstance(op, tas.TiledStoreOp):
        t = op.value.type
    else:
        return None
    if not isinstance(t, TensorType) or not isinstance(t.encoding, DistributedLayout):
        return None
    registers = t.encoding.linear(list(t.get_shape())).registers
    first = registers[0] if registers else ()
    dims = [i for i, x in enumerate(first) if x]
    return dims[0] if len(dims) == 1 else None


def tileas_remarks(module: ModuleOp, arch: str = "sm_90a") -> list[Remark]:
    """Remarks about the decisions recorded in `module` right after the tileas stage
    (copy atoms, layout conversions, warps per CTA, tensor-core instructions for
    `arch`)."""
    from tileir.analysis.axis_info import AxisInfoAnalysis, element_bytes
    from tileir.dialects.cuda_tile.carriers import element_type, shape_of
    from tileir.dialects.cuda_tile.types import PointerType
    from tileir.dialects.nv_tileas import ops as tas
    from tileir.dialects.nv_tileas.attributes import ATOM_CATALOG
    from tileir.transforms.tileas.assign_layouts import NUM_WARPS_ATTR
    from tileir.transforms.tileas.occupancy import OCCUPANCY_NOTE_ATTR
    from tileir.transforms.tileas.overlap_attention_dots import ROTATED_COPY_ATTR

    out: list[Remark] = []
    analysis = AxisInfoAnalysis()
    for op in module.walk():
        if isinstance(op, func.FuncOp):
            warps = op.attributes.get(NUM_WARPS_ATTR)
            if isinstance(warps, IntegerAttr):
                n = warps.value.data
                out.append(
                    Remark(
                        "analysis",
                        "Kernel",
                        "WarpsPerCTA",
                        f"kernel runs {n} warp{'s' if n != 1 else ''} per CTA ({32 * n} threads, .reqntid {32 * n})",
                        op.sym_name.data,
                        location_of(op),
                    )
                )
            note = op.attributes.get(OCCUPANCY_NOTE_ATTR)
            if isinstance(note, StringAttr):
                out.append(
                    Remark(
                        "missed",
                        "Kernel",
                        "OccupancyHintNotHonoured",
                        note.data,
                        op.sym_name.data,
                        location_of(op),
                    )
                )
        elif isinstance(op, tas.TiledLoadOp | tas.TiledStoreOp):
            view = op.view.owner
            if not isinstance(view, tas.ViewOp):
                continue
            pointers = view.src
            pointee = element_type(pointers.type)
            if not isinstance(pointee, PointerType):
                continue
            what = "load" if isinstance(op, tas.TiledLoadOp) else "store"
            el = pointee.pointee
            size = element_bytes(el)
            info = ATOM_CATALOG.get(op.atom.data)
            bits = info.bits if info is not None else 0
            per_access = max(1, bits // (8 * size)) if bits else 1
            el_name = str(el)
            fn_name = _function_name(op)
            where = location_of(op)
            atom = op.atom.data
            if per_access > 1:
                out.append(
                    Remark(
                        "passed",
                        "Memory",
                        f"Global{what.capitalize()}Vectorized",
                        f"global {what} moves {per_access} x {el_name} ({bits // 8} bytes) per "
                        f"thread per access ({atom})",
                        fn_name,
                        where,
                    )
                )
            widest = max(1, 16 // size)
            if per_access < widest:
                shape = shape_of(pointers.type)
                facts = analysis.get(pointers) if shape else None
                reasons: list[str] = []
                if facts is not None:
                    runs = facts.contiguity
                    d = max(range(len(shape)), key=lambda i: (runs[i], i))
                    contiguous = facts.contiguity[d]
                    divisible = facts.divisibility[d]
                    if contiguous < widest:
                        reasons.append(
                            f"the addresses are contiguous in runs of {contiguous} element"
                            f"{'s' if contiguous != 1 else ''} along dimension {d}"
                        )
                    if divisible < 16:
                        reasons.append(
                            f"the first address of each run is only known to be divisible "
                            f"by {divisible} bytes (16 needed)"
                        )
                    if shape[d] < widest:
                        reasons.append(f"the tile has {shape[d]} elements along dimension {d}")
                    along = _vector_dimension(op)
                    if along is not None and along != d:
                        reasons.append(
                            f"the tile's layout gives each thread consecutive elements along "
                            f"dimension {along}, not {d} (a transposed access; "
                            "tileas-assign-layouts chooses one layout per rank)"
                        )
                else:
                    reasons.append("the access is a scalar")
                because = "; ".join(reasons) or "the access width is limited by the atom catalog"
                out.append(
                    Remark(
                        "missed",
                        "Memory",
                        f"Global{what.capitalize()}NotFullyVectorized",
                        f"global {what} moves {per_access} x {el_name} per thread per access "
                        f"({atom}), not 16 bytes: {because}",
                        fn_name,
                        where,
                    )
                )
        elif isinstance(op, tas.DotOp) and ROTATED_COPY_ATTR not in op.attributes:
            out.extend(_dot_remarks(op, arch))
        elif isinstance(op, tas.ConvertLayoutOp):
            t = op.result.type
            shape = "x".join(str(d) for d in t.get_shape()) if isinstance(t, TensorType) else "?"
            out.append(
                Remark(
                    "missed",
                    "Memory",
                    "LayoutConversion",
                    f"a {shape} tile changes layout between producer and consumer "
                    "(nv_tileas.convert_layout: through shared memory)",
                    _function_name(op),
                    location_of(op),
                )
            )
    return out


def _dot_remarks(op: tas.DotOp, arch: str) -> list[Remark]:
    """The `TensorCore` remarks of one `nv_tileas.dot`: the engine and instruction its
    atom records, and why it is not `wgmma` (`dot_plan.recorded_plan`)."""
    from tileir.dialects.cuda_tile.carriers import element_type
    from tileir.transforms.cuda_tile.split_accumulators import ACCUMULATOR_SPLIT_ATTR
    from tileir.transforms.cuda_tile.split_k_steps import K_STEP_SPLIT_ATTR
    from tileir.transforms.tileas.dot_plan import recorded_plan
    from tileir.transforms.tileas.pipeline_dot_operands import NOT_PIPELINED, feed_clauses

    plan = recorded_plan(op, arch)
    if plan is None:
        return []
    a_t, b_t, acc_t = (v.type for v in (op.a, op.b, op.acc))
    assert isinstance(a_t, TensorType) and isinstance(b_t, TensorType)
    shapes = " by ".join("x".join(map(str, t.get_shape())) for t in (a_t, b_t))
    kinds = op.atom.info.mma_kinds
    pairs = " (e2m1 pairs)" if kinds is not None and kinds[0] == "e2m1" else ""
    what = f"dot of {shapes} {element_type(a_t)}{pairs} -> {element_type(acc_t)}"
    fn, where = _function_name(op), location_of(op)
    if plan.engine == "fma":
        message = f"{what} runs on FMAs (CUDA cores): {plan.detail}"
        return [Remark("missed", "TensorCore", "TensorCoreNotUsed", message, fn, where)]
    out = [Remark("passed", "TensorCore", "TensorCoreMma", f"{what} on {plan.detail}", fn, where)]
    feed = feed_clauses(op)
    if feed:
        pipelined = feed[0] != NOT_PIPELINED
        kind, name = ("passed", "DotPipelined") if pipelined else ("missed", "DotNotPipelined")
        out.append(Remark(kind, "TensorCore", name, f"{what}: {'; '.join(feed)}", fn, where))
    for attr, subject in ((ACCUMULATOR_SPLIT_ATTR, "Accumulator"), (K_STEP_SPLIT_ATTR, "KStep")):
        split = op.attributes.get(attr)
        if isinstance(split, StringAttr):
            kind, name = (
                ("missed", f"{subject}NotSplit")
                if " not split: " in split.data
                else ("passed", f"{subject}Split")
            )
            out.append(Remark(kind, "TensorCore", name, f"{what}: {split.data}", fn, where))
    if plan.why_not_wgmma is not None and arch == "sm_90a":
        message = f"{what} uses mma.sync, not wgmma: {plan.why_not_wgmma}"
        out.append(Remark("missed", "TensorCore", "WgmmaNotUsed", message, fn, where))
    from tileir.conversions.scaled_mma import BLOCK_SCALED_ATTR

    not_native = op.attributes.get(BLOCK_SCALED_ATTR)
    if isinstance(not_native, StringAttr):
        message = (
            f"{what} is one K group of a block-scaled mmaf_scaled on bf16 dots of its "
            f"dequantized operands, not one block-scaled tcgen05.mma: {not_native.data}"
        )
        out.append(Remark("missed", "TensorCore", "BlockScaledNotNative", message, fn, where))
    if op.scales is not None:
        message = (
            f"{what} is a block-scaled mmaf_scaled on {arch}'s block-scaled tcgen05.mma, its "
            "scales copied to tensor memory (tcgen05.cp)"
        )
        out.append(Remark("passed", "TensorCore", "BlockScaledNative", message, fn, where))
    if plan.engine == "tcgen05":
        message = (
            f"{what} runs on tcgen05 ({arch}'s tensor-memory MMA): a rank-2 dot whose M is 64 "
            "or a multiple of 128 and N a multiple of 16, its 32-bit accumulator in tensor "
            "memory"
        )
        out.append(Remark("passed", "TensorCore", "Tcgen05Used", message, fn, where))
    if plan.engine == "mma.sync" and arch in ARCHS and ARCHS[arch].tcgen05:
        why = plan.why_not_tcgen05 or "tileir does not generate tcgen05 for it"
        message = f"{what} uses mma.sync, not tcgen05: {why}"
        out.append(Remark("missed", "TensorCore", "Tcgen05NotUsed", message, fn, where))
    return out


def shared_memory_of(ptxas_output: str) -> dict[str, int]:
    """Static shared memory per kernel, from ptxas -v (`... 8448 bytes smem ...`)."""
    import re

    out: dict[str, int] = {}
    current = None
    for line in ptxas_output.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
        m = re.search(r"(\d+) bytes smem", line)
        if m and current:
            out[current] = int(m.group(1))
    return out


def dynamic_shared_of(ptx: str) -> dict[str, int]:
    """The dynamic shared memory each kernel of `ptx` needs at every launch, from the
    `__tileir_dynamic_smem_bytes_<kernel>` constants the `ptx` target writes."""
    import re

    from tileir.backend.ptx.target import DYNAMIC_SHARED_BYTES_PREFIX

    pattern = rf"\.u32 {re.escape(DYNAMIC_SHARED_BYTES_PREFIX)}([\w$]+) = (\d+);"
    return {m.group(1): int(m.group(2)) for m in re.finditer(pattern, ptx)}


def occupancy_remarks(
    arch: str,
    shared: dict[str, int],
    dynamic: dict[str, int],
    locations: dict[str, SourceLocation | None],
) -> list[Remark]:
    """How many CTAs of each kernel one SM of `arch` holds, as far as shared memory
    decides it (static bytes from ptxas, dynamic ones from the PTX)."""
    from tileir.targets import ARCHS, RESERVED_SHARED_PER_CTA, ctas_per_sm_by_shared

    out: list[Remark] = []
    for kernel in sorted(set(shared) | set(dynamic)):
        static, extra = shared.get(kernel, 0), dynamic.get(kernel, 0)
        total = static + extra
        if not total:
            continue
        how = f"{static} static" + (f" + {extra} dynamic" if extra else "")
        per_sm = ARCHS[arch].shared_per_sm
        message = (
            f"{total} bytes of shared memory per CTA ({how}): at most "
            f"{ctas_per_sm_by_shared(arch, total)} CTAs per SM on {arch} by shared memory "
            f"({per_sm} bytes per SM, {RESERVED_SHARED_PER_CTA} reserved per CTA)"
        )
        out.append(
            Remark(
                "analysis",
                "Kernel",
                "SharedMemoryOccupancy",
                message,
                kernel,
                locations.get(kernel),
            )
        )
    return out


def ptxas_remarks(
    registers: dict[str, int],
    spills: dict[str, int],
    locations: dict[str, SourceLocation | None],
    shared: dict[str, int] | None = None,
) -> list[Remark]:
    """ptxas's report of each kernel: registers, static shared memory, spill stores."""
    out: list[Remark] = []
    for kernel, count in registers.items():
        spilled = spills.get(kernel, 0)
        smem = (shared or {}).get(kernel, 0)
        out.append(
            Remark(
                "analysis" if not spilled else "missed",
                "Kernel",
                "RegisterUsage" if not spilled else "RegisterSpills",
                f"ptxas: {count} registers per thread, {smem} bytes of static shared memory, "
                f"{spilled} bytes of spill stores",
                kernel,
                locations.get(kernel),
            )
        )
    return out


def _yaml_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def write_yaml(remarks: Iterable[Remark], out: TextIO) -> None:
    for r in remarks:
        out.write(f"--- !{_TAGS[r.kind]}\n")
        out.write(f"Pass:            {r.category}\n")
        out.write(f"Name:            {r.name}\n")
        if r.location is not None:
            loc = r.location
            out.write(
                f"DebugLoc:        {{ File: {_yaml_string(loc.file)}, Line: {loc.line}, "
                f"Column: {loc.column} }}\n"
            )
        out.write(f"Function:        {_yaml_string(r.function)}\n")
        out.write("Args:\n")
        out.write(f"  - Remark:      {_yaml_string(r.message)}\n")
        out.write("...\n")


def print_remarks(remarks: Iterable[Remark], out: TextIO | None = None) -> None:
    """`--remark-format=command-line`: one `loc(...): remark: ...` line each."""
    stream = out or sys.stderr
    for r in remarks:
        where = f"{r.location.tileiras()}: " if r.location is not None else ""
        stream.write(f"{where}remark: [{r.category}] {r.message}\n")
