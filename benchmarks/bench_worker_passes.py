#!/usr/bin/env python3
"""Where a warm worker's compilation goes, pass by pass, in two tileir trees.

    python benchmarks/bench_worker_passes.py BEFORE AFTER --kernels /tmp/cutile_samples/bc \\
        --every 8 [--start 0] [--repeat 3] [--gpu-name sm_90a]

Each tree (a directory holding a `tileir` package: `git archive REV | tar -x`) compiles
each kernel to PTX as the compile server's spare worker does: a process warmed up as the
server warms up (`Server.warm_up`) forks one child per kernel, the child prepares as the
spare does (`prepare_spare`) and runs `tileir-as K -o K.ptx`.  The child notes
`time.process_time` around each pass, the tileaa and tileas stage-end verifications,
the PTX printer ("emit-ptx"), the llvm stage's verification (run after the PTX is
printed, as a compilation to a cubin runs it beside ptxas) and the whole run
("total"); the rest of the total ("reading and driver") is the bytecode reader (with
the input's verification) and the driver.  The trees take
turns, `--repeat` rounds; the best of the rounds per kernel and item.  CPU time, so the
machine's load inflates it less than wall time.

Printed: the per-kernel ratio of the totals (AFTER / BEFORE: median, quartiles, range),
then one row per pass: CPU summed over the kernels in each tree, their ratio, and the
pass's median share of a kernel's total in BEFORE.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_trees import compile_bytecode

#: The items of a kernel's record that are not passes.
NOT_PASSES = ("total", "status")


def worker(gpu: str, out: str, kernels: list[str]) -> None:
    """Run inside a tree (PYTHONPATH): per kernel, a forked warm worker's CPU per pass;
    the records as JSON in `out`."""
    from tileir.driver import server

    server.Server.warm_up(server.Server.__new__(server.Server))
    records: dict[str, dict[str, float]] = {}
    for kernel in kernels:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.write(write, json.dumps(_timed_run(kernel, gpu, out)).encode())
            os._exit(0)
        os.close(write)
        data = b""
        while chunk := os.read(read, 1 << 16):
            data += chunk
        os.close(read)
        os.waitpid(pid, 0)
        records[Path(kernel).stem] = json.loads(data)
    Path(out).write_text(json.dumps(records))


def _timed_run(kernel: str, gpu: str, out: str) -> dict[str, float]:
    """In the forked child: the compilation, with each item's CPU noted."""
    import gc

    from xdsl.passes import ModulePass

    from tileir import compiler
    from tileir.driver import assembler, server
    from tileir.utils import cold_start

    times: dict[str, float] = {}

    def timed(
        name_of: Callable[[tuple[object, ...]], str], original: Callable[..., object]
    ) -> Callable[..., object]:
        def run(*args: object, **kwargs: object) -> object:
            start = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                name = name_of(args)
                times[name] = times.get(name, 0.0) + time.process_time() - start

        return run

    compiler._apply = timed(lambda a: cast(ModulePass, a[1]).name, compiler._apply)
    compiler.module_to_ptx = timed(lambda a: "emit-ptx", compiler.module_to_ptx)
    verify = compiler.verify_module
    compiler.verify_module = timed(lambda a: "verify (tileaa, tileas)", verify)
    compile_module = compiler.compile_module

    def deferred(*args: object, **kwargs: object) -> object:
        # As a compilation to a cubin: the llvm stage verified after the PTX is printed
        # (beside ptxas), noted apart.
        kwargs["defer_final_verification"] = True
        result = compile_module(*args, **kwargs)  # pyright: ignore[reportArgumentType]
        start = time.process_time()
        verify(result.module)
        times["verify (llvm, beside ptxas)"] = time.process_time() - start
        result.verification_pending = False
        return result

    compiler.compile_module = deferred  # pyright: ignore[reportAttributeAccessIssue]
    server.prepare_spare()
    # cold_start has the threshold since 1a30a0e; older trees, assembler.
    gc.set_threshold(
        getattr(cold_start, "COMPILE_GC_THRESHOLD", 0) or assembler.COMPILE_GC_THRESHOLD  # pyright: ignore[reportAttributeAccessIssue]
    )
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    start = time.process_time()
    status = assembler.run([kernel, "--gpu-name", gpu, "-o", f"{out}.{os.getpid()}.ptx"])
    times["total"] = time.process_time() - start
    times["status"] = status
    return times


