#!/usr/bin/env python3
"""Two tileir source trees against each other and against NVIDIA's `tileiras`: what a
compile-time change did, measured as docs/performance.md's issue 17 sections measure it.

    git archive BASE tileir | tar -x -C /tmp/before     # each tree: a `tileir` package
    git archive HEAD tileir | tar -x -C /tmp/after
    python benchmarks/bench_trees.py /tmp/before /tmp/after \\
        --kernels /tmp/cutile_samples/bc --every 6 [--also NAME ...] [--repeat 3]

Two measurements, each interleaving the trees (and tileiras) so that the machine's load
falls on all alike:

* **worker CPU**: the compilation to PTX in a process forked from a warmed server, as
  the server's spare worker runs it (`prepare_spare`, then `tileir-as K -o K.ptx`),
  `time.process_time` up to the PTX, that is without the llvm stage's verification,
  which a compilation to a cubin runs beside ptxas.  Best of `--repeat`.
* **whole process**: bytecode to a cubin through each tree's tileiras shim
  (`tileir-as --make-tileiras-shim`, what cuTile runs) with a warm compile server per
  tree (a private `XDG_RUNTIME_DIR`, `TILEIR_NO_CACHE=1`), and tileiras, one run of each
  in rotating order, 0.15 s after each while the server prepares its spare; best of
  `--repeat`.  The two trees' cubins are compared kernel by kernel.

Ratios are over tileiras's time (whole process) or over the first tree's (both).

`--cold` measures instead whole processes with the server and the result cache off
(`cold_processes`): CPU (user + system, ptxas included) and wall per run, medians of
`--repeat` interleaved rounds, each tree's start-up table written first.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from math import nan
from pathlib import Path

#: Seconds to wait after a warm run, while the server prepares its spare worker.
SPARE_SETTLE = 0.15


def find_tool(name: str) -> str:
    """`name` from the nvidia wheels' bin directory, or from PATH."""
    import sysconfig

    wheel = Path(sysconfig.get_paths()["purelib"]) / "nvidia" / "cu13" / "bin" / name
    if wheel.is_file():
        return str(wheel)
    found = shutil.which(name)
    if found is None:
        sys.exit(f"bench_trees: {name} not found")
    return found


def worker_cpu(kernels: list[str], gpu: str, out: str) -> dict[str, float]:
    """Run inside a tree (PYTHONPATH): warm up as the server does, then compile each
    kernel in a forked, prepared worker; CPU seconds up to the PTX, per kernel."""
    from tileir import compiler
    from tileir.driver import assembler, server
    from tileir.utils import cold_start

    server.Server.warm_up(server.Server.__new__(server.Server))
    original = compiler.compile_module

    def up_to_the_ptx(*args: object, **kwargs: object) -> object:
        kwargs["defer_final_verification"] = True  # left to ptxas's time, as in a run
        return original(*args, **kwargs)  # type: ignore[arg-type]

    times: dict[str, float] = {}
    for kernel in kernels:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            server.prepare_spare()
            # cold_start has the threshold since 1a30a0e; older trees, assembler.
            gc.set_threshold(
                getattr(cold_start, "COMPILE_GC_THRESHOLD", 0) or assembler.COMPILE_GC_THRESHOLD  # pyright: ignore[reportAttributeAccessIssue]
            )
            compiler.compile_module = up_to_the_ptx  # type: ignore[assignment]
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            start = time.process_time()
            status = assembler.run([kernel, "--gpu-name", gpu, "-o", os.path.join(out, "k.ptx")])
            os.write(write, f"{time.process_time() - start} {status}".encode())
            os._exit(0)
        os.close(write)
        answer = os.read(read, 100).decode().split()
        os.close(read)
        os.waitpid(pid, 0)
        if answer[1] == "0":
            times[Path(kernel).stem] = float(answer[0])
    return times


