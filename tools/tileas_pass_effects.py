#!/usr/bin/env python3
"""What each of the seed's nv_tileas passes does to real kernels: a markdown table.

For every corpus kernel (`tests/corpus/*.tileirbc`) and target, the kernel is lowered to
the `tileas` stage of `cuda-tile-to-ptx` (without the passes measured here, should the
stage run some of them), then each pass below runs alone on a copy of that stage.  A
cell says what changed: ops added or removed by name (`-2 convert_layout` is two
conversions removed), attributes added to ops (`+nv_tileas.schedule on scf.for`), that
only operands or types were rewritten, `nothing`, or the error the pass raised.  Both
sides are compared after `dce`, since the passes leave dead ops for it.  Where a pass
changed something, the result is also lowered with `convert-tileas-to-llvm` (unless
`--no-lower`), and a cell says `does not lower` with the diagnostic when that fails.

    .venv/bin/python tools/tileas_pass_effects.py [--arch sm_90a --arch sm_80] [KERNEL ...]

KERNEL is a corpus kernel's name (`gemm_f16`) or a path to a `.tileirbc`/`.mlir` file;
without any, every corpus kernel.  The table in docs/pipeline.md comes from this script.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"

#: The seed's nv_tileas passes, in the order the table shows them.
SEED_PASSES = (
    "tileas-canonicalize",
    "tileas-remove-layout-conversions",
    "tileas-propagate-iterators",
    "tileas-materialize-schedule",
    "tileas-unspecialized-pipeline",
)

DEFAULT_ARCHS = ("sm_90a", "sm_80")

#: Op-name prefixes dropped in the table, to keep cells short.
SHORT_PREFIXES = ("nv_tileas.",)

#: How many op kinds a cell names before it summarizes the rest.
MAX_NAMED = 3


def kernel_paths(names: Sequence[str]) -> list[Path]:
    """The kernels to measure: every corpus kernel, or the named ones."""
    if not names:
        return sorted(CORPUS.glob("*.tileirbc"))
    paths: list[Path] = []
    for name in names:
        path = Path(name)
        if not path.exists():
            path = CORPUS / f"{name}.tileirbc"
        if not path.exists():
            raise SystemExit(f"no kernel {name!r} (not a file, nor tests/corpus/{name}.tileirbc)")
        paths.append(path)
    return paths


def tileas_stage(path: Path, arch: str, ctx: Context) -> ModuleOp:
    """`path` lowered to the `tileas` stage of the named pipeline, minus the passes this
    script measures (so each is measured on the stage as the others produce it)."""
    from tileir.compiler import _apply, load_module
    from tileir.pipelines import stage_passes

    module = load_module(path, ctx)
    for stage, passes in stage_passes(arch, num_warps=4):
        for p in passes:
            if p.name not in SEED_PASSES:
                _apply(ctx, p, module)
        if stage == "tileas":
            return module
    raise AssertionError("the named pipeline has no tileas stage")


def build_pass(name: str) -> ModulePass:
    from tileir.registry import PASSES

    return PASSES[name]()()


def short(name: str) -> str:
    for prefix in SHORT_PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def attribute_counts(module: ModuleOp) -> Counter[tuple[str, str]]:
    """(attribute, op) pairs over the module: which ops carry which discardable attribute."""
    return Counter((key, op.name) for op in module.walk() for key in op.attributes)


def describe_change(before: ModuleOp, after: ModuleOp) -> str:
    """What `after` has that `before` does not, in a few words (`nothing` if identical)."""
    if str(before) == str(after):
        return "nothing"
    ops = Counter(op.name for op in after.walk())
    ops.subtract(Counter(op.name for op in before.walk()))
    # nv_tileas ops (loads, conversions, dots) first: they say what the pass did; the
    # index arithmetic that comes with them follows, summarized.
    changed = sorted(
        ((n, c) for n, c in ops.items() if c),
        key=lambda nc: (not nc[0].startswith("nv_tileas."), -abs(nc[1]), nc[0]),
    )
    parts = [f"{count:+d} {short(name)}" for name, count in changed[:MAX_NAMED]]
    if len(changed) > MAX_NAMED:
        rest = sum(abs(c) for _, c in changed[MAX_NAMED:])
        parts.append(f"±{rest} other ops ({len(changed) - MAX_NAMED} kinds)")
    attrs = attribute_counts(after)
    attrs.subtract(attribute_counts(before))
    for (key, op_name), count in sorted(attrs.items()):
        if count:
            sign = "+" if count > 0 else "-"
            times = f" x{abs(count)}" if abs(count) > 1 else ""
            parts.append(f"{sign}{key} on {short(op_name)}{times}")
    return ", ".join(parts) if parts else "rewrote operands or types"


def first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    message = text[0] if text else type(e).__name__
    return message if len(message) <= 120 else message[:117] + "..."


def lowering_error(module: ModuleOp, arch: str, ctx: Context) -> str | None:
    """None when `module` lowers to llvm + nvvm, else the diagnostic's first line."""
    from tileir.compiler import _apply
    from tileir.conversions.tileas_to_llvm import ConvertTileASToLLVMPass

    try:
        _apply(ctx, ConvertTileASToLLVMPass(arch=arch), module.clone())
    except Exception as e:  # a crash is what this reports
        return first_line(e)
    return None


