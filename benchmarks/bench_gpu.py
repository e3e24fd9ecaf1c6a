#!/usr/bin/env python3
"""Kernel time on a GPU per corpus kernel: tileir's cubin against NVIDIA's `tileiras`
cubin of the same bytecode, and against the hardware (`make bench`).

For each kernel of `tests/corpus` the inputs of `cases/<name>.py` are copied to the
device once and the kernel is launched `--repeat` times back to back between two CUDA
events (after one untimed launch), through `tileir.runtime.time_kernel`: tileir's cubin
with its `.reqntid` block, and the `tileiras` cubin (when `tileiras` is installed)
launched as cuTile launches Tile IR kernels, with a `(1, 1, 1)` block the driver
replaces by the kernel's own.  Columns:

* `tileir`, `tileiras`: microseconds per launch; `ratio`: tileir / tileiras;
* `GB/s`: the bytes of every array argument once (read or written), over tileir's
  time, and `% HBM`: that against the device-to-device copy bandwidth measured here
  (a copy reads and writes each byte: 2 x bytes / time);
* `TFLOP/s`, `% peak`: for kernels whose case defines `flops(inputs)` (the GEMMs), against the
  dense tensor-core peak of the device for the kernel's operand type, from NVIDIA's
  datasheets (`TENSOR_PEAK_TFLOPS`; `n/a` for a device not listed).

The corpus shapes are small (a few hundred KB): most times are launch-bound, which
the `% HBM` column shows.  Without a CUDA device (or without cuda-python and CuPy) the
script says so and exits 0: CI has no GPU.

    python benchmarks/bench_gpu.py [--repeat 50] [--only NAME] [--markdown]
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import platform
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus"
sys.path.insert(0, str(CORPUS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common  # noqa: E402  # pyright: ignore[reportMissingImports]
from bench_compile import find_tool  # noqa: E402

#: Dense tensor-core peaks (TFLOP/s) by device-name fragment and operand type, from
#: NVIDIA's datasheets (SXM boards unless named; sparsity not counted).
TENSOR_PEAK_TFLOPS: dict[str, dict[str, float]] = {
    "H100 PCIe": {"f16": 756.0, "bf16": 756.0, "f8": 1513.0},
    "H100": {"f16": 989.4, "bf16": 989.4, "f8": 1978.9},
    "H200": {"f16": 989.4, "bf16": 989.4, "f8": 1978.9},
    "A100": {"f16": 312.0, "bf16": 312.0},
}


def tensor_peak(device: str, operand: str) -> float | None:
    """The dense tensor-core peak of `device` for `operand` (f16, bf16, f8), if known:
    the longest matching name fragment wins (`H100 PCIe` before `H100`)."""
    for fragment in sorted(TENSOR_PEAK_TFLOPS, key=len, reverse=True):
        if fragment in device:
            return TENSOR_PEAK_TFLOPS[fragment].get(operand)
    return None


def array_bytes(inputs: dict[str, Any]) -> int:
    """The bytes of every array argument, each counted once."""
    return sum(int(a.nbytes) for a in inputs["arrays"].values())


def operand_type(inputs: dict[str, Any]) -> str:
    """The tensor-core operand type of a GEMM case: its first array's element type."""
    first = next(iter(inputs["arrays"].values()))
    name = _common.tile_dtype_name(first.dtype)
    return "f8" if name.startswith("f8") else name


