"""Shared helpers of the bytecode tests (test_bytecode_*.py)."""

from __future__ import annotations

import atexit
import functools
import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import pytest
from xdsl.ir import Operation

from tileir.bytecode import BytecodeError, parse_version, read_bytecode
from tileir.bytecode.version import BytecodeVersion
from tileir.printing import TileirPrinter
from tileir.registry import make_context

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
FIXTURES = Path(__file__).resolve().parent / "bytecode_fixtures"
CUTILE = FIXTURES / "cutile"
INVALID = FIXTURES / "invalid"
#: NVIDIA's cuda-tile repository, for the tests that compare with its own files: the
#: variable's value, else a copy fetched to `build/cuda-tile` (docs/testing.md).
CUDA_TILE_VARIABLE = "TILEIR_CUDA_TILE"
FETCHED_CUDA_TILE = ROOT / "build" / "cuda-tile"

CORPUS_FILES = sorted(CORPUS.glob("*.tileirbc"))
CUTILE_FILES = sorted(CUTILE.glob("*.tileirbc"))
ALL_FILES = CORPUS_FILES + CUTILE_FILES

CTX = make_context()


@functools.cache
def _cuda_tile_tree() -> Path | None:
    """A directory holding NVIDIA's cuda-tile files: the checkout itself, or, for a git
    directory (a bare mirror), its `HEAD`'s `include/` and `test/` extracted once into
    a temporary directory.  None when neither the variable nor the fetched copy is
    there; a variable naming something else is an error, not a skip."""
    named = os.environ.get(CUDA_TILE_VARIABLE)
    where = Path(named) if named else FETCHED_CUDA_TILE
    if not where.exists():
        if named:
            raise FileNotFoundError(f"{CUDA_TILE_VARIABLE}={named}: no such directory")
        return None
    if (where / "include").is_dir() and (where / "test").is_dir():
        return where
    git = shutil.which("git")
    if git is None or not (where / "HEAD").is_file():
        raise FileNotFoundError(f"{where} is neither a cuda-tile checkout nor a git directory")
    archive = subprocess.run(
        [git, "--git-dir", str(where), "archive", "--format=tar", "HEAD", "include", "test"],
        capture_output=True,
        check=True,
    ).stdout
    out = Path(tempfile.mkdtemp(prefix="tileir-cuda-tile-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(out, filter="data")
    return out


def nvidia_path(relative: str) -> Path:
    """`relative` in NVIDIA's cuda-tile tree; skips the test when no tree is given (set
    TILEIR_CUDA_TILE to a checkout or git directory, or fetch one to build/cuda-tile),
    fails it when the tree lacks the file."""
    tree = _cuda_tile_tree()
    if tree is None:
        pytest.skip(
            f"NVIDIA's cuda-tile tree: set {CUDA_TILE_VARIABLE} or fetch it to "
            f"{FETCHED_CUDA_TILE.relative_to(ROOT)} (docs/testing.md)"
        )
    path = tree / relative
    assert path.exists(), f"{relative} is not in NVIDIA's cuda-tile tree at {tree}"
    return path


def file_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def file_version(path: Path) -> BytecodeVersion:
    data = path.read_bytes()
    return parse_version(f"{data[8]}.{data[9]}")


def printed(op: Operation, *, generic: bool = False, debuginfo: bool = False) -> str:
    out = io.StringIO()
    TileirPrinter(stream=out, print_generic_format=generic, print_debuginfo=debuginfo).print_op(op)
    return out.getvalue()


def entry_lines(text: str) -> list[str]:
    """The body of the printed cuda_tile.module, unindented (tileirdisasm's form)."""
    lines = text.rstrip("\n").splitlines()
    start = next(i for i, line in enumerate(lines) if "cuda_tile.module" in line) + 1
    body = lines[start:-2]
    indent = len(body[0]) - len(body[0].lstrip())
    return [line[indent:] for line in body]


def read_any(data: bytes, name: str = "<bytecode>") -> tuple[Operation, bool]:
    """Read with tileir's ops; if some op has no class yet, read it unregistered.
    Returns the module and whether every op was known.  A type tileir has no class for
    (types cannot be unregistered) is an error, as any other."""
    try:
        return read_bytecode(data, name, CTX), True
    except BytecodeError as e:
        if "is not supported by tileir yet" not in e.message or UNSUPPORTED_TYPE.search(e.message):
            raise
    return read_bytecode(data, name, CTX, allow_unregistered=True, verify=False), False


UNSUPPORTED_TYPE = re.compile(r"type \w+ is not supported by tileir yet")


def readable(path: Path) -> bool:
    """False for a file using a type tileir has no class for yet."""
    try:
        read_bytecode(path.read_bytes(), str(path), CTX, allow_unregistered=True, verify=False)
    except BytecodeError as e:
        return not UNSUPPORTED_TYPE.search(e.message)
    return True


def nvidia_tool(name: str) -> Path | None:
    """NVIDIA's tileirdisasm / tileiras (the `cutile` extra), or None."""
    try:
        import nvidia.cu13 as cu13  # type: ignore[import-not-found]

        for root in getattr(cu13, "__path__", []):
            candidate = Path(root) / "bin" / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return candidate
    except ImportError:
        pass
    found = shutil.which(name)
    return Path(found) if found else None


def disassemble(data: bytes, tmp: Path) -> subprocess.CompletedProcess[str]:
    tool = nvidia_tool("tileirdisasm")
    assert tool is not None
    path = tmp / "k.tileirbc"
    path.write_bytes(data)
    return subprocess.run([str(tool), str(path)], capture_output=True, text=True)


def ir_shape(module: Operation) -> list[tuple[object, ...]]:
    """A comparable summary of a module: per op (in walk order) its name, operands (as
    value numbers), result types, properties, attributes and region structure.  Unlike
    printed text it ignores property order and SSA names."""
    from xdsl.dialects.builtin import UnregisteredOp

    numbers: dict[object, int] = {}

    def number(v: object) -> int:
        return numbers.setdefault(v, len(numbers))

    shape: list[tuple[object, ...]] = []
    for op in module.walk():
        name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
        blocks = tuple(
            tuple(a.type for a in block.args) for region in op.regions for block in region.blocks
        )
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    number(arg)
        operands = tuple(number(v) for v in op.operands)
        for r in op.results:
            number(r)
        attributes = {k: _comparable(v) for k, v in op.attributes.items() if k != "op_name__"}
        properties = {k: _comparable(v) for k, v in op.properties.items()}
        shape.append(
            (name, operands, tuple(r.type for r in op.results), properties, attributes, blocks)
        )
    return shape


def _comparable(attr: object) -> object:
    """Optimization hints compare as text: tileirdisasm prints hint integers without
    their type (cuTile writes i32), so text gives i64 where bytecode gives i32."""
    from tileir.dialects.cuda_tile.attributes import OptimizationHintsAttr

    return str(attr) if isinstance(attr, OptimizationHintsAttr) else attr
