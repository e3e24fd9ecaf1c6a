#!/usr/bin/env python3
"""Where a warm `tileir-as` request's wall time goes, phase by phase, beside `tileiras`.

    python benchmarks/bench_warm_request.py TREE --kernels /tmp/cutile_samples/bc \\
        --every 8 [--repeat 3] [--gpu-name sm_90]

TREE is a directory holding a `tileir` package (a snapshot: `git archive HEAD | tar -x`).
A compile server of TREE runs with hooks that note `time.monotonic()` (one clock for
every process of the machine) at each step of a request, and each kernel is compiled
to a cubin through TREE's tileiras shim by a client started with the same notes, in
turn with `tileiras` on the same bytecode (the load falls on both alike).  The hooks
wrap functions (no code of TREE changes); the client runs as the shim runs it
(`python -S -P`, the shim's `--paths`), from `-c` instead of `launch.py`.

Phases of one request (the median over the kernels of each kernel's best run, and the
share of the whole):

    python start     exec to the client's first statement (interpreter, no `site`)
    client imports   `tileir.driver.client` and what it imports
    to the worker    the client's own work, connect, hand-over: to the worker's start
    worker setup     the worker's start to the compiler's reading the input
    compile to PTX   reading the bytecode, the passes, printing the PTX
    start ptxas      writing the PTX to a file and starting ptxas (or, ptxas started
                     early, handing it the PTX)
    verify (beside)  the llvm stage's verification while ptxas runs
    wait for ptxas   the rest of ptxas's run
    outputs          writing the cubin (and remarks) and recording them
    answer           the worker's reply up to the client's having it
    client exit      writing stdout/stderr, exit, to the parent's wait returning

`--ptxas` also times ptxas alone on each kernel's PTX (`-O3 -v`, as tileir-as runs it,
and without `-v`), and ptxas on an empty module (its start-up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_trees import find_tool, make_shim

#: The client, as the shim starts it (`python -S -P`), with notes.  `sys.argv[1]` is
#: the shim's `--paths`, `sys.argv[2]` the notes' file, the rest tileir-as's arguments.
CLIENT = """\
import time
_t0 = time.monotonic()
import os, sys
os.environ.setdefault("TILEIR_ERROR_FORMAT", "mlir")
sys.path[:0] = [p for p in sys.argv[1].split(os.pathsep) if p]
_notes = sys.argv[2]
sys.argv[1:] = sys.argv[3:]
from tileir.driver import client
_stamps = [("start", _t0), ("imported", time.monotonic())]
_connect, _recv_frame, _emit, _exit = client.connect, client.recv_frame, client.emit, client.exit_at_once
def connect(*a, **k):
    _stamps.append(("connect", time.monotonic()))
    return _connect(*a, **k)
def recv_frame(*a, **k):
    frame = _recv_frame(*a, **k)
    _stamps.append(("frame", time.monotonic()))
    return frame
def emit(*a, **k):
    _stamps.append(("emit", time.monotonic()))
    return _emit(*a, **k)
def exit_at_once(status):
    _stamps.append(("exit", time.monotonic()))
    with open(_notes, "w") as f:
        f.write("".join(f"{n} {t!r}\\n" for n, t in _stamps))
    _exit(status)
