"""Every cuTile kernel's text, as tileirdisasm printed it, prints back from `tileir-opt`
line for line (SSA names aside), and so does its generic form parsed back.

The kernels: the corpus (`tests/corpus/*.mlir`) and the cuTile exports of the bytecode
fixtures (`tests/pytest/bytecode_fixtures/cutile/*.mlir`, tileirdisasm 13.5's text of
bytecode 13.1 to 13.4).  Texts that are identical are checked once.  The driver runs
in-process (`tileir.driver.opt.run`), exactly as the `tileir-opt` command does.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import re
import sys
from pathlib import Path

import pytest

from tileir.driver.opt import run

TESTS = Path(__file__).resolve().parents[1]
SOURCES = [
    *sorted((TESTS / "corpus").glob("*.mlir")),
    *sorted((TESTS / "pytest" / "bytecode_fixtures" / "cutile").glob("*.mlir")),
]


def _unique(paths: list[Path]) -> list[Path]:
    seen: set[str] = set()
    kept: list[Path] = []
    for path in paths:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            kept.append(path)
    return kept


KERNELS = _unique(SOURCES)

#: An SSA value name (`%tile_7`, `%0`, `%arg3`, `%cst_1_i32`); `#2` result suffixes stay.
SSA_NAME = re.compile(r"%[A-Za-z0-9_$.\-]+")


def without_ssa_names(lines: list[str]) -> list[str]:
    return [SSA_NAME.sub("%_", line) for line in lines]


def tileir_opt(args: list[str], stdin: str | None = None) -> str:
    """Run tileir-opt in-process; its stdout (the test fails on a non-zero exit)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    if stdin is not None:
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = run(args)
    finally:
        sys.stdin = saved
    assert status == 0, err.getvalue()
    return out.getvalue()


def kernel_lines(printed: str) -> list[str]:
    """The body of the printed `cuda_tile.module`, unindented: tileirdisasm prints a
    bare `entry` (and `global`), which tileir wraps in `cuda_tile.module @kernels`."""
    lines = printed.rstrip("\n").splitlines()
    start = next(i for i, line in enumerate(lines) if "cuda_tile.module" in line) + 1
    body = lines[start:-2]  # the closing braces of cuda_tile.module and builtin.module
    indent = len(body[0]) - len(body[0].lstrip())
    assert all(not line[:indent].strip() for line in body)
    return [line[indent:] for line in body]


def assert_same_lines(printed: list[str], original: list[str]) -> None:
    expected, got = without_ssa_names(original), without_ssa_names(printed)
    for number, (want, have) in enumerate(zip(expected, got, strict=False), start=1):
        assert have == want, (
            f"line {number} differs:\n  tileirdisasm: {want}\n  tileir-opt:   {have}"
        )
    assert len(got) == len(expected), f"{len(got)} lines printed, {len(expected)} expected"


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.name)
def test_prints_back_like_tileirdisasm(kernel: Path) -> None:
    original = kernel.read_text().splitlines()
    assert_same_lines(kernel_lines(tileir_opt([str(kernel)])), original)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: p.name)
def test_generic_form_parses_back(kernel: Path) -> None:
    original = kernel.read_text().splitlines()
    generic = tileir_opt([str(kernel), "--print-op-generic"])
    assert '"cuda_tile.entry"' in generic
    assert_same_lines(kernel_lines(tileir_opt([], stdin=generic)), original)


def test_ssa_names_are_not_all_that_is_compared() -> None:
    """The comparison sees everything but SSA names: spacing counts."""
    assert without_ssa_names(["%a = addf %b, %c  : tile<f32>"]) != without_ssa_names(
        ["%a = addf %b, %c : tile<f32>"]
    )