def cpu_rounds(trees: list[str], kernels: list[str], gpu: str, repeat: int) -> list[dict]:
    """Best `worker_cpu` of `repeat` rounds per tree, the trees taking turns."""
    best: list[dict[str, float]] = [{} for _ in trees]
    with tempfile.TemporaryDirectory(prefix="bench-trees-") as tmp:
        for _ in range(repeat):
            for i, tree in enumerate(trees):
                env = dict(os.environ, PYTHONPATH=tree, TILEIR_SERVER="0", TILEIR_NO_CACHE="1")
                proc = subprocess.run(
                    [sys.executable, __file__, "--worker-cpu", gpu, tmp, *kernels],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=tmp,
                )
                for name, seconds in json.loads(proc.stdout.splitlines()[-1]).items():
                    best[i][name] = min(seconds, best[i].get(name, seconds))
    return best


def compile_bytecode(tree: str) -> None:
    """Write `tree`'s `__pycache__`, as an installation has it: a process started with
    `PYTHONDONTWRITEBYTECODE` (or in a read-only tree) otherwise compiles every module
    it imports from source, each run (10 ms of a warm request's client, whose imports
    are 1.5 ms from bytecode)."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", os.path.join(tree, "tileir")],
        check=True,
        capture_output=True,
    )


def make_shim(tree: str, shim_dir: str) -> str:
    """`tree`'s tileiras shim, made in `shim_dir`; its path.  The tree's bytecode is
    written first (`compile_bytecode`).  Run in `tree`: `-m` puts the working directory
    first on the path, so run from a checkout, the checkout's tileir, not `tree`'s, would
    write the shim, and the shim would import the checkout (both trees the same)."""
    compile_bytecode(tree)
    env = dict(os.environ, PYTHONPATH=tree, TILEIR_SERVER="0")
    subprocess.run(
        [sys.executable, "-m", "tileir.driver.assembler", "--make-tileiras-shim", shim_dir],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
    )
    return os.path.join(shim_dir, "tileiras")


def tree_commands(
    tileiras: str, trees: list[str], tmp: str, env_of: Callable[[int], dict[str, str]]
) -> dict[str, tuple[list[str], dict[str, str]]]:
    """The commands timed: tileiras, and each tree's tileiras shim (made under `tmp`)
    with the tree on PYTHONPATH, tileiras's folder (ptxas) on PATH and `env_of(i)`."""
    path = f"{Path(tileiras).parent}:{os.environ.get('PATH', '')}"
    commands: dict[str, tuple[list[str], dict[str, str]]] = {"tileiras": ([tileiras], {})}
    for i, tree in enumerate(trees):
        shim = make_shim(tree, os.path.join(tmp, f"shim{i}"))
        commands[f"tree{i}"] = ([shim], {"PYTHONPATH": tree, "PATH": path, **env_of(i)})
    return commands


def timed_process(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, user + system, and wall seconds) of one run of `argv`; NaN for both
    where it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        return float("nan"), float("nan")
    return usage.ru_utime + usage.ru_stime, seconds


def whole_processes(
    trees: list[str], kernels: list[str], gpu: str, repeat: int
) -> tuple[dict[str, dict[str, float]], list[float], list[str]]:
    """Best wall seconds per command and kernel, the load averages seen, and the kernels
    whose cubins differed between the trees."""
    tileiras = find_tool("tileiras")
    with tempfile.TemporaryDirectory(prefix="bench-trees-") as tmp:

        def server_env(i: int) -> dict[str, str]:
            runtime = os.path.join(tmp, f"run{i}")
            os.mkdir(runtime, 0o700)
            return {"XDG_RUNTIME_DIR": runtime, "TILEIR_NO_CACHE": "1"}

        commands = tree_commands(tileiras, trees, tmp, server_env)
        base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TILEIR_SERVER")}

        def run(name: str, kernel: str) -> float:
            argv, extra = commands[name]
            out = os.path.join(tmp, f"{name}.cubin")
            return timed_process(
                [*argv, kernel, "-o", out, "--gpu-name", gpu], {**base_env, **extra}
            )[1]

        for i in range(len(trees)):
            run(f"tree{i}", kernels[0])  # starts the tree's server
        time.sleep(2)
        best: dict[str, dict[str, float]] = {name: {} for name in commands}
        loads: list[float] = []
        differ: list[str] = []
        names = list(commands)
        try:
            for r in range(repeat):
                for k, kernel in enumerate(kernels):
                    shift = (k + r) % len(names)
                    for name in names[shift:] + names[:shift]:
                        seconds = run(name, kernel)
                        was = best[name].get(Path(kernel).stem, seconds)
                        best[name][Path(kernel).stem] = min(was, seconds)
                        time.sleep(SPARE_SETTLE)
                    cubins = [Path(tmp, f"tree{i}.cubin").read_bytes() for i in range(len(trees))]
                    if any(c != cubins[0] for c in cubins) and Path(kernel).stem not in differ:
                        differ.append(Path(kernel).stem)
                    loads.append(os.getloadavg()[0])
        finally:
            for i in range(len(trees)):
                argv, extra = commands[f"tree{i}"]
                subprocess.run(
                    [*argv, "--server", "stop"],
                    env={**base_env, **extra},
                    capture_output=True,
                    check=False,
                )
    return best, loads, differ