client.connect, client.recv_frame, client.emit, client.exit_at_once = connect, recv_frame, emit, exit_at_once
client.main()
"""


def hooked_server(directory: str, notes: str) -> int:
    """The compile server of the tree on PYTHONPATH, with notes at each step of a
    request, written by each worker to `notes/w<pid>` when it has answered."""
    from tileir.driver import client, server

    stamps: list[tuple[str, float]] = []

    def mark(name: str) -> None:
        stamps.append((name, time.monotonic()))

    def wrap(owner: object, name: str, before: str | None, after: str | None) -> None:
        original = getattr(owner, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            if before:
                mark(before)
            try:
                return original(*args, **kwargs)
            finally:
                if after:
                    mark(after)

        setattr(owner, name, wrapper)

    warm_up = server.Server.warm_up

    def warm_up_then_hook(self: server.Server) -> None:
        warm_up(self)
        from tileir import compiler
        from tileir.backend.ptx import ptxas
        from tileir.driver import assembler

        wrap(compiler, "load_module", "read", None)
        wrap(compiler, "compile_module", None, "ptx")
        wrap(ptxas, "start_ptxas", "start ptxas", "ptxas started")
        if hasattr(ptxas.PtxasRun, "feed"):  # ptxas started early, fed its PTX here
            wrap(ptxas.PtxasRun, "feed", "start ptxas", "ptxas started")
        wrap(ptxas.PtxasRun, "result", "wait ptxas", "ptxas done")
        wrap(assembler, "write_output", "write", None)
        wrap(client, "run_captured", "run", "ran")

    server.Server.warm_up = warm_up_then_hook  # type: ignore[method-assign]
    prepare = server.prepare_spare

    def prepare_then_mark() -> None:
        stamps.clear()
        prepare()
        mark("spare ready")

    server.prepare_spare = prepare_then_mark
    worker = server.worker

    def noted_worker(conn: object, request: dict) -> int:
        if not any(name == "spare ready" for name, _ in stamps):
            stamps.clear()
            mark("forked")
        mark("worker")
        status = worker(conn, request)  # type: ignore[arg-type]
        mark("sent")
        path = os.path.join(notes, f"w{os.getpid()}")
        with open(path + ".tmp", "w") as f:  # whole, or not there: the client may be done
            f.write("".join(f"{n} {t!r}\n" for n, t in stamps))
        os.rename(path + ".tmp", path)
        return status

    server.worker = noted_worker  # type: ignore[assignment]
    return server.main(["--dir", directory])


def read_notes(path: str) -> dict[str, float]:
    """name -> time; a name noted twice keeps its first time (`frame`: the three
    frames of the answer are `frame`, `frame1`, `frame2`)."""
    out: dict[str, float] = {}
    for line in Path(path).read_text().splitlines():
        name, value = line.rsplit(" ", 1)
        n = 0
        key = name
        while key in out:
            n += 1
            key = f"{name}{n}"
        out[key] = float(value)
    return out


PHASES = (
    "python start",
    "client imports",
    "to the worker",
    "worker setup",
    "compile to PTX",
    "start ptxas",
    "verify (beside)",
    "wait for ptxas",
    "outputs",
    "answer",
    "client exit",
)


def phases(launched: float, ended: float, c: dict[str, float], w: dict[str, float]) -> dict:
    """The request's phases in seconds, from the parent's, client's and worker's notes."""
    steps = [
        launched,
        c["start"],
        c["imported"],
        w["worker"],
        w["read"],
        w["ptx"],
        w["ptxas started"],
        w["wait ptxas"],
        w["ptxas done"],
        w["sent"],
        c["frame2"],
        ended,
    ]
    out = {name: b - a for name, a, b in zip(PHASES, steps[:-1], steps[1:], strict=True)}
    out["total"] = ended - launched
    out["spare"] = 1.0 if "spare ready" in w else 0.0
    return out


class Tree:
    """One tree's tileiras shim and hooked compile server (in a private runtime
    directory), and the notes its requests leave."""

    def __init__(self, tree: str, tmp: str, tileiras: str, index: int) -> None:
        self.tree = tree
        base = os.path.join(tmp, f"tree{index}")
        os.mkdir(base)
        self.shim = make_shim(tree, os.path.join(base, "shim"))
        self.paths = _shim_paths(self.shim)
        self.notes = os.path.join(base, "notes")
        runtime = os.path.join(base, "run")
        os.mkdir(runtime, 0o700)
        os.mkdir(self.notes)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TILEIR_SERVER")}
        env.update(
            PYTHONPATH=tree,
            XDG_RUNTIME_DIR=runtime,
            TILEIR_NO_CACHE="1",
            PATH=f"{Path(tileiras).parent}:{env.get('PATH', '')}",
        )
        self.env = env
        server_dir = os.path.join(runtime, "tileir")
        os.mkdir(server_dir, 0o700)
        self.server = subprocess.Popen(
            [sys.executable, __file__, "--hooked-server", server_dir, self.notes],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def stop(self) -> None:
        subprocess.run([self.shim, "--server", "stop"], env=self.env, capture_output=True)
        self.server.wait(timeout=30)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--hooked-server":
        sys.exit(hooked_server(sys.argv[2], sys.argv[3]))
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("trees", nargs="+", help="one or two directories holding a tileir package")
    parser.add_argument("--kernels", required=True, help="a directory of .tileirbc files")
    parser.add_argument("--every", type=int, default=8, help="every Nth kernel (a sample)")
    parser.add_argument("--start", type=int, default=0, help="the first kernel of the sample")
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds")
    parser.add_argument("--gpu-name", default="sm_90")
    parser.add_argument("--ptxas", action="store_true", help="also time ptxas alone")
    args = parser.parse_args()
    kernels = [str(k) for k in sorted(Path(args.kernels).glob("*.tileirbc"))][
        args.start :: args.every
    ]
    tileiras = find_tool("tileiras")
    with tempfile.TemporaryDirectory(prefix="bench-warm-") as tmp:
        trees = [Tree(str(Path(t).resolve()), tmp, tileiras, i) for i, t in enumerate(args.trees)]
        try:
            for tree in trees:
                _wait_for_server(tree.shim, tree.env)
            runs = ["tileiras", *range(len(trees))]
            best: list[dict[str, dict[str, float]]] = [{} for _ in trees]
            tiras: dict[str, float] = {}
            loads: list[float] = []
            differ: set[str] = set()
            for r in range(args.repeat):
                for k, kernel in enumerate(kernels):
                    name = Path(kernel).stem
                    shift = (k + r) % len(runs)
                    for which in runs[shift:] + runs[:shift]:
                        if which == "tileiras":
                            out = ["-o", f"{tmp}/t.cubin", "--gpu-name", args.gpu_name]
                            seconds = _wall([tileiras, kernel, *out], trees[0].env)
                            tiras[name] = min(seconds, tiras.get(name, seconds))
                            continue
                        assert isinstance(which, int)
                        got = _noted_run(trees[which], kernel, args.gpu_name, tmp, which)
                        was = best[which].get(name)
                        if got is not None and (was is None or got["total"] < was["total"]):
                            best[which][name] = got
                        time.sleep(0.15)  # the server prepares its spare
                    cubins = [Path(tmp, f"o{i}.cubin").read_bytes() for i in range(len(trees))]
                    if any(c != cubins[0] for c in cubins):
                        differ.add(name)
                    loads.append(os.getloadavg()[0])
            ptxas_times = (
                _ptxas_alone(kernels, args.gpu_name, tmp, trees[0].shim, trees[0].env)
                if args.ptxas
                else {}
            )
        finally:
            for tree in trees:
                tree.stop()
    for i, tree in enumerate(trees):
        print(f"== tree {i}: {tree.tree}")
        _report(best[i], tiras, loads, ptxas_times if i == 0 else {}, args)
    if len(trees) == 2:
        names = [n for n in best[0] if n in best[1]]
        pairs = sorted(best[1][n]["total"] / best[0][n]["total"] for n in names)
        q = statistics.quantiles(pairs, n=4)
        print(
            f"tree 1 / tree 0, whole request, same kernel: median {statistics.median(pairs):.3f} "
            f"(quartiles {q[0]:.3f}-{q[2]:.3f}; range {pairs[0]:.3f}-{pairs[-1]:.3f})"
        )
        for phase in PHASES:
            a = statistics.median(best[0][n][phase] for n in names)
            b = statistics.median(best[1][n][phase] for n in names)
            print(f"  {phase:<18} median {1000 * a:7.1f} -> {1000 * b:7.1f} ms")
        print(f"cubins that differ between the trees: {', '.join(sorted(differ)) or 'none'}")


def _shim_paths(shim: str) -> str:
    """The directories the shim puts on `sys.path` (a Python shim's list, or a shell
    shim's `--paths`)."""
    import ast
    import re

    text = Path(shim).read_text()
    listed = re.search(r"for p in (\[.*?\]) if", text)
    if listed is not None:
        return os.pathsep.join(ast.literal_eval(listed.group(1)))
    given = re.search(r"--paths '?([^' ]+)", text)
    if given is None:
        sys.exit(f"bench_warm_request: no paths in {shim}")
    return given.group(1)


def _wait_for_server(shim: str, env: dict[str, str]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        proc = subprocess.run([shim, "--server", "status"], env=env, capture_output=True)
        if proc.returncode == 0:
            time.sleep(1.0)
            return
        time.sleep(0.2)
    sys.exit("bench_warm_request: the server did not start")


def _wall(argv: list[str], env: dict[str, str]) -> float:
    start = time.monotonic()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.monotonic() - start
    return seconds if proc.returncode == 0 else float("nan")


def _noted_run(tree: Tree, kernel: str, gpu: str, tmp: str, index: int) -> dict[str, float] | None:
    for f in os.listdir(tree.notes):
        os.unlink(os.path.join(tree.notes, f))
    client_notes = os.path.join(tmp, "client-notes")
    argv = [sys.executable, "-S", "-P", "-c", CLIENT, tree.paths, client_notes]
    argv += [kernel, "-o", f"{tmp}/o{index}.cubin", "--gpu-name", gpu]
    launched = time.monotonic()
    proc = subprocess.run(argv, env=tree.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ended = time.monotonic()
    if proc.returncode != 0:
        return None
    deadline = time.monotonic() + 5
    while not (workers := [f for f in os.listdir(tree.notes) if not f.endswith(".tmp")]):
        if time.monotonic() > deadline:
            return None
        time.sleep(0.005)
    if len(workers) != 1:
        return None
    return phases(
        launched,
        ended,
        read_notes(client_notes),
        read_notes(os.path.join(tree.notes, workers[0])),
    )


def _ptxas_alone(
    kernels: list[str], gpu: str, tmp: str, shim: str, env: dict[str, str]
) -> dict[str, tuple[float, float]]:
    """ptxas's wall on each kernel's PTX, with `-v` and without (best of 3)."""
    ptxas = find_tool("ptxas")
    arch = gpu if gpu.endswith("a") or gpu in ("sm_80",) else gpu + "a"
    out: dict[str, tuple[float, float]] = {}
    for kernel in kernels:
        ptx = os.path.join(tmp, "k.ptx")
        subprocess.run([shim, kernel, "-o", ptx, "--gpu-name", gpu], env=env, check=True)
        times = []
        for extra in (["-v"], []):
            cmd = [ptxas, f"-arch={arch}", "-O3", *extra, ptx, "-o", f"{tmp}/p.cubin"]
            times.append(min(_wall(cmd, env) for _ in range(3)))
        out[Path(kernel).stem] = (times[0], times[1])
    empty = os.path.join(tmp, "empty.ptx")
    Path(empty).write_text(".version 8.0\n.target sm_90a\n.address_size 64\n")
    start = min(
        _wall([ptxas, "-arch=sm_90a", empty, "-o", f"{tmp}/e.cubin"], env) for _ in range(5)
    )
    out["(empty module)"] = (start, start)
    return out


def _report(
    best: dict[str, dict[str, float]],
    tiras: dict[str, float],
    loads: list[float],
    ptxas_times: dict[str, tuple[float, float]],
    args: argparse.Namespace,
) -> None:
    names = [n for n in best if n in tiras]
    print(
        f"{len(names)} kernels, best of {args.repeat}, {args.gpu_name}, "
        f"load {min(loads):.1f}-{max(loads):.1f}; spare used in "
        f"{sum(best[n]['spare'] for n in names):.0f}"
    )
    totals = [best[n]["total"] for n in names]
    print(f"{'phase':<18} {'median ms':>10} {'q1':>8} {'q3':>8} {'share':>7}")
    for phase in (*PHASES, "total"):
        values = sorted(1000 * best[n][phase] for n in names)
        share = statistics.median(best[n][phase] / best[n]["total"] for n in names)
        q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
        print(
            f"{phase:<18} {statistics.median(values):>10.1f} {q[0]:>8.1f} {q[2]:>8.1f} "
            f"{100 * share:>6.1f}%"
        )
    ratios = sorted(best[n]["total"] / tiras[n] for n in names)
    print(
        f"tileiras: median {1000 * statistics.median(tiras[n] for n in names):.1f} ms; "
        f"this request / tileiras: median {statistics.median(ratios):.2f}x, "
        f"max {max(ratios):.2f}x, {sum(r > 1.5 for r in ratios)} above 1.5x"
    )
    print(f"(median total {1000 * statistics.median(totals):.1f} ms)")
    if ptxas_times:
        print(
            f"{'kernel':<40} {'request':>8} {'wait':>8} {'ptxas -v':>9} {'no -v':>8} {'tileiras':>9}"
        )
        for n in names:
            v, nv = ptxas_times[n]
            print(
                f"{n:<40} {1000 * best[n]['total']:>8.1f} "
                f"{1000 * (best[n]['verify (beside)'] + best[n]['wait for ptxas']):>8.1f} "
                f"{1000 * v:>9.1f} {1000 * nv:>8.1f} {1000 * tiras[n]:>9.1f}"
            )
        e = ptxas_times["(empty module)"][0]
        print(f"ptxas on an empty module: {1000 * e:.1f} ms")


if __name__ == "__main__":
    main()