def tileiras_cubin(tileiras: str, bytecode: Path, gpu: str) -> bytes | str:
    """NVIDIA's cubin of `bytecode`, or the first line of its error."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "kernel.cubin"
        proc = subprocess.run(
            [tileiras, str(bytecode), "-o", str(out), "--gpu-name", gpu],
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            return (proc.stderr.strip().splitlines() or ["failed"])[0]
        return out.read_bytes()


def _fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.{digits}f}"


#: Shapes for `--large`: the corpus kernels whose shapes are module constants of their
#: case (or fields of its `GemmCase`/`AttentionCase`), scaled so that each launch moves
#: hundreds of megabytes (several times the L2) or, for the GEMMs and attention, does
#: tens of GFLOPs.  The tile sizes, and so the bytecode, are the corpus's own: only the
#: runtime shape arguments and the grid change.  `NAME@LABEL` runs kernel NAME at a
#: second shape.
LARGE: dict[str, dict[str, Any]] = {
    "vadd_f32": {"N": 1 << 26},
    "saxpy_f32": {"N": 1 << 26},
    "gelu_tanh_f32": {"N": 1 << 26},
    "logistic_f32": {"N": 1 << 25},
    "control_flow_f32": {"N": 1 << 26},
    "residual_cast_f16": {"N": 1 << 26},
    "int32_ops": {"N": 1 << 26},
    "int8_mix": {"N": 1 << 26},
    "sumsq_atomic_f32": {"N": 1 << 26},
    "softmax_f32_2d": {"M": 1 << 20},
    "softmax_wide_f32": {"M": 1 << 16},
    "layernorm_f32_2d": {"M": 1 << 18},
    "row_reduce_2d": {"M": 1 << 18},
    "row_sum_loop_f32": {"M": 1 << 18},
    "gemm_f16": {"shape": (4096, 4096, 4096)},
    "gemm_f16_aligned_edges": {"shape": (4096, 4096, 4096)},
    "gemm_bf16_ragged": {"shape": (4000, 4000, 4000)},
    "gemm_bf16_deep_k": {"shape": (4096, 4096, 4096)},
    "gemm_bf16_big_tile": {"shape": (4096, 4096, 4096)},
    "gemm_bf16_big_tile@8192": {"shape": (8192, 8192, 8192)},
    "gemm_bf16_two_warpgroups": {"shape": (4096, 4096, 4096)},
    "gemm_bf16_two_warpgroups@8192": {"shape": (8192, 8192, 8192)},
    "gemm_f16_wide_acc": {"M": 4096, "N": 4096, "K": 4096},
    "gemm_e4m3_scaled": {"M": 4096, "N": 4096, "K": 4096},
    "gemm_tf32": {"M": 2048, "N": 2048, "K": 2048},
    "batched_matmul_2d_f16": {"B": 16, "M": 2048, "N": 2048, "K": 2048},
    "batched_matmul_f16": {"B": 16, "M": 2048, "N": 2048, "K": 2048},
    # The heads are the kernel's (`bh // HEADS` in its source): only batches and rows grow.
    "flash_attention_f16": {"shape": (16, 2, 2048), "kv_tiles": 32},
    "flash_attention_causal_bf16": {"shape": (16, 2, 2048), "kv_tiles": 32},
    "attention_wide_kv_bf16": {"shape": (32, 1, 2048), "kv_tiles": 8},
    "attention_occupancy_f16": {"shape": (32, 1, 2048), "kv_tiles": 16},
}


#: Tolerances of the `LARGE` shapes where the case's own, set for its corpus shape, is too
#: tight: f32 accumulation error grows with the number of terms.  A 4096-term dot of
#: values in [-1, 1] summed in f32 in any order (tensor-core k-steps, then the K loop)
#: stays within about 4096 * 2^-24 * max|partial sum| ~ 5e-3 of the exact sum in the worst
#: case and ~1e-4 typically; tests/pytest/test_gpu_findings.py checks these bounds against
#: an f32 accumulation in another order than numpy's.
LARGE_TOLERANCE: dict[str, dict[str, tuple[float, float]]] = {
    "gemm_f16": {"c": (1e-4, 2e-3)},
    "gemm_f16_aligned_edges": {"c": (1e-4, 2e-3)},
    "gemm_bf16_ragged": {"c": (1e-4, 2e-3)},
    "gemm_bf16_deep_k": {"c": (1e-4, 2e-3)},
    "gemm_bf16_big_tile": {"c": (1e-4, 2e-3)},
    "gemm_bf16_two_warpgroups": {"c": (1e-4, 4e-3)},
    "gemm_tf32": {"c": (1e-4, 2e-3)},
    "batched_matmul_f16": {"c": (1e-4, 2e-3)},
}


def kernel_of(name: str) -> str:
    """The corpus kernel of a `LARGE` row name (`NAME@LABEL` runs NAME)."""
    return name.split("@", 1)[0]


def _fresh_case_module(kernel: str) -> Any:
    """A private copy of `cases/<kernel>.py`, so that `--large`'s shapes never leak into
    the shared module other callers (the corpus tests, the next row) import."""
    _common.load_case_module(kernel)  # puts tests/corpus on the path for its imports
    spec = importlib.util.spec_from_file_location(
        f"_large_{kernel}", CORPUS / "cases" / f"{kernel}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def case_inputs(name: str, large: bool) -> tuple[Any, dict[str, Any]]:
    """The case module of `name` and its inputs (seed 0), at `LARGE`'s shapes if asked:
    module constants are set before `make_inputs` reads them, and a case built from a
    `GemmCase` or `AttentionCase` (`CASE`/`_CASE`) is rebuilt with the new fields."""
    kernel = kernel_of(name)
    case = _fresh_case_module(kernel) if large else _common.load_case_module(kernel)
    shaped = getattr(case, "CASE", None) or getattr(case, "_CASE", None)
    if large:
        fields = {k: v for k, v in LARGE[name].items() if not k.isupper()}
        for constant, value in LARGE[name].items():
            if constant.isupper():
                setattr(case, constant, value)
        if fields:
            if not dataclasses.is_dataclass(shaped):
                raise ValueError(f"{kernel}: LARGE names fields {sorted(fields)} but has no case")
            rebuilt = dataclasses.replace(shaped, **fields)  # type: ignore[type-var]
            case.make_inputs, case.reference = rebuilt.make_inputs, rebuilt.reference
            if hasattr(rebuilt, "flops"):
                case.flops = rebuilt.flops
        case.TOLERANCE = {**case.TOLERANCE, **LARGE_TOLERANCE.get(kernel, {})}
    return case, case.make_inputs(np.random.default_rng(0))


def case_flops(case: Any) -> Any:
    """The FLOP count of `case`'s inputs (`flops(inputs)`): the module's own, or its
    `AttentionCase`'s; None for a case that counts none."""
    return getattr(case, "flops", None) or getattr(getattr(case, "CASE", None), "flops", None)


