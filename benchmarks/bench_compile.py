#!/usr/bin/env python3
"""Compile time per corpus kernel, whole process, as a user pays it: `tileir-as`
against NVIDIA's `tileiras` on the same bytecode, to a cubin (`make bench`).

Every corpus kernel (`tests/corpus/*.tileirbc`) is compiled by four commands, each a
fresh process, `TOOL KERNEL.tileirbc -o OUT.cubin --gpu-name G`, interleaved (one run
of each in turn, `--repeat` rounds) so that the machine's load falls on all alike:

    tileiras   NVIDIA's assembler
    cold       tileir-as with neither server nor cache (TILEIR_SERVER=0 TILEIR_NO_CACHE=1):
               Python's start-up, the imports and the compilation
    warm       tileir-as with the compile server running (TILEIR_NO_CACHE=1): the client's
               start-up and a compilation in a worker forked from the warm server
    cached     tileir-as answered by the result cache (TILEIR_SERVER=0, the entry made
               by a run before the timed ones)

Each time is the best of the rounds; a ratio is tileir-as's time over tileiras's (below
1: tileir-as is faster).  The last column says whether cold, warm and cached gave the
same bytes (cubin, stdout, stderr, exit status).  Then the autotuning case: 16
configurations of one GEMM (benchmarks/autotune_gemm.py, exported with cuTile), all
compiled at once by parallel processes, the wall time of the batch for each command.

The server and the cache live in private temporary directories (XDG_RUNTIME_DIR,
TILEIR_CACHE_DIR); the server is stopped at the end.  `--client shim` runs cold, warm
and cached through the tileiras shim (`tileir-as --make-tileiras-shim`, what cuTile
runs), whose Python starts without `site` (docs/cli.md), instead of the `tileir-as`
console script.

    python benchmarks/bench_compile.py [--repeat 3] [--gpu-name sm_90] [--markdown]
        [--only KERNEL ...] [--no-autotune] [--jobs 16] [--client script|shim]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
MODES = ("tileiras", "cold", "warm", "cached")
#: Seconds to wait after a warm run, while the server prepares its spare worker.
SPARE_SETTLE = 0.15


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


def compile_package(env: dict[str, str] | None = None) -> None:
    """Compile tileir's modules to `.pyc` before timing, as `pip install` does: a
    checkout run with PYTHONDONTWRITEBYTECODE=1, or edited since its caches were
    written, would compile its sources again in every process (0.3-0.4 s of a cold run
    here), which no installed tileir does."""
    where = subprocess.run(
        [sys.executable, "-c", "import os, tileir; print(os.path.dirname(tileir.__file__))"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),  # the tileir the tools import, not a checkout in the cwd
    ).stdout.strip()
    if where:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", where], capture_output=True, env=env
        )


def find_tools() -> tuple[str, str | None] | None:
    """tileir-as and tileiras (None when it is not installed); None, said on stderr,
    without tileir-as."""
    ours = find_tool("tileir-as")
    if ours is None:
        print("error: tileir-as not found (make install)", file=sys.stderr)
        return None
    return ours, find_tool("tileiras")


class Bench:
    def __init__(
        self, ours: str, theirs: str | None, gpu: str, work: Path, client: str = "script"
    ) -> None:
        self.ours = ours
        self.theirs = theirs
        #: What cold, warm and cached run: the console script, or the tileiras shim.
        self.client = ours
        self.gpu = gpu
        self.work = work
        runtime = Path(tempfile.mkdtemp(prefix="tbench"))  # short: the socket's path
        runtime.chmod(0o700)
        self.runtime = runtime
        base = dict(os.environ)
        for var in ("TILEIR_SERVER", "TILEIR_NO_CACHE", "TILEIR_CLIENT_DEBUG"):
            base.pop(var, None)
        base["XDG_RUNTIME_DIR"] = str(runtime)
        base["TILEIR_CACHE_DIR"] = str(work / "cache")
        self.env = {
            "tileiras": base,
            "cold": {**base, "TILEIR_SERVER": "0", "TILEIR_NO_CACHE": "1"},
            "warm": {**base, "TILEIR_NO_CACHE": "1"},
            "cached": {**base, "TILEIR_SERVER": "0"},
        }
        if client == "shim":
            shim_dir = work / "shim"
            subprocess.run([ours, "--make-tileiras-shim", str(shim_dir)], check=True, env=base)
            self.client = str(shim_dir / "tileiras")

    def command(self, mode: str, kernel: Path, out: Path) -> list[str]:
        tool = self.theirs if mode == "tileiras" else self.client
        assert tool is not None
        return [tool, str(kernel), "-o", str(out), "--gpu-name", self.gpu]

    def run(self, mode: str, kernel: Path, out: Path) -> tuple[float, tuple]:
        start = time.perf_counter()
        proc = subprocess.run(
            self.command(mode, kernel, out), capture_output=True, env=self.env[mode], timeout=600
        )
        elapsed = time.perf_counter() - start
        produced = out.read_bytes() if out.exists() else None
        return elapsed, (proc.returncode, proc.stdout, proc.stderr, produced)

    def start_server(self) -> None:
        proc = subprocess.run(
            [self.ours, "--server", "start"], capture_output=True, text=True, env=self.env["warm"]
        )
        if proc.returncode != 0:
            raise SystemExit(f"error: the compile server did not start: {proc.stderr}")

    def server_status(self) -> str:
        proc = subprocess.run(
            [self.ours, "--server", "status"], capture_output=True, text=True, env=self.env["warm"]
        )
        return proc.stdout.splitlines()[0] if proc.stdout else proc.stderr.strip()

    def stop_server(self) -> None:
        subprocess.run(
            [self.ours, "--server", "stop"], capture_output=True, env=self.env["warm"], timeout=60
        )
        shutil.rmtree(self.runtime, ignore_errors=True)


def time_kernel(bench: Bench, kernel: Path, repeat: int) -> dict[str, float | str] | None:
    """Best time per mode (or "error"), and whether cold, warm and cached agree."""
    modes = [m for m in MODES if m != "tileiras" or bench.theirs]
    out = bench.work / "out"
    out.mkdir(exist_ok=True)
    # The cache entry the cached runs hit (not timed).
    bench.run("cached", kernel, out / f"{kernel.stem}.prime.cubin")
    times: dict[str, list[float]] = {m: [] for m in modes}
    results: dict[str, tuple] = {}
    for r in range(repeat):
        order = modes[r % len(modes) :] + modes[: r % len(modes)]  # rotate who goes first
        for mode in order:
            target = out / f"{kernel.stem}.{mode}.cubin"
            target.unlink(missing_ok=True)
            elapsed, result = bench.run(mode, kernel, target)
            times[mode].append(elapsed)
            if mode == "warm":
                # The server forks its next worker and prepares it once idle (docs/cli.md,
                # the spare): 35-40 ms of CPU that would otherwise fall on the next command.
                time.sleep(SPARE_SETTLE)
            results.setdefault(mode, result)
            if result[0] != 0:
                lines = result[2].decode(errors="replace").strip().splitlines()
                detail = lines[-1] if lines else f"exit status {result[0]}"
                print(f"{mode} {kernel.name}: {detail}", file=sys.stderr)
    row: dict[str, float | str] = {}
    for mode in modes:
        row[mode] = min(times[mode]) if results[mode][0] == 0 else "error"
    ours = [results[m] for m in ("cold", "warm", "cached")]
    row["same"] = "yes" if all(r == ours[0] for r in ours) else "NO"
    return row


def time_batch(run_one: Callable[[Path], int], kernels: list[Path], jobs: int) -> float | str:
    """Wall time of compiling all `kernels` with `jobs` processes at a time."""
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        statuses = list(pool.map(run_one, kernels))
    elapsed = time.perf_counter() - start
    return elapsed if all(s == 0 for s in statuses) else "error"


def autotune(bench: Bench, jobs: int, repeat: int) -> dict[str, float | str] | str:
    """The 16 GEMM configurations, each batch compiled by `jobs` parallel processes."""
    variants_dir = bench.work / "autotune"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "autotune_gemm.py"), str(variants_dir)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return f"skipped (exporting the variants with cuTile failed: {last})"
    variants = sorted(variants_dir.glob("*.tileirbc"))
    out = bench.work / "autotune-out"
    out.mkdir(exist_ok=True)
    modes = [m for m in MODES if m != "tileiras" or bench.theirs]

    def runner(mode: str) -> Callable[[Path], int]:
        def run_one(kernel: Path) -> int:
            target = out / f"{kernel.stem}.{mode}.cubin"
            proc = subprocess.run(
                bench.command(mode, kernel, target),
                capture_output=True,
                env=bench.env[mode],
                timeout=600,
            )
            return proc.returncode

        return run_one

    time_batch(runner("cached"), variants, jobs)  # the entries the cached batch hits
    best: dict[str, float | str] = {}
    for r in range(repeat):
        order = modes[r % len(modes) :] + modes[: r % len(modes)]
        for mode in order:
            elapsed = time_batch(runner(mode), variants, jobs)
            previous = best.get(mode)
            if elapsed == "error" or previous == "error":
                best[mode] = "error"
            elif previous is None or elapsed < previous:  # type: ignore[operator]
                best[mode] = elapsed
    best["variants"] = float(len(variants))
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


def cell(value: float | str | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def ratio(a: float | str | None, b: float | str | None) -> float | None:
    if isinstance(a, float) and isinstance(b, float) and b > 0:
        return a / b
    return None


def fmt_ratio(r: float | None) -> str:
    return "-" if r is None else f"{r:.2f}x"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds per kernel")
    parser.add_argument("--gpu-name", default="sm_90", help="target of both tools")
    parser.add_argument("--only", action="append", help="kernel name (repeatable)")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    parser.add_argument("--no-autotune", action="store_true", help="skip the autotuning case")
    parser.add_argument("--jobs", type=int, default=16, help="parallel processes, autotuning")
    parser.add_argument(
        "--kernels", metavar="DIR", help="compile DIR/*.tileirbc instead of the corpus"
    )
    parser.add_argument("--every", type=int, default=1, help="every Nth kernel (a sample)")
    parser.add_argument(
        "--client",
        choices=("script", "shim"),
        default="script",
        help="run tileir-as as the console script or through the tileiras shim (-S)",
    )
    args = parser.parse_args(argv)

    found = find_tools()
    if found is None:
        return 1
    ours, theirs = found
    kernels = sorted((Path(args.kernels) if args.kernels else CORPUS).glob("*.tileirbc"))
    kernels = kernels[:: max(1, args.every)]
    if args.only:
        kernels = [k for k in kernels if k.stem in args.only]

    compile_package()
    with tempfile.TemporaryDirectory(prefix="bench-compile-") as tmp:
        bench = Bench(ours, theirs, args.gpu_name, Path(tmp), args.client)
        try:
            bench.start_server()
            rows: list[tuple[str, dict[str, float | str]]] = []
            for kernel in kernels:
                row = time_kernel(bench, kernel, args.repeat)
                assert row is not None
                rows.append((kernel.stem, row))
                print(
                    f"{kernel.stem}: "
                    + ", ".join(f"{m} {cell(row.get(m))}" for m in MODES)
                    + f", same {row['same']}",
                    file=sys.stderr,
                    flush=True,
                )
            tuned = None if args.no_autotune else autotune(bench, args.jobs, args.repeat)
            status = bench.server_status()
        finally:
            bench.stop_server()

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"compile time to a cubin, whole process, best of {args.repeat} interleaved rounds, "
        f"--gpu-name {args.gpu_name}, tileir-as as the {args.client}; {stamp}; {machine()}; "
        f"load average at the end {load}; "
        f"server after the runs: {status}"
    )
    print()
    header = ["kernel", "tileiras (s)", "cold (s)", "cold/tileiras", "warm (s)", "warm/tileiras"]
    header += ["cached (s)", "cached/tileiras", "same bytes"]
    lines = []
    ratios: dict[str, list[float]] = {"cold": [], "warm": [], "cached": []}
    for name, row in rows:
        cells = [f"`{name}`" if args.markdown else name, cell(row.get("tileiras"))]
        for mode in ("cold", "warm", "cached"):
            r = ratio(row.get(mode), row.get("tileiras"))
            if r is not None:
                ratios[mode].append(r)
            cells += [cell(row.get(mode)), fmt_ratio(r)]
        cells.append(str(row["same"]))
        lines.append(cells)
    summary = [f"median ({len(ratios['cold'])} kernels)", ""]
    for mode in ("cold", "warm", "cached"):
        med = statistics.median(ratios[mode]) if ratios[mode] else None
        summary += ["", fmt_ratio(med)]
    summary.append(f"{sum(r['same'] == 'yes' for _, r in rows)}/{len(rows)}")
    worst = ["max", ""]
    for mode in ("cold", "warm", "cached"):
        worst += ["", fmt_ratio(max(ratios[mode]) if ratios[mode] else None)]
    worst.append("")
    lines += [summary, worst]
    _table(header, lines, args.markdown)

    if isinstance(tuned, dict):
        print()
        n = int(tuned.pop("variants"))  # type: ignore[arg-type]
        print(
            f"autotuning: {n} configurations of one f16 GEMM (benchmarks/autotune_gemm.py), "
            f"{args.jobs} processes at a time, wall time of the batch, best of {args.repeat}"
        )
        print()
        t_lines = []
        for mode in MODES:
            if mode not in tuned:
                continue
            t_lines.append(
                [mode, cell(tuned[mode]), fmt_ratio(ratio(tuned[mode], tuned.get("tileiras")))]
            )
        _table(["command", "wall time (s)", "/ tileiras"], t_lines, args.markdown)
    elif tuned is not None:
        print()
        print(f"autotuning: {tuned}")
    # A kernel tileir-as cannot compile shows as "error" (its diagnostic is on stderr);
    # the tests, not the benchmark, judge correctness.
    return 0


def _table(header: list[str], lines: list[list[str]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
        for cells in lines:
            print("| " + " | ".join(cells) + " |")
        return
    widths = [max(len(h), *(len(c[i]) for c in lines)) for i, h in enumerate(header)]
    print(
        "  ".join(
            h.ljust(w) if i == 0 else h.rjust(w)
            for i, (h, w) in enumerate(zip(header, widths, strict=False))
        )
    )
    for cells in lines:
        print(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=False))
            )
        )


if __name__ == "__main__":
    sys.exit(main())