def _best(runs: list[dict[str, dict[str, float]]]) -> dict[str, dict[str, float]]:
    best: dict[str, dict[str, float]] = {}
    for run in runs:
        for kernel, record in run.items():
            kept = best.setdefault(kernel, dict(record))
            for item, seconds in record.items():
                if item != "status":
                    kept[item] = min(kept.get(item, seconds), seconds)
    return best


def _rest(record: dict[str, float]) -> float:
    return record["total"] - sum(s for i, s in record.items() if i not in NOT_PASSES)


def report(before: dict[str, dict[str, float]], after: dict[str, dict[str, float]]) -> None:
    kernels = [k for k in before if k in after and before[k]["status"] == after[k]["status"] == 0]
    for records in (before, after):
        for k in kernels:
            records[k]["reading and driver"] = _rest(records[k])
    ratios = sorted(after[k]["total"] / before[k]["total"] for k in kernels)
    q = statistics.quantiles(ratios, n=4)
    print(
        f"{len(kernels)} kernels; after / before, same kernel: median "
        f"{statistics.median(ratios):.3f} (quartiles {q[0]:.3f}-{q[2]:.3f}; range "
        f"{ratios[0]:.3f}-{ratios[-1]:.3f}); median kernel "
        f"{1000 * statistics.median(before[k]['total'] for k in kernels):.1f} -> "
        f"{1000 * statistics.median(after[k]['total'] for k in kernels):.1f} ms"
    )
    items = {i for k in kernels for i in before[k] if i != "status"}
    print("| item | before: ms | after: ms | after / before | median share before |")
    print("|---|---:|---:|---:|---:|")
    for item in sorted(items, key=lambda i: -sum(before[k].get(i, 0) for k in kernels)):
        a = sum(before[k].get(item, 0) for k in kernels)
        b = sum(after[k].get(item, 0) for k in kernels)
        share = statistics.median(before[k].get(item, 0) / before[k]["total"] for k in kernels)
        ratio = f"{b / a:.3f}" if a else ""
        print(f"| {item} | {1000 * a:.0f} | {1000 * b:.0f} | {ratio} | {100 * share:.1f}% |")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs=2, help="BEFORE and AFTER: directories holding tileir")
    parser.add_argument("--kernels", required=True, help="a directory of .tileirbc files")
    parser.add_argument("--every", type=int, default=8, help="every Nth kernel (a sample)")
    parser.add_argument("--start", type=int, default=0, help="the first kernel of the sample")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--gpu-name", default="sm_90a")
    args = parser.parse_args()
    kernels = [str(k) for k in sorted(Path(args.kernels).glob("*.tileirbc"))][
        args.start :: args.every
    ]
    for tree in args.trees:
        compile_bytecode(tree)
    runs: list[list[dict[str, dict[str, float]]]] = [[], []]
    with tempfile.TemporaryDirectory(prefix="bench-passes-") as tmp:
        for r in range(args.repeat):
            for i, tree in enumerate(args.trees):
                out = os.path.join(tmp, f"{r}.{i}.json")
                env = dict(os.environ, PYTHONPATH=tree, TILEIR_SERVER="0", TILEIR_NO_CACHE="1")
                command = [sys.executable, __file__, "--worker", args.gpu_name, out, *kernels]
                subprocess.run(command, env=env, check=True, cwd=tmp, capture_output=True)
                runs[i].append(json.loads(Path(out).read_text()))
    print(f"{args.gpu_name}, best of {args.repeat}, load {os.getloadavg()[0]:.1f} at the end")
    report(_best(runs[0]), _best(runs[1]))


if __name__ == "__main__":
    main()
