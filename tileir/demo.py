"""`make demo`: compile a real cuTile kernel to PTX with `tileir-as`, check it with
ptxas, and show a short view of every stage.

    python -m tileir.demo [KERNEL.mlir] [--gpu-name sm_90a]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from tileir.backend.ptx.ptxas import find_ptxas, run_ptxas
from tileir.compiler import compile_module, load_module, resolve_gpu_name
from tileir.diagnostics import CompileError
from tileir.pipelines import STAGES

REPO = Path(__file__).resolve().parent.parent
DEFAULT_KERNEL = REPO / "tests" / "corpus" / "tanh_exp_f16_2d.mlir"
LINES_PER_STAGE = 14


def _excerpt(text: str, n: int) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    shown = [(line[:150] + " ...") if len(line) > 150 else line for line in lines[:n]]
    more = len(lines) - len(shown)
    if more > 0:
        shown.append(f"    ... ({more} more lines)")
    return "\n".join(shown)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("kernel", nargs="?", default=str(DEFAULT_KERNEL))
    p.add_argument("--gpu-name", default="sm_90a")
    p.add_argument("--out", default=str(REPO / "build" / "demo"))
    args = p.parse_args(argv)

    kernel = Path(args.kernel)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    ptx_path = out_dir / (kernel.stem + f".{args.gpu_name}.ptx")
    cubin_path = ptx_path.with_suffix(".cubin")

    print(f"== tileir demo: {kernel.relative_to(REPO) if kernel.is_relative_to(REPO) else kernel}")
    print(
        f"   (a cuTile Python kernel, exported to bytecode and printed by tileirdisasm; source: {kernel.with_suffix('.py').name})\n"
    )

    # 1. The real driver, as a user runs it.
    cmd = [
        sys.executable,
        "-m",
        "tileir.driver.assembler",
        str(kernel),
        "--gpu-name",
        args.gpu_name,
        "-o",
        str(ptx_path),
    ]
    print("$ tileir-as", " ".join(cmd[3:]))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        print(proc.stderr, file=sys.stderr)
        return 1
    print(f"   wrote {ptx_path}\n")

    # 2. ptxas is the judge.
    arch = resolve_gpu_name(args.gpu_name)
    ptxas = find_ptxas()
    report = run_ptxas(ptx_path.read_text(), arch, str(cubin_path))
    print(f"$ {Path(ptxas or 'ptxas').name} -arch={arch} -v {ptx_path.name} -o {cubin_path.name}")
    for line in report.output.strip().splitlines():
        print("   " + line)
    if not report.ok:
        print("ptxas rejected the PTX", file=sys.stderr)
        return 1
    for name, regs in report.registers.items():
        print(f"\n   kernel {name}: {regs} registers, {report.spills.get(name, 0)} bytes spilled")

    # 3. Every stage, briefly.
    try:
        result = compile_module(load_module(kernel), arch, keep_stages=True)
    except CompileError as e:
        print(e.format(), file=sys.stderr)
        return 1
    for stage in STAGES:
        print(f"\n-- stage {stage} " + "-" * (60 - len(stage)))
        print(_excerpt(result.stages[stage], LINES_PER_STAGE))
    print(f"\nPTX: {ptx_path}\ncubin: {cubin_path}")
    print(
        "Every stage in full: tileir-as KERNEL --gpu-name ARCH --emit=cuda_tile|tileaa|tileas|llvm|ptx"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