@dataclass
class Effect:
    kernel: str
    arch: str
    pass_name: str
    change: str
    lowers: str | None = None  # the lowering's error, when it fails


def measure(path: Path, arch: str, passes: Sequence[str], lower: bool) -> list[Effect]:
    """Each pass alone on `path`'s tileas stage for `arch`."""
    from tileir.compiler import _apply
    from tileir.registry import make_context

    ctx = make_context()
    kernel = path.name.split(".")[0]
    try:
        stage = tileas_stage(path, arch, ctx)
    except Exception as e:
        return [Effect(kernel, arch, p, f"stage fails: {first_line(e)}") for p in passes]
    base = stage.clone()
    DeadCodeElimination().apply(ctx, base)
    effects: list[Effect] = []
    for name in passes:
        after = stage.clone()
        try:
            _apply(ctx, build_pass(name), after)
            after.verify()
        except Exception as e:
            effects.append(Effect(kernel, arch, name, f"error: {first_line(e)}"))
            continue
        DeadCodeElimination().apply(ctx, after)
        effect = Effect(kernel, arch, name, describe_change(base, after))
        if lower and effect.change != "nothing":
            effect.lowers = lowering_error(after, arch, ctx)
        effects.append(effect)
    return effects


def cell(effects: Sequence[Effect], notes: list[str]) -> str:
    """One table cell: the effect on each target, merged when the targets agree.  A
    lowering failure is a numbered note (its diagnostic, once, under the table)."""

    def text(e: Effect) -> str:
        if e.lowers is None:
            return e.change
        if e.lowers not in notes:
            notes.append(e.lowers)
        return f"{e.change}; **does not lower** [{notes.index(e.lowers) + 1}]"

    texts = [text(e) for e in effects]
    if len(set(texts)) == 1:
        return texts[0].replace("|", "\\|")
    return "; ".join(f"{e.arch}: {t}" for e, t in zip(effects, texts, strict=True)).replace(
        "|", "\\|"
    )


def table(effects: Sequence[Effect], passes: Sequence[str]) -> str:
    kernels = list(dict.fromkeys(e.kernel for e in effects))
    lines = [
        "| kernel | " + " | ".join(f"`{p}`" for p in passes) + " |",
        "|---|" + "---|" * len(passes),
    ]
    notes: list[str] = []
    for kernel in kernels:
        row = [
            cell([e for e in effects if e.kernel == kernel and e.pass_name == p], notes)
            for p in passes
        ]
        lines.append(f"| {kernel} | " + " | ".join(row) + " |")
    if notes:
        lines.append("")
        lines.extend(f"[{i}] `{note}`" for i, note in enumerate(notes, 1))
    return "\n".join(lines)


def summary(effects: Sequence[Effect], passes: Sequence[str]) -> str:
    """One line per pass: on how many kernel x target pairs it changed something."""
    lines = []
    for p in passes:
        mine = [e for e in effects if e.pass_name == p]
        changed = [e for e in mine if e.change != "nothing"]
        failed = [e for e in changed if e.lowers is not None or e.change.startswith("error")]
        lines.append(
            f"- `{p}`: changed {len(changed)} of {len(mine)} kernel x target pairs"
            + (f", {len(failed)} of them no longer compile" if failed else "")
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("kernels", nargs="*", help="corpus kernel names or paths (default: all)")
    parser.add_argument(
        "--arch", action="append", help=f"target (repeatable; default {' '.join(DEFAULT_ARCHS)})"
    )
    parser.add_argument("--pass", dest="passes", action="append", choices=SEED_PASSES)
    parser.add_argument("--no-lower", action="store_true", help="do not lower changed modules")
    args = parser.parse_args(argv)
    archs = args.arch or list(DEFAULT_ARCHS)
    passes = args.passes or list(SEED_PASSES)
    effects: list[Effect] = []
    for path in kernel_paths(args.kernels):
        for arch in archs:
            effects.extend(measure(path, arch, passes, lower=not args.no_lower))
    print(table(effects, passes))
    print()
    print(summary(effects, passes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
