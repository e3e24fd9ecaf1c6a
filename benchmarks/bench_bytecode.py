#!/usr/bin/env python3
"""Read and write times of tileir's bytecode reader and writer (`make bench`).

Table 1: every corpus kernel, read (decode + build + verify) and write, best of
`--repeat` runs, next to parsing its tileirdisasm text for scale.  Table 2: linearity,
one module holding 1, 8, 64 and 256 copies of a kernel: the time per op stays flat.

    python benchmarks/bench_bytecode.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xdsl.dialects.builtin import StringAttr  # noqa: E402
from xdsl.ir import Operation  # noqa: E402

from tileir.bytecode import read_bytecode, write_bytecode  # noqa: E402
from tileir.frontend import parse_text  # noqa: E402
from tileir.registry import make_context  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def op_count(module: Operation) -> int:
    return sum(1 for _ in module.walk())


def replicated(data: bytes, copies: int, ctx) -> bytes:
    """One module with `copies` copies of the file's entry (renamed apart)."""
    module = read_bytecode(data, "bench", ctx)
    kernels = next(op for op in module.walk() if op.name == "cuda_tile.module")
    block = kernels.regions[0].block
    entry = next(op for op in block.ops if op.name == "cuda_tile.entry")
    for i in range(1, copies):
        clone = entry.clone()
        clone.properties["sym_name"] = StringAttr(f"{entry.properties['sym_name'].data}_{i}")  # pyright: ignore[reportAttributeAccessIssue]
        block.add_op(clone)
    return write_bytecode(module)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    ctx = make_context()

    print(f"Bytecode read/write over the corpus (best of {args.repeat}, ms)\n")
    print(
        f"| {'kernel':<20} | {'bytes':>6} | {'ops':>4} | {'read':>7} | {'write':>7} | {'parse .mlir':>11} | {'read µs/op':>10} |"
    )
    print(f"|{'-' * 22}|{'-' * 8}|{'-' * 6}|{'-' * 9}|{'-' * 9}|{'-' * 13}|{'-' * 12}|")
    total = [0, 0, 0.0, 0.0, 0.0]
    for path in sorted(CORPUS.glob("*.tileirbc")):
        data = path.read_bytes()
        text = path.with_suffix(".mlir").read_text()
        module = read_bytecode(data, path.name, ctx)
        n = op_count(module)
        t_read = best(partial(read_bytecode, data, path.name, ctx), args.repeat)
        t_write = best(partial(write_bytecode, module), args.repeat)
        t_text = best(partial(parse_text, ctx, text, path.name), args.repeat)
        print(
            f"| {path.stem:<20} | {len(data):>6} | {n:>4} | {t_read * 1e3:>7.2f} | {t_write * 1e3:>7.2f} "
            f"| {t_text * 1e3:>11.2f} | {t_read * 1e6 / n:>10.0f} |"
        )
        for i, v in enumerate((len(data), n, t_read, t_write, t_text)):
            total[i] += v
    print(
        f"| {'total':<20} | {total[0]:>6} | {total[1]:>4} | {total[2] * 1e3:>7.2f} | {total[3] * 1e3:>7.2f} "
        f"| {total[4] * 1e3:>11.2f} | {total[2] * 1e6 / total[1]:>10.0f} |"
    )

    print(f"\nLinearity: grid_stride_f16_2d copied into one module (best of {args.repeat})\n")
    print(
        f"| {'copies':>6} | {'bytes':>8} | {'ops':>6} | {'read ms':>8} | {'write ms':>8} | {'read µs/op':>10} | {'write µs/op':>11} |"
    )
    print(f"|{'-' * 8}|{'-' * 10}|{'-' * 8}|{'-' * 10}|{'-' * 10}|{'-' * 12}|{'-' * 13}|")
    seed = (CORPUS / "grid_stride_f16_2d.tileirbc").read_bytes()
    for copies in (1, 8, 64, 256):
        data = replicated(seed, copies, ctx)
        module = read_bytecode(data, "bench", ctx)
        n = op_count(module)
        repeat = max(1, args.repeat if copies < 64 else 2)
        t_read = best(partial(read_bytecode, data, "bench", ctx), repeat)
        t_write = best(partial(write_bytecode, module), repeat)
        print(
            f"| {copies:>6} | {len(data):>8} | {n:>6} | {t_read * 1e3:>8.1f} | {t_write * 1e3:>8.1f} "
            f"| {t_read * 1e6 / n:>10.0f} | {t_write * 1e6 / n:>11.0f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