def prebuilt_cubin(
    folder: Path, entries: dict[str, Any], kernel: str, which: str
) -> tuple[bytes, tuple[int, int, int]] | str:
    """`gpu_prepare.py`'s cubin of `kernel` by `which` (tileir, tileiras) in `folder` and
    the block to launch it with (tileir's `.reqntid`; `(1, 1, 1)` for tileiras's, as
    cuTile launches Tile IR cubins), or why there is none."""
    entry = entries.get(kernel, {}).get(which)
    if entry is None or "error" in entry:
        return "not in the manifest" if entry is None else entry["error"].splitlines()[0]
    x, y, z = entry["block"] if which == "tileir" else (1, 1, 1)
    return (folder / f"{kernel}.{which}.cubin").read_bytes(), (int(x), int(y), int(z))


def compare(case: Any, inputs: dict[str, Any], got: dict[str, Any], want: dict[str, Any]) -> str:
    """`ok`, or which output differs from `want` beyond the case's tolerance (and by
    how much) or which input the kernel changed."""
    for n, a in inputs["arrays"].items():
        g = got["arrays"][n]
        if n not in inputs["outputs"]:
            if not np.array_equal(g, a, equal_nan=True):
                return f"changed input {n}"
            continue
        w = want[n]
        rtol, atol = case.TOLERANCE[n]
        floating = w.dtype.kind in "fV"
        g64 = g.astype(np.float64) if floating else g
        w64 = w.astype(np.float64) if floating else w
        if not np.allclose(g64, w64, rtol=rtol, atol=atol, equal_nan=True):
            bad = ~np.isclose(g64, w64, rtol=rtol, atol=atol, equal_nan=True)
            worst = float(np.nanmax(np.abs(g64[bad].astype(np.float64) - w64[bad])))
            return f"MISMATCH {n}: {int(bad.sum())} of {bad.size} elements, max |diff| {worst:.3g}"
    return "ok"