def cold_processes(
    trees: list[str], kernels: list[str], gpu: str, repeat: int
) -> tuple[dict[str, dict[str, list[tuple[float, float]]]], list[float], list[str]]:
    """`--cold`: bytecode to a cubin through each tree's tileiras shim with the server
    and the result cache off (`TILEIR_SERVER=0 TILEIR_NO_CACHE=1`), a whole process per
    compilation, and tileiras, one run of each in rotating order.  Per command and
    kernel, every run's (CPU, wall) seconds: the CPU is user + system time of the
    process and of what it waited for (ptxas), from `os.wait4`.  Each tree has a
    private cache directory, where its start-up table (tileir/utils/cold_start.py)
    is written by an untimed run of each kernel first, as a user's is after a first
    compilation.  Also the load averages seen and the kernels whose cubins differed."""
    tileiras = find_tool("tileiras")
    with tempfile.TemporaryDirectory(prefix="bench-trees-") as tmp:
        commands = tree_commands(
            tileiras,
            trees,
            tmp,
            lambda i: {
                "TILEIR_SERVER": "0",
                "TILEIR_NO_CACHE": "1",
                "TILEIR_CACHE_DIR": os.path.join(tmp, f"cache{i}"),
            },
        )
        base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TILEIR_SERVER")}

        def run(name: str, kernel: str) -> tuple[float, float]:
            argv, extra = commands[name]
            out = os.path.join(tmp, f"{name}.cubin")
            return timed_process(
                [*argv, kernel, "-o", out, "--gpu-name", gpu], {**base_env, **extra}
            )

        for kernel in kernels:
            for i in range(len(trees)):
                run(f"tree{i}", kernel)  # writes the tree's start-up table
        runs: dict[str, dict[str, list[tuple[float, float]]]] = {name: {} for name in commands}
        loads: list[float] = []
        differ: list[str] = []
        names = list(commands)
        for r in range(repeat):
            for k, kernel in enumerate(kernels):
                shift = (k + r) % len(names)
                for name in names[shift:] + names[:shift]:
                    runs[name].setdefault(Path(kernel).stem, []).append(run(name, kernel))
                cubins = [Path(tmp, f"tree{i}.cubin").read_bytes() for i in range(len(trees))]
                if any(c != cubins[0] for c in cubins) and Path(kernel).stem not in differ:
                    differ.append(Path(kernel).stem)
                loads.append(os.getloadavg()[0])
    return runs, loads, differ


