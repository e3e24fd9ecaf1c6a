"""Run NVIDIA's cuda_tile dialect tests against tileir-opt with tileir's tool mappings.

The shared harness (`shared/tools/cuda_tile_conformance.py`) leaves the mapping of
`cuda-tile-translate` bytecode modes and of cuda-tile-opt's test-only flags "to be
decided" by the compiler under test, and skips the RUN lines that need them. tileir has
all of them, so this wrapper fills the two tables in and runs the harness unchanged:

    .venv/bin/python tools/conformance.py --repo /work/.mirror/NVIDIA+cuda-tile/repo \\
        --tool .venv/bin/tileir-opt --checkout . --diag-mode tool

`--harness PATH` points at another copy of the harness (default: ../shared/tools/).

Without `--filecheck`, LLVM's FileCheck is used where one is installed (`FileCheck` on
PATH, else the newest `/usr/lib/llvm-*/bin/FileCheck`: Debian's `llvm-NN-tools`): the
Python clone the harness defaults to scopes a `CHECK-NOT` up to the end of the next
match's line instead of its start, so `CHECK-NOT: if` before
`CHECK: cuda_tile.module @supported_split_inner_if` fails on the module's own name
(test/Transforms/loop_split.mlir), where LLVM's FileCheck, which the tests are written
for, passes.

The tests are NVIDIA's test build (`CUDA_TILE_ENABLE_TESTING`, which defines
`TILE_IR_INCLUDE_TESTS`) of the release the checkout describes, so tileir-opt runs as
that build: `TILEIR_INCLUDE_TESTS=1` (the test-only bytecode versions 250.0 and 250.1
and the `testing$` ops) and `TILEIR_BYTECODE_NEWEST` set to the newest release version
the checkout's `BytecodeOpcodes.td` lists (its messages quote `[13.1 - 13.3]`, and
opcode 0x54 reads back under that release's name, `pow`); a variable the environment
sets already is kept.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

DEFAULT_HARNESS = (
    Path(__file__).resolve().parents[2] / "shared" / "tools" / "cuda_tile_conformance.py"
)

#: cuda-tile-translate modes -> tileir-opt arguments (docs/conformance.md).
BYTECODE_MAP: dict[str, list[str] | None] = {
    "mlir-to-cudatilebc": ["-t", "tileirbc"],
    "cudatilebc-to-mlir": ["-f", "tileirbc"],
    "test-cudatile-roundtrip": ["--bytecode-roundtrip"],
    "list-versions": ["--list-bytecode-versions"],
}

#: cuda-tile-opt test-only flags -> tileir-opt arguments.
FLAG_MAP: dict[str, list[str] | None] = {
    "test-debuginfo-update-symbol-name": ["--test-debuginfo-update-symbol-name={value}"],
}


def llvm_filecheck() -> str | None:
    """LLVM's FileCheck: on PATH, else the newest Debian llvm-NN-tools one."""
    found = shutil.which("FileCheck")
    if found:
        return found
    versions = sorted(
        Path("/usr/lib").glob("llvm-*/bin/FileCheck"),
        key=lambda p: int(m.group(1)) if (m := re.search(r"llvm-(\d+)", str(p))) else 0,
    )
    return str(versions[-1]) if versions else None


OPCODES_TD = "include/cuda_tile/Dialect/CudaTile/IR/BytecodeOpcodes.td"


def newest_release(repo: str, rev: str) -> str | None:
    """The newest public `SupportedVersion<major, minor>` of the checkout at `rev`
    (the test-only 250.x excluded), or None when it cannot be read."""
    proc = subprocess.run(
        ["git", "-C", repo, "show", f"{rev}:{OPCODES_TD}"], capture_output=True, text=True
    )
    if proc.returncode != 0:
        return None
    found = [
        (int(a), int(b))
        for a, b in re.findall(r"SupportedVersion<\s*(\d+)\s*,\s*(\d+)\s*>", proc.stdout)
        if int(a) < 250
    ]
    return "{}.{}".format(*max(found)) if found else None


def _option(argv: list[str], name: str, default: str) -> str:
    for i, a in enumerate(argv):
        if a == name and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def main(argv: list[str]) -> int:
    harness = DEFAULT_HARNESS
    if "--harness" in argv:
        at = argv.index("--harness")
        harness = Path(argv[at + 1])
        argv = argv[:at] + argv[at + 2 :]
    if not harness.is_file():
        print(
            f"error: the conformance harness is not at {harness}; give --harness PATH",
            file=sys.stderr,
        )
        return 2
    spec = importlib.util.spec_from_file_location("cuda_tile_conformance", harness)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if not any(a == "--filecheck" or a.startswith("--filecheck=") for a in argv):
        filecheck = llvm_filecheck()
        if filecheck is not None:
            argv = [*argv, "--filecheck", filecheck]
    os.environ.setdefault("TILEIR_INCLUDE_TESTS", "1")
    repo = _option(argv, "--repo", os.environ.get("CUDA_TILE_REPO", "cuda-tile"))
    release = newest_release(repo, _option(argv, "--rev", "HEAD"))
    if release is not None:
        os.environ.setdefault("TILEIR_BYTECODE_NEWEST", release)
    module.BYTECODE_MAP.update(BYTECODE_MAP)
    module.FLAG_MAP.update(FLAG_MAP)
    return int(module.main(argv))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