def cublas_tflops(inputs: dict[str, Any], flops: int, repeats: int) -> float | None:
    """cuBLAS (through CuPy) on the same GEMM shape, f16 operands (CuPy has no bf16 or
    fp8, so the f16 product is the reference for those too): TFLOP/s."""
    try:
        import cupy
    except ImportError:
        return None
    a, b = (inputs["arrays"][n] for n in ("a", "b"))
    x = cupy.asarray(a.astype(np.float16))
    y = cupy.asarray(b.astype(np.float16))
    cupy.matmul(x, y)
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    start.record()
    for _ in range(repeats):
        cupy.matmul(x, y)
    stop.record()
    stop.synchronize()
    ms = cupy.cuda.get_elapsed_time(start, stop) / repeats
    return flops / (ms * 1e-3) / 1e12


def launch_checked(
    bytecode: Path, inputs: dict[str, Any], cubin: bytes | None, block: tuple[int, int, int]
) -> tuple[dict[str, Any] | None, str]:
    """One launch on a copy of `inputs` (tileir's own compile when `cubin` is None): the
    copy after the run, or None and the error."""
    from tileir.diagnostics import CompileError
    from tileir.runtime import launch

    run = _common.launch_copy(inputs)
    try:
        launch(bytecode, run["grid"], *_common.flatten_args(run), cubin=cubin, block=block)
    except CompileError as e:
        return None, f"error: {e.message.splitlines()[0]}"
    return run, ""


def load_prebuilt(folder: Path | None) -> dict[str, Any]:
    """`gpu_prepare.py`'s manifest of the cubins in `folder` ({} without one)."""
    if folder is None:
        return {}
    return json.loads((folder / "manifest.json").read_text())["kernels"]


def bench_kernel(
    name: str,
    args: argparse.Namespace,
    prebuilt: dict[str, Any],
    tileiras: str | None,
    gpu_name: str,
    device: str,
    hbm: float,
) -> list[str]:
    """One row of the table: `name`'s times (and checks) with both compilers' cubins."""
    from tileir.diagnostics import CompileError
    from tileir.interpreter import launch as interpret
    from tileir.runtime.launcher import time_kernel

    case, inputs = case_inputs(name, args.large)
    call = (inputs["grid"], *_common.flatten_args(inputs))
    bytecode = CORPUS / f"{kernel_of(name)}.tileirbc"
    # (cubin, block) of each compiler; tileir's cubin None: compile it here.
    ours_cubin: tuple[bytes | None, tuple[int, int, int]] = (None, (1, 1, 1))
    theirs_cubin: tuple[bytes, tuple[int, int, int]] | None = None
    entry = prebuilt.get(kernel_of(name))
    if entry is not None and args.prebuilt is not None:
        ours_prebuilt = prebuilt_cubin(args.prebuilt, prebuilt, kernel_of(name), "tileir")
        if not isinstance(ours_prebuilt, str):
            ours_cubin = ours_prebuilt
        theirs_prebuilt = prebuilt_cubin(args.prebuilt, prebuilt, kernel_of(name), "tileiras")
        if not isinstance(theirs_prebuilt, str):
            theirs_cubin = theirs_prebuilt
    elif tileiras is not None:
        cubin = tileiras_cubin(tileiras, bytecode, gpu_name)
        if isinstance(cubin, bytes):
            theirs_cubin = (cubin, (1, 1, 1))
    checks = ["", ""]
    if args.check:
        want = case.reference(inputs) if args.large else None
        if want is None:
            reference = _common.launch_copy(inputs)
            interpret(bytecode, reference["grid"], *_common.flatten_args(reference))
            want = {n: reference["arrays"][n] for n in inputs["outputs"]}
        for i, pair in enumerate((ours_cubin, theirs_cubin)):
            if pair is None:
                checks[i] = "n/a"
                continue
            got, error = launch_checked(bytecode, inputs, *pair)
            checks[i] = error or compare(case, inputs, got or {}, want)
        reqntid = (entry or {}).get("tileiras", {}).get("block")
        if theirs_cubin is not None and checks[1] != "ok" and reqntid:
            # Not as cuTile launches it: with the block the cubin records.
            theirs_cubin = (theirs_cubin[0], tuple(reqntid))
            got, error = launch_checked(bytecode, inputs, *theirs_cubin)
            checks[1] += f"; block {tuple(reqntid)}: " + (
                error or compare(case, inputs, got or {}, want)
            )
    ours = time_kernel(
        bytecode, *call, cubin=ours_cubin[0], block=ours_cubin[1], repeats=args.repeat
    )
    theirs: float | None = None
    if theirs_cubin is not None:
        try:
            theirs = time_kernel(
                bytecode, *call, cubin=theirs_cubin[0], block=theirs_cubin[1], repeats=args.repeat
            )
        except CompileError as e:
            checks[1] = f"error: {e.message.splitlines()[0]}"
    bandwidth = array_bytes(inputs) / (ours * 1e-3) / 1e9
    flops = case_flops(case)
    tflops = flops(inputs) / (ours * 1e-3) / 1e12 if flops else None
    peak = tensor_peak(device, operand_type(inputs)) if flops else None
    gemm = flops is not None and {"a", "b"} <= set(inputs["arrays"])
    cublas = (
        cublas_tflops(inputs, flops(inputs), args.repeat) if flops and gemm and args.large else None
    )
    row = [
        f"`{name}`",
        _fmt(ours * 1e3),
        _fmt(theirs * 1e3 if theirs else None),
        f"{ours / theirs:.2f}x" if theirs else "n/a",
        _fmt(bandwidth),
        _fmt(100 * bandwidth / hbm),
        _fmt(tflops, 2),
        _fmt(100 * tflops / peak if tflops is not None and peak else None),
        _fmt(cublas, 1),
    ]
    if args.check:
        row += checks
    return row


