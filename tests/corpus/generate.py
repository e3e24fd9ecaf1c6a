#!/usr/bin/env python3
"""Regenerate the cuTile kernel corpus: ``<name>.tileirbc`` and ``<name>.mlir``.

For every kernel module ``tests/corpus/<name>.py`` this script

1. exports Tile IR bytecode with ``cuda.tile.compilation.export_kernel`` to
   ``tests/corpus/<name>.tileirbc``;
2. writes ``tileirdisasm``'s text of it, unchanged, to ``tests/corpus/<name>.mlir``;
3. checks that the entry's parameters match ``flatten_args(make_inputs(...))``;
4. compiles the bytecode with NVIDIA's ``tileiras`` for the same GPU (runs on
   the CPU, no GPU needed) to make sure NVIDIA's own compiler accepts it;
   ``--no-tileiras`` skips this.

A kernel module that sets ``MIN_GPU`` (``"sm_100"``) is exported and compiled for
that GPU where ``--gpu`` names an older one.

Usage: ``python tests/corpus/generate.py [--only NAME ...] [--no-tileiras]``
(``make corpus`` runs it).  Needs the ``cutile`` extra: ``cuda-tile`` and
``nvidia-cuda-tileiras``.

Modules are loaded by a path relative to the repository root, so the source
locations recorded in the bytecode's debug info do not depend on where the
checkout lives.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

import numpy as np

CORPUS_DIR = Path(__file__).resolve().parent
REPO_ROOT = CORPUS_DIR.parents[1]
CORPUS_REL = CORPUS_DIR.relative_to(REPO_ROOT)

# Pinned so the committed bytecode does not change with the installed tileiras
# (cuTile otherwise asks tileiras for the newest version it accepts).
DEFAULT_BYTECODE_VERSION = "13.4"
DEFAULT_GPU = "sm_90"


def fail(message: str) -> None:
    print(f"generate.py: error: {message}", file=sys.stderr)
    raise SystemExit(1)


def find_tool(name: str) -> Path:
    """Locate an NVIDIA Tile IR tool: next to the ``nvidia.cu13`` package, then on PATH."""
    try:
        import nvidia.cu13 as cu13  # type: ignore[import-not-found]

        roots = [Path(p) for p in getattr(cu13, "__path__", [])]
        if getattr(cu13, "__file__", None):
            roots.append(Path(cu13.__file__).parent)  # type: ignore[arg-type]
        for root in roots:
            candidate = root / "bin" / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    except ImportError:
        pass
    found = shutil.which(name)
    if found:
        return Path(found)
    fail(
        f"'{name}' not found (looked in the nvidia.cu13 package and on PATH); "
        "install it with: pip install 'nvidia-cuda-tileiras>=13.1'  (or: pip install -e '.[cutile]')"
    )
    raise AssertionError("unreachable")


def require_cutile() -> None:
    try:
        import cuda.tile
        import cuda.tile.compilation  # noqa: F401
    except ImportError as exc:
        fail(
            f"cuTile Python is not installed ({exc}); "
            "install it with: pip install 'cuda-tile>=1.7'  (or: pip install -e '.[cutile]')"
        )
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        fail("ml_dtypes is not installed (it comes with cuda-tile); pip install ml_dtypes")


def load_module(name: str) -> ModuleType:
    """Load ``tests/corpus/<name>.py`` under a repository-relative file name."""
    # importlib would record an absolute file name, so compile the source
    # ourselves; cuTile reads the function's source back via linecache, which
    # resolves the relative name against the current directory (REPO_ROOT).
    rel_path = CORPUS_REL / f"{name}.py"
    abs_path = REPO_ROOT / rel_path
    module = ModuleType(name)
    module.__file__ = str(abs_path)
    sys.modules[name] = module
    code = compile(abs_path.read_text(), str(rel_path), "exec")
    exec(code, module.__dict__)
    return module


ENTRY_RE = re.compile(
    r"^\s*entry @(?P<name>[\w$.]+)\((?P<params>.*?)\)\s*(optimization_hints|\{)", re.M
)
PARAM_RE = re.compile(r"%\w+: (tile<[^%]*?>)(?:, |$)")


def entry_params(mlir: str) -> list[tuple[str, list[str]]]:
    """``(symbol, [param types])`` for each entry in tileirdisasm text."""
    entries = []
    for m in ENTRY_RE.finditer(mlir):
        entries.append((m.group("name"), PARAM_RE.findall(m.group("params"))))
    return entries


def check_entry(name: str, module: ModuleType, mlir: str) -> str:
    """Check the exported entry against ``flatten_args``; return its symbol."""
    import _common

    inputs = module.make_inputs(np.random.default_rng(0))
    expected = _common.entry_parameter_types(inputs)
    entries = entry_params(mlir)
    if len(entries) != 1:
        fail(f"{name}: expected exactly one entry in the disassembly, found {len(entries)}")
    symbol, types = entries[0]
    if types != expected:
        fail(f"{name}: entry parameters {types} do not match flatten_args types {expected}")
    if symbol != _common.entry_symbol(module):
        fail(f"{name}: entry symbol {symbol} != {_common.entry_symbol(module)}")
    return symbol


def sm_number(gpu: str) -> int:
    """``sm_90a`` -> 90."""
    return int(gpu.removeprefix("sm_").rstrip("a"))


def generate(
    name: str, *, gpu: str, bytecode_version: str, disasm: Path, tileiras: Path | None
) -> None:
    from cuda.tile.compilation import export_kernel

    module = load_module(name)
    # A kernel cuTile (or tileiras) accepts only from some GPU on is exported and checked
    # for that GPU instead of an older one.
    least = getattr(module, "MIN_GPU", gpu)
    if sm_number(gpu) < sm_number(least):
        gpu = least
    bc_path = CORPUS_DIR / f"{name}.tileirbc"
    mlir_path = CORPUS_DIR / f"{name}.mlir"

    export_kernel(
        module.KERNEL,
        module.signatures(),
        str(bc_path),
        output_format="tileir_bytecode",
        gpu_code=gpu,
        bytecode_version=bytecode_version,
    )
    res = subprocess.run([str(disasm), str(bc_path)], capture_output=True, text=True)
    if res.returncode != 0:
        fail(f"{name}: tileirdisasm failed:\n{res.stderr}")
    mlir_path.write_text(res.stdout)
    symbol = check_entry(name, module, res.stdout)

    status = ""
    if tileiras is not None:
        with tempfile.TemporaryDirectory() as tmp:
            cubin = Path(tmp) / f"{name}.cubin"
            res = subprocess.run(
                [str(tileiras), str(bc_path), "--gpu-name", gpu, "-o", str(cubin)],
                capture_output=True,
                text=True,
            )
            if res.returncode != 0 or not cubin.is_file():
                fail(f"{name}: tileiras failed:\n{res.stdout}{res.stderr}")
            status = f", tileiras ok ({cubin.stat().st_size} B cubin)"
    print(f"{name}: {bc_path.stat().st_size} B bytecode, entry @{symbol}{status}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="regenerate only this kernel (repeatable)"
    )
    parser.add_argument("--gpu", default=DEFAULT_GPU, help=f"gpu_code (default {DEFAULT_GPU})")
    parser.add_argument(
        "--bytecode-version",
        default=DEFAULT_BYTECODE_VERSION,
        help=f"Tile IR bytecode version (default {DEFAULT_BYTECODE_VERSION})",
    )
    parser.add_argument(
        "--no-tileiras",
        action="store_true",
        help="skip compiling each kernel with NVIDIA's tileiras",
    )
    args = parser.parse_args(argv)

    require_cutile()
    disasm = find_tool("tileirdisasm")
    tileiras = None if args.no_tileiras else find_tool("tileiras")

    # Run from the repository root: debug info records tests/corpus/<name>.py.
    os.chdir(REPO_ROOT)
    sys.path.insert(0, str(CORPUS_DIR))
    import _common

    names = _common.kernel_names()
    if args.only:
        unknown = sorted(set(args.only) - set(names))
        if unknown:
            fail(f"unknown kernel(s) {unknown}; available: {', '.join(names)}")
        names = [n for n in names if n in args.only]
    for name in names:
        generate(
            name,
            gpu=args.gpu,
            bytecode_version=args.bytecode_version,
            disasm=disasm,
            tileiras=tileiras,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
