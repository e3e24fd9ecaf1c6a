#!/usr/bin/env python3
"""Compile time per corpus kernel, whole process: `tileir-as` against NVIDIA's
`tileiras` on the same bytecode, to a cubin (`make bench`).

Each tool runs as a fresh process (`TOOL KERNEL.tileirbc -o OUT.cubin --gpu-name G`),
so the times include interpreter start-up and imports for tileir-as and everything
for tileiras, as a user (or cuTile's JIT) pays them.  The best of `--repeat` runs is
reported; the ratio is tileir-as / tileiras (above 1: tileir-as is slower).

    python benchmarks/bench_compile.py [--repeat 3] [--gpu-name sm_90] [--markdown]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"


def find_tool(name: str) -> str | None:
    """A tool in the venv's bin, in the nvidia wheels' bin, or on PATH."""
    here = Path(sys.executable).parent
    if (here / name).is_file():
        return str(here / name)
    try:
        import nvidia  # pyright: ignore[reportMissingImports]

        for root in getattr(nvidia, "__path__", []):
            for sub in ("cu13", "cu12"):
                candidate = Path(root) / sub / "bin" / name
                if candidate.is_file():
                    return str(candidate)
    except ImportError:
        pass
    return shutil.which(name)


def time_tool(tool: str, kernel: Path, gpu: str, repeat: int) -> float | str:
    """Best wall time of `repeat` runs, or the first line of the tool's error."""
    best = math.inf
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "kernel.cubin"
        for _ in range(repeat):
            start = time.perf_counter()
            proc = subprocess.run(
                [tool, str(kernel), "-o", str(out), "--gpu-name", gpu],
                capture_output=True,
                text=True,
            )
            elapsed = time.perf_counter() - start
            if proc.returncode != 0:
                lines = (proc.stderr or proc.stdout).strip().splitlines()
                detail = lines[-1] if lines else f"exit status {proc.returncode}"
                print(f"{Path(tool).name} {kernel.name}: {detail}", file=sys.stderr)
                return "error"
            best = min(best, elapsed)
    return best


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def cell(value: float | str) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool and kernel")
    parser.add_argument("--gpu-name", default="sm_90", help="target of both tools")
    parser.add_argument("--only", action="append", help="kernel name (repeatable)")
    parser.add_argument("--markdown", action="store_true", help="a markdown table")
    args = parser.parse_args(argv)

    ours = find_tool("tileir-as")
    theirs = find_tool("tileiras")
    if ours is None:
        print("error: tileir-as not found (make install)", file=sys.stderr)
        return 1
    kernels = sorted(CORPUS.glob("*.tileirbc"))
    if args.only:
        kernels = [k for k in kernels if k.stem in args.only]
    rows: list[tuple[str, float | str, float | str, str]] = []
    for kernel in kernels:
        a = time_tool(ours, kernel, args.gpu_name, args.repeat)
        b = time_tool(theirs, kernel, args.gpu_name, args.repeat) if theirs else "not installed"
        ratio = f"{a / b:.1f}x" if isinstance(a, float) and isinstance(b, float) else "-"
        rows.append((kernel.stem, a, b, ratio))
        print(f"{kernel.stem}: {cell(a)} s / {cell(b)} s", file=sys.stderr, flush=True)

    pairs = [(a, b) for _, a, b, _ in rows if isinstance(a, float) and isinstance(b, float)]
    geo = math.exp(sum(math.log(a / b) for a, b in pairs) / len(pairs)) if pairs else None
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    header = (
        f"compile time to a cubin, whole process, best of {args.repeat}, --gpu-name "
        f"{args.gpu_name}; {stamp}; {machine()}"
    )
    if args.markdown:
        print(header)
        print()
        print("| kernel | tileir-as (s) | tileiras (s) | ratio |")
        print("|---|---:|---:|---:|")
        for name, a, b, ratio in rows:
            print(f"| `{name}` | {cell(a)} | {cell(b)} | {ratio} |")
        if geo is not None:
            print(f"| geometric mean ({len(pairs)} kernels) | | | {geo:.1f}x |")
    else:
        print(header)
        print(f"{'kernel':24} {'tileir-as (s)':>14} {'tileiras (s)':>13} {'ratio':>8}")
        for name, a, b, ratio in rows:
            print(f"{name:24} {cell(a):>14} {cell(b):>13} {ratio:>8}")
        if geo is not None:
            print(f"{f'geometric mean ({len(pairs)})':24} {'':>14} {'':>13} {geo:>7.1f}x")
    # A kernel tileir-as cannot compile yet shows as "error" (its diagnostic is on
    # stderr); the tests, not the benchmark, judge correctness.
    return 0


if __name__ == "__main__":
    sys.exit(main())
