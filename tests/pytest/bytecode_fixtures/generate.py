#!/usr/bin/env python3
"""Export the bytecode fixtures under ``cutile/`` with NVIDIA's cuTile Python.

For every kernel of ``kernels.py`` and every bytecode version it can be written in
(13.1 to 13.4), and for some corpus kernels, write ``cutile/<name>.<version>.tileirbc``
and NVIDIA's ``tileirdisasm`` text of it (``.mlir``).  From 13.3 on, an
architecture-independent export (``gpu_code=None``) is made too and kept as
``<name>.<version>.noarch.tileirbc`` when it differs from the ``sm_90`` export (with
cuTile 1.7 it never has: the bytes are identical).  Needs the ``cutile`` extra; no GPU.

    python tests/pytest/bytecode_fixtures/generate.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
OUT = HERE / "cutile"
VERSIONS = ("13.1", "13.2", "13.3", "13.4")
#: Corpus kernels exported at every version (the corpus itself is 13.4 only).
CORPUS = ("vadd_f32", "int32_ops", "tanh_exp_f16_2d", "grid_stride_f16_2d", "logistic_f32")


def _load_kernels() -> ModuleType:
    """Import kernels.py under its repository-relative name, so the debug info in the
    fixtures does not depend on where the checkout lives (as tests/corpus does)."""
    rel = HERE.relative_to(REPO) / "kernels.py"
    module = ModuleType("kernels")
    module.__file__ = str(REPO / rel)
    sys.modules["kernels"] = module
    exec(compile((REPO / rel).read_text(), str(rel), "exec"), module.__dict__)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME")
    args = parser.parse_args(argv)

    os.chdir(REPO)  # debug info records repository-relative file names
    sys.path.insert(0, str(REPO / "tests" / "corpus"))
    sys.path.insert(0, str(HERE))
    import importlib.util

    from cuda.tile.compilation import export_kernel

    spec = importlib.util.spec_from_file_location(
        "corpus_generate", REPO / "tests" / "corpus" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    corpus_generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpus_generate)
    kernels = _load_kernels()

    disasm = corpus_generate.find_tool("tileirdisasm")
    OUT.mkdir(exist_ok=True)

    jobs: list[tuple[str, object, list[object], str, str]] = []
    for name, (kernel, _, first, *_rest) in kernels.KERNELS.items():
        jobs.append((name, kernel, [kernels.signature(name)], first, kernels.gpu(name)))
    for name in CORPUS:
        module = corpus_generate.load_module(name)
        jobs.append((name, module.KERNEL, module.signatures(), "13.1", "sm_90"))

    for name, kernel, signatures, first, arch in jobs:
        if args.only and name not in args.only:
            continue
        for version in VERSIONS:
            if version < first:
                continue
            for gpu in (arch, None):
                if gpu is None and version < "13.3":
                    continue
                stem = f"{name}.{version}" + ("" if gpu else ".noarch")
                path = OUT / f"{stem}.tileirbc"
                try:
                    export_kernel(
                        kernel,
                        signatures,
                        str(path),
                        output_format="tileir_bytecode",
                        gpu_code=gpu,
                        bytecode_version=version,
                    )
                except Exception as e:  # a feature the version lacks
                    print(f"{stem}: skipped ({type(e).__name__}: {str(e).splitlines()[0]})")
                    path.unlink(missing_ok=True)
                    continue
                if gpu is None:
                    with_arch = OUT / f"{name}.{version}.tileirbc"
                    if with_arch.is_file() and with_arch.read_bytes() == path.read_bytes():
                        # cuTile 1.7 writes the same bytes with and without an architecture.
                        path.unlink()
                        print(f"{stem}: identical to {with_arch.name}, not kept")
                        continue
                res = subprocess.run([str(disasm), str(path)], capture_output=True, text=True)
                if res.returncode != 0:
                    print(f"{stem}: tileirdisasm failed:\n{res.stderr}", file=sys.stderr)
                    return 1
                (OUT / f"{stem}.mlir").write_text(res.stdout)
                print(f"{stem}: {path.stat().st_size} B")
    return 0


if __name__ == "__main__":
    sys.exit(main())