def measure(args: argparse.Namespace, names: list[str], emit: Any) -> dict[str, Any] | None:
    """Time (and check) `names` on this process's GPU, calling `emit("start", name)` before
    each kernel and `emit("row", row)` after it; the device facts, or None without a GPU."""
    from tileir.runtime import GpuUnavailable, arch_for
    from tileir.runtime.launcher import backend

    try:
        gpu = backend()
    except GpuUnavailable as e:
        print(f"GPU kernel times: not measured ({e.message})")
        return None
    device = gpu.device_name()
    major, minor = gpu.capability()
    copy_bytes = 1 << 30
    info = {
        "device": device,
        "major": major,
        "minor": minor,
        "arch": arch_for((major, minor)),
        "hbm": 2 * copy_bytes / (gpu.copy_time(copy_bytes, 10) * 1e-3) / 1e9,  # GB/s
    }
    emit("info", info)
    prebuilt = load_prebuilt(args.prebuilt)
    tileiras = None if prebuilt else find_tool("tileiras")
    width = len(table_header(args))
    for name in names:
        emit("start", name)
        try:
            row = bench_kernel(
                name, args, prebuilt, tileiras, f"sm_{major}{minor}", device, info["hbm"]
            )
        except Exception as e:  # one kernel's failure (a launch error) is a row, not the end
            row = [f"`{name}`", f"error: {str(e).splitlines()[0]}"] + [""] * (width - 2)
        emit("row", row)
        print("  ".join(row), file=sys.stderr, flush=True)
    return info


def table_header(args: argparse.Namespace) -> list[str]:
    header = ["kernel", "tileir (us)", "tileiras (us)", "ratio", "GB/s", "% HBM", "TFLOP/s"]
    header += ["% peak", "cuBLAS TFLOP/s"]
    if args.check:
        header += ["tileir check", "tileiras check"]
    return header


