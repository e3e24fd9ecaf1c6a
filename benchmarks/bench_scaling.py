#!/usr/bin/env python3
"""Compile time and peak memory against op count (`make bench`; issue 17, item 4).

A generated kernel: one tile loaded, a chain of N elementwise ops on it (addf, mulf,
subf, maxf in turn, each with the loaded tile), one store; N = 1k, 5k and 20k
cuda_tile ops, written as bytecode.  Each is compiled to a cubin by `tileir-as` as a
fresh process with neither server nor cache (`TILEIR_SERVER=0 TILEIR_NO_CACHE=1`: all
of tileir's work, start-up included) and by NVIDIA's `tileiras`, interleaved, best of
`--repeat`; peak memory is the child's maximum resident set (`wait4`).  The column
that matters is the time per op: flat when the cost is linear in the op count.  A run
longer than `--timeout` seconds is stopped and shown as such (tileiras's time grows
faster than its op count on this kernel: 1.8 s at 1k ops, 21 s at 5k on a loaded
2-core machine).

    python benchmarks/bench_scaling.py [--ops 1000 5000 20000] [--repeat 2] [--markdown]
        [--timeout 300]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_compile import cell, compile_package, find_tools, machine  # noqa: E402

OPS = ("addf", "mulf", "subf", "maxf")
TILE = 128  # one f32 per thread at 4 warps: an op is one instruction per thread


def kernel_text(n: int) -> str:
    """cuda_tile text of the chain kernel with `n` elementwise ops."""
    view = f"partition_view<tile=({TILE}), tensor_view<?xf32, strides=[1]>>"
    lines = [
        "entry @chain(%src: tile<ptr<f32>>, %dst: tile<ptr<f32>>, %n: tile<i32>) {",
        "  %tok = make_token : token",
        "  %a = make_tensor_view %src, shape = [%n], strides = [1] "
        ": tile<i32> -> tensor_view<?xf32, strides=[1]>",
        "  %b = make_tensor_view %dst, shape = [%n], strides = [1] "
        ": tile<i32> -> tensor_view<?xf32, strides=[1]>",
        "  %bx, %by, %bz = get_tile_block_id : tile<i32>",
        f"  %pa = make_partition_view %a : {view}",
        f"  %pb = make_partition_view %b : {view}",
        f"  %x0, %t0 = load_view_tko weak %pa[%bx] token = %tok "
        f": {view}, tile<i32> -> tile<{TILE}xf32>, token",
    ]
    for i in range(1, n + 1):
        op = OPS[i % len(OPS)]
        lines.append(f"  %x{i} = {op} %x{i - 1}, %x0 : tile<{TILE}xf32>")
    lines.append(
        f"  %t1 = store_view_tko weak %x{n}, %pb[%bx] token = %tok "
        f": tile<{TILE}xf32>, {view}, tile<i32> -> token"
    )
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def write_kernel(n: int, directory: Path) -> Path:
    """The chain kernel as bytecode (the input both tools read)."""
    from tileir.bytecode import write_bytecode
    from tileir.frontend import parse_text
    from tileir.registry import make_context

    module = parse_text(make_context(), kernel_text(n))
    path = directory / f"chain_{n}.tileirbc"
    path.write_bytes(write_bytecode(module))
    return path


def timed(command: list[str], env: dict[str, str], limit: float) -> tuple[float, float, int]:
    """Wall seconds, peak resident MiB of the child, exit status (-1: killed after
    `limit` seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - start > limit:
            proc.kill()
            os.wait4(proc.pid, 0)
            if proc.stderr is not None:
                proc.stderr.close()
            return time.perf_counter() - start, 0.0, -1
        time.sleep(0.02)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0 and proc.stderr is not None:
        sys.stderr.write(proc.stderr.read().decode(errors="replace")[-2000:])
    if proc.stderr is not None:
        proc.stderr.close()
    return elapsed, usage.ru_maxrss / 1024, proc.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--ops", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--repeat", type=int, default=2, help="interleaved rounds")
    parser.add_argument("--gpu-name", default="sm_90")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument(
        "--timeout", type=float, default=300, help="seconds before a run counts as 'timeout'"
    )
    args = parser.parse_args(argv)

    found = find_tools()
    if found is None:
        return 1
    ours, theirs = found
    env = {**os.environ, "TILEIR_SERVER": "0", "TILEIR_NO_CACHE": "1"}
    tools = {"tileir-as": ours, **({"tileiras": theirs} if theirs else {})}
    rows = []
    compile_package()
    with tempfile.TemporaryDirectory(prefix="bench-scaling-") as tmp:
        work = Path(tmp)
        for n in args.ops:
            kernel = write_kernel(n, work)
            best: dict[str, tuple[float, float] | str] = {}
            for r in range(args.repeat):
                names = list(tools)
                for name in names[r % len(names) :] + names[: r % len(names)]:
                    out = work / f"{kernel.stem}.{name}.cubin"
                    cmd = [tools[name], str(kernel), "-o", str(out), "--gpu-name", args.gpu_name]
                    seconds, peak, status = timed(cmd, env, args.timeout)
                    if status != 0:
                        best[name] = f"> {args.timeout:.0f} s" if status == -1 else "error"
                        continue
                    prev = best.get(name)
                    if not isinstance(prev, str) and (prev is None or seconds < prev[0]):
                        best[name] = (seconds, peak)
            rows.append((n, best))
            print(f"{n} ops: {best}", file=sys.stderr, flush=True)

    load = os.getloadavg()
    print(
        f"compile time and peak memory against op count: a chain of N elementwise ops on a "
        f"tile<{TILE}xf32>, to a cubin, --gpu-name {args.gpu_name}, best of {args.repeat}; "
        f"{machine()}; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}"
    )
    print()
    header = ["ops"]
    for name in tools:
        header += [f"{name} (s)", f"{name} ms/op", f"{name} peak (MiB)"]
    lines = []
    for n, best in rows:
        line = [str(n)]
        for name in tools:
            value = best.get(name)
            if isinstance(value, tuple):
                line += [cell(value[0]), f"{value[0] / n * 1000:.3f}", f"{value[1]:.0f}"]
            else:
                line += [str(value), "-", "-"]
        lines.append(line)
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" + "---:|" * (len(header) - 1))
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
        for line in lines:
            print("  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
