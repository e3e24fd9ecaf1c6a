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
import math
import platform
import subprocess
import sys
import tempfile
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--only", action="append", metavar="NAME")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)

    from tileir.runtime import GpuUnavailable, arch_for
    from tileir.runtime.launcher import backend, time_kernel

    try:
        gpu = backend()
    except GpuUnavailable as e:
        print(f"GPU kernel times: not measured ({e.message})")
        return 0
    device = gpu.device_name()
    major, minor = gpu.capability()
    arch = arch_for((major, minor))
    gpu_name = f"sm_{major}{minor}"
    copy_bytes = 1 << 30
    hbm = 2 * copy_bytes / (gpu.copy_time(copy_bytes, 10) * 1e-3) / 1e9  # GB/s
    tileiras = find_tool("tileiras")

    names = args.only or _common.kernel_names()
    rows: list[list[str]] = []
    for name in names:
        case = _common.load_case_module(name)
        inputs = case.make_inputs(np.random.default_rng(0))
        call = (inputs["grid"], *_common.flatten_args(inputs))
        bytecode = CORPUS / f"{name}.tileirbc"
        ours = time_kernel(bytecode, *call, repeats=args.repeat)
        theirs: float | None = None
        if tileiras is not None:
            cubin = tileiras_cubin(tileiras, bytecode, gpu_name)
            if isinstance(cubin, bytes):
                theirs = time_kernel(bytecode, *call, cubin=cubin, repeats=args.repeat)
        bandwidth = array_bytes(inputs) / (ours * 1e-3) / 1e9
        flops = getattr(case, "flops", None)
        tflops = flops(inputs) / (ours * 1e-3) / 1e12 if flops else None
        peak = tensor_peak(device, operand_type(inputs)) if flops else None
        rows.append(
            [
                f"`{name}`",
                _fmt(ours * 1e3),
                _fmt(theirs * 1e3 if theirs else None),
                f"{ours / theirs:.2f}x" if theirs else "n/a",
                _fmt(bandwidth),
                _fmt(100 * bandwidth / hbm),
                _fmt(tflops, 2),
                _fmt(100 * tflops / peak if tflops is not None and peak else None),
            ]
        )

    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(
        f"{stamp}; {device} (compute capability {major}.{minor}, tileir target {arch}), "
        f"{platform.python_version()}; copy bandwidth {hbm:.0f} GB/s; "
        f"tileiras: {tileiras or 'not installed'}; mean of {args.repeat} back-to-back launches"
    )
    header = ["kernel", "tileir (us)", "tileiras (us)", "ratio", "GB/s", "% HBM", "TFLOP/s"]
    header.append("% peak")
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