def _pump(stream: Any, lines: queue.Queue[str | None]) -> None:
    """Copy `stream`'s lines into `lines`, then None at its end."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def supervise(
    args: argparse.Namespace,
    argv: list[str],
    names: list[str],
    worker: list[str] | None = None,
) -> tuple[dict[str, Any] | None, list[list[str]]]:
    """Run `names` in a child process (`--worker`), reading its rows as they come; a
    kernel that runs past `--watchdog` seconds (a launch that never completes: a
    deadlocked mbarrier wait hangs the GPU context, and nothing in the process can
    interrupt it) is killed with its process, recorded as `HANG`, and the kernels after
    it go on in a fresh process.  Stopped itself (SIGTERM, as `timeout` stops it, or
    Ctrl-C), it kills the child and returns the rows so far, the rest marked so: the
    table of a GPU session cut short keeps what it measured."""
    info: dict[str, Any] = {}
    rows: list[list[str]] = []
    width = len(table_header(args))
    pending = list(names)
    children: list[subprocess.Popen[str]] = []
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        while pending:
            _supervise_one(args, argv, pending, worker, rows, info, children)
    except KeyboardInterrupt:
        for child in children:
            if child.poll() is None:
                child.kill()
        rows.extend([f"`{n}`", "not run: interrupted"] + [""] * (width - 2) for n in pending)
    finally:
        signal.signal(signal.SIGTERM, previous)
    return info or None, rows


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _supervise_one(
    args: argparse.Namespace,
    argv: list[str],
    pending: list[str],
    worker: list[str] | None,
    rows: list[list[str]],
    info: dict[str, Any],
    children: list[subprocess.Popen[str]],
) -> None:
    """One child process of `supervise` (added to `children`), running the kernels of
    `pending` (which it shortens) until they are done, one hangs or the child dies; its
    rows go to `rows`, the device facts it says to `info`."""
    width = len(table_header(args))
    cmd = [*(worker or [sys.executable, __file__]), "--worker", *_strip_only(argv)]
    for n in pending:
        cmd += ["--only", n]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
    children.append(proc)
    lines: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_pump, args=(proc.stdout, lines), daemon=True).start()
    current: str | None = None
    deadline = time.monotonic() + args.watchdog + 120  # start-up and imports
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            proc.kill()
            proc.wait()
            stuck = current or pending[0]
            rows.append(
                [f"`{stuck}`", f"HANG: killed after {args.watchdog:.0f} s"] + [""] * (width - 2)
            )
            print(f"{stuck}: HANG, killed", file=sys.stderr, flush=True)
            pending.remove(stuck)
            break
        if line is None:
            proc.wait()
            if current is not None:  # the child died inside a kernel
                rows.append(
                    [f"`{current}`", f"crashed: exit {proc.returncode}"] + [""] * (width - 2)
                )
                pending.remove(current)
            else:  # done, or a child that could not start (no GPU): nothing to retry
                pending.clear()
            break
        kind, _, payload = line.rstrip("\n").partition(" ")
        if kind == "@info":
            info.update(json.loads(payload))
        elif kind == "@start":
            current = payload
            deadline = time.monotonic() + args.watchdog
        elif kind == "@row":
            rows.append(json.loads(payload))
            if current in pending:
                pending.remove(current)
            current = None
        else:
            print(line, end="")


def _strip_only(argv: list[str]) -> list[str]:
    """`argv` without its `--only NAME` pairs (the supervisor names the kernels)."""
    out: list[str] = []
    skip = False
    for a in argv:
        if skip:
            skip = False
        elif a == "--only":
            skip = True
        elif not a.startswith("--only="):
            out.append(a)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument(
        "--prebuilt", type=Path, metavar="DIR", help="cubins built by gpu_prepare.py DIR"
    )
    parser.add_argument("--large", action="store_true", help="LARGE's shapes, not the corpus's")
    parser.add_argument(
        "--check",
        action="store_true",
        help="also run each cubin once and compare its outputs with the interpreter "
        "(with numpy's reference at --large shapes)",
    )
    parser.add_argument(
        "--watchdog",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="run the kernels in a child process and kill it when one kernel takes longer "
        "(a hung launch becomes a HANG row and the rest go on in a new process)",
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    raw = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(raw)
    names = args.only or (list(LARGE) if args.large else _common.kernel_names())

    if args.worker:

        def emit(kind: str, payload: Any) -> None:
            print(f"@{kind} {payload if kind == 'start' else json.dumps(payload)}", flush=True)

        measure(args, names, emit)
        return 0
    if args.watchdog > 0:
        info, rows = supervise(args, raw, names)
    else:
        rows = []
        info = measure(args, names, lambda kind, row: rows.append(row) if kind == "row" else None)
    if info is None:
        return 0

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    source = f"prebuilt cubins from {args.prebuilt}" if args.prebuilt else "tileiras on PATH"
    print(
        f"{stamp}; {info['device']} (compute capability {info['major']}.{info['minor']}, "
        f"tileir target {info['arch']}), {platform.python_version()}; copy bandwidth "
        f"{info['hbm']:.0f} GB/s; {source}; {'large' if args.large else 'corpus'} shapes; "
        f"mean of {args.repeat} back-to-back launches"
    )
    header = table_header(args)
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|---|" + "---:|" * (len(header) - 1))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
