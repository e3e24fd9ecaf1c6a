#!/usr/bin/env python3
"""Launch one prebuilt cubin of a corpus kernel once, for a tool that watches a process
(`compute-sanitizer`, `ncu`): the kernel alone, without `bench_gpu.py`'s other launches.

    python benchmarks/gpu_launch_one.py .gpu gemm_f16 tileiras [--large]

`FOLDER` holds `gpu_prepare.py`'s cubins and manifest; `WHICH` is `tileir` (launched
with its `.reqntid` block) or `tileiras` (with a `(1, 1, 1)` block, as cuTile launches
Tile IR cubins); `--large` takes `bench_gpu.LARGE`'s shape for `NAME` (`NAME@LABEL`
rows too).  The inputs are the case's (seed 0); nothing is checked or timed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_gpu  # pyright: ignore[reportMissingImports]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("name")
    parser.add_argument("which", choices=("tileir", "tileiras"))
    parser.add_argument("--large", action="store_true")
    args = parser.parse_args(argv)

    from tileir.diagnostics import CompileError
    from tileir.runtime import launch

    kernel = bench_gpu.kernel_of(args.name)
    entries = json.loads((args.folder / "manifest.json").read_text())["kernels"]
    prebuilt = bench_gpu.prebuilt_cubin(args.folder, entries, kernel, args.which)
    if isinstance(prebuilt, str):
        print(f"{args.name}: no {args.which} cubin ({prebuilt})", file=sys.stderr)
        return 1
    cubin, block = prebuilt
    _, inputs = bench_gpu.case_inputs(args.name, args.large)
    run = bench_gpu._common.launch_copy(inputs)
    try:
        launch(
            bench_gpu.CORPUS / f"{kernel}.tileirbc",
            run["grid"],
            *bench_gpu._common.flatten_args(run),
            cubin=cubin,
            block=block,
        )
    except CompileError as e:
        print(f"{args.name}: {e.message.splitlines()[0]}", file=sys.stderr)
        return 1
    print(f"{args.name}: {args.which} launched once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
