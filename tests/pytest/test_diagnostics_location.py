"""Where a diagnostic points in a cuTile kernel (`tileir/diagnostics.py`).

cuTile locates the ops it builds inside its own functions (`astype`, `mma`, ... in
`cuda/tile/_stub.py`) with a call-site location, `callsite(stub at user line)`, and the
ops of an inlined user helper with `callsite(helper line at kernel line)`.  An error,
a remark or a `.loc` line reports the innermost frame that is the user's: the line that
called into cuTile.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    FileLineColLoc,
    FusedLoc,
    IntAttr,
    NameLoc,
    NoneAttr,
    StringAttr,
    UnknownLoc,
)

from tileir.compiler import compile_module, load_module
from tileir.diagnostics import CompileError, SourceLocation, frames_of, location_of
from tileir.dialects.cuda_tile import ops as ct

TESTS = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
STUB = "/venv/lib/python3.11/site-packages/cuda/tile/_stub.py"
FIXTURE = TESTS / "pytest" / "cutile_diagnostics" / "int_to_f8.py"


def loc(file: str, line: int, column: int = 1) -> FileLineColLoc:
    return FileLineColLoc(StringAttr(file), IntAttr(line), IntAttr(column))


def where(location: object) -> SourceLocation | None:
    op = ct.MakeTokenOp.create(result_types=[])
    op.location = location  # pyright: ignore[reportAttributeAccessIssue]
    return location_of(op)


def line_of(path: Path, text: str) -> int:
    lines = path.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line and "def " not in line)


def test_a_call_into_cutile_is_reported_at_the_users_line() -> None:
    at = where(CallSiteLoc(loc(STUB, 676, 5), loc("k.py", 17, 14)))
    assert at == SourceLocation("k.py", 17, 14)


def test_an_inlined_helper_is_reported_at_the_helpers_line() -> None:
    helper = CallSiteLoc(loc("helpers.py", 8, 11), loc("k.py", 13, 8))
    assert where(helper) == SourceLocation("helpers.py", 8, 11)
    # cuTile's function called from the helper called from the kernel: the helper's line.
    nested = CallSiteLoc(CallSiteLoc(loc(STUB, 676, 5), loc("helpers.py", 8, 11)), loc("k.py", 13))
    assert where(nested) == SourceLocation("helpers.py", 8, 11)
    assert [f.line for f in frames_of(nested)] == [676, 8, 13]


def test_without_a_user_frame_the_innermost_one() -> None:
    assert where(CallSiteLoc(loc(STUB, 676, 5), loc(STUB, 900))) == SourceLocation(STUB, 676, 5)
    assert where(CallSiteLoc(UnknownLoc(), loc("k.py", 3))) == SourceLocation("k.py", 3, 1)
    assert where(UnknownLoc()) is None


def test_fused_and_named_locations() -> None:
    fused = FusedLoc(ArrayAttr([loc(STUB, 10), loc("k.py", 4)]), NoneAttr())
    assert where(fused) == SourceLocation("k.py", 4, 1)
    assert where(NameLoc(StringAttr("k"), loc("k.py", 2))) == SourceLocation("k.py", 2, 1)
    windows = "C:\\env\\Lib\\site-packages\\cuda\\tile\\_stub.py"
    assert where(CallSiteLoc(loc(windows, 1), loc("k.py", 9))) == SourceLocation("k.py", 9, 1)


def test_unsupported_op_in_a_cutile_kernel_is_reported_at_the_users_line() -> None:
    """`int_to_f8.tileirbc` (cuTile 1.7): `astype(ct.float8_e4m3fn)` on an i32 tile is an
    `itof` to f8E4M3FN, which tileir does not compile yet; its location is
    `callsite(_stub.py at int_to_f8.py:LINE)`, and tileir-as reports LINE."""
    bytecode = FIXTURE.with_suffix(".tileirbc")
    line = line_of(FIXTURE, "t.astype(ct.float8_e4m3fn)")
    with pytest.raises(CompileError, match=r"'cuda_tile\.itof' op is not supported") as info:
        compile_module(load_module(bytecode), "sm_80")
    assert info.value.location == SourceLocation(
        "tests/pytest/cutile_diagnostics/int_to_f8.py", line, 24
    )
    result = subprocess.run(
        [str(BIN / "tileir-as"), str(bytecode), "--gpu-name", "sm_90a", "-o", "/dev/null"],
        capture_output=True,
        text=True,
        env={**os.environ, "TILEIR_ERROR_FORMAT": "mlir"},
    )
    assert result.returncode == 1
    assert result.stderr.startswith(f"tests/pytest/cutile_diagnostics/int_to_f8.py:{line}:24: ")
    assert "_stub.py" not in result.stderr


def test_line_info_of_a_cutile_kernel_names_only_user_files(tmp_path: Path) -> None:
    """`gemm_tf32`'s `ftof` ops come from cuTile's `astype`: with `--lineinfo` their
    `.loc` lines are the kernel's `astype` line, and no `.file` is cuTile's."""
    ptx = tmp_path / "k.ptx"
    subprocess.run(
        [
            str(BIN / "tileir-as"),
            str(TESTS / "corpus" / "gemm_tf32.tileirbc"),
            "--gpu-name",
            "sm_80",
            "--lineinfo",
            "-o",
            str(ptx),
        ],
        check=True,
    )
    text = ptx.read_text()
    files = [line for line in text.splitlines() if line.startswith(".file")]
    assert files == ['.file 1 "tests/corpus/gemm_tf32.py"']
    line = line_of(TESTS / "corpus" / "gemm_tf32.py", "ta.astype(ct.tfloat32)")
    assert f".loc 1 {line} " in text