def report_cold(trees: list[str], kernels: list[str], gpu: str, repeat: int) -> None:
    runs, loads, differ = cold_processes(trees, kernels, gpu, repeat)
    print(
        f"whole process, cold (server and result cache off), medians of {repeat}, "
        f"load {min(loads):.1f}-{max(loads):.1f}:"
    )

    def medians(name: str, which: int) -> dict[str, float]:
        return {k: statistics.median(v[which] for v in vs) for k, vs in runs[name].items()}

    for which, what in ((0, "CPU (user+sys)"), (1, "wall")):
        ref = medians("tileiras", which)
        print(f"  {what}: tileiras median {statistics.median(ref.values()):.3f} s")
        per_tree = [medians(f"tree{i}", which) for i in range(len(trees))]
        for i, tree in enumerate(per_tree):
            ratios = [tree[n] / ref[n] for n in ref]
            print(
                f"    tree {i}: median {statistics.median(tree.values()):.3f} s, "
                f"{statistics.median(ratios):.2f}x tileiras (max {max(ratios):.2f}x, "
                f"{sum(r > 1.5 for r in ratios)}/{len(ratios)} above 1.5x)"
            )
        pairs = [per_tree[1][n] / per_tree[0][n] for n in ref]
        print(
            f"    tree 1 / tree 0, same kernel: median {statistics.median(pairs):.3f} "
            f"({min(pairs):.3f}-{max(pairs):.3f})"
        )
    print(f"  cubins that differ between the trees: {', '.join(differ) or 'none'}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--worker-cpu":
        gpu, out, *kernels = sys.argv[2:]
        print(json.dumps(worker_cpu(kernels, gpu, out)))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs=2, help="two directories, each holding a tileir package")
    parser.add_argument("--kernels", required=True, help="a directory of .tileirbc files")
    parser.add_argument("--every", type=int, default=1, help="every Nth kernel (a sample)")
    parser.add_argument(
        "--first", type=int, default=1, help="the sample starts at the Nth kernel (1: the first)"
    )
    parser.add_argument("--also", action="append", default=[], help="a kernel to add, by name")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--gpu-name", default="sm_90")
    parser.add_argument(
        "--cold", action="store_true", help="only whole cold processes (server and cache off)"
    )
    args = parser.parse_args()
    trees = [str(Path(t).resolve()) for t in args.trees]
    every = sorted(Path(args.kernels).glob("*.tileirbc"))[args.first - 1 :: args.every]
    extra = [Path(args.kernels) / f"{name}.tileirbc" for name in args.also]
    kernels = [str(k) for k in dict.fromkeys([*every, *extra])]
    if args.cold:
        report_cold(trees, kernels, args.gpu_name, args.repeat)
        return

    cpu = cpu_rounds(trees, kernels, args.gpu_name, args.repeat)
    names = [n for n in cpu[0] if n in cpu[1]]
    per_kernel = [cpu[1][n] / cpu[0][n] for n in names]
    print(f"worker CPU up to the PTX, {len(names)} kernels, best of {args.repeat}:")
    for i, tree in enumerate(trees):
        median = statistics.median(cpu[i][n] for n in names)
        print(
            f"  tree {i} ({tree}): median {1000 * median:.1f} ms, total {sum(cpu[i].values()):.3f} s"
        )
    print(
        f"  tree 1 / tree 0, same kernel: median {statistics.median(per_kernel):.3f} "
        f"({min(per_kernel):.3f}-{max(per_kernel):.3f})"
    )

    best, loads, differ = whole_processes(trees, kernels, args.gpu_name, args.repeat)
    # Kernels that tileiras (or a tree) rejects (NaN) are left out of the ratios.
    ref = {
        n: t
        for n, t in best["tileiras"].items()
        if all(
            t == t and best[f"tree{i}"].get(n, nan) == best[f"tree{i}"].get(n, nan)
            for i in range(len(trees))
        )
    }
    left_out = sorted(set(best["tileiras"]) - set(ref))
    print(
        f"whole process, warm through the shim, best of {args.repeat}, load {min(loads):.1f}-{max(loads):.1f}:"
    )
    print(f"  tileiras: median {statistics.median(ref.values()):.3f} s")
    for i in range(len(trees)):
        ratios = {n: best[f"tree{i}"][n] / ref[n] for n in ref}
        above = sorted((r, n) for n, r in ratios.items() if r > 1.5)
        values = sorted(ratios.values())
        quartiles = statistics.quantiles(values, n=4)
        print(
            f"  tree {i}: median {statistics.median(values):.2f}x "
            f"(quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f}x), max {values[-1]:.2f}x, "
            f"{len(above)}/{len(values)} above 1.5x"
            + "".join(f"\n    {n} {r:.2f}x" for r, n in reversed(above))
        )
    if left_out:
        print(f"  left out (a command failed): {', '.join(left_out)}")
    pairs = [best["tree1"][n] / best["tree0"][n] for n in ref]
    print(f"  tree 1 / tree 0, same kernel: median {statistics.median(pairs):.3f}")
    print(f"  cubins that differ between the trees: {', '.join(differ) or 'none'}")


if __name__ == "__main__":
    main()
