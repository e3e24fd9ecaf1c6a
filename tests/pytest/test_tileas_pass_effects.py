"""`tools/tileas_pass_effects.py` (the table of what each seed nv_tileas pass does to the
corpus, in docs/pipeline.md) still runs, on three kernels: an elementwise one, a loop
and a GEMM."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import tileas_pass_effects  # noqa: E402  # pyright: ignore[reportMissingImports]


def rows(table: str) -> dict[str, list[str]]:
    """kernel -> its cells, from the markdown table."""
    out: dict[str, list[str]] = {}
    for line in table.splitlines()[2:]:
        if not line.startswith("| "):
            break
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        out[cells[0]] = cells[1:]
    return out


def test_the_table_over_three_kernels(capsys: pytest.CaptureFixture[str]) -> None:
    kernels = ["vadd_f32", "row_sum_loop_f32", "gemm_f16"]
    assert tileas_pass_effects.main([*kernels, "--arch", "sm_80"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    for name in tileas_pass_effects.SEED_PASSES:
        assert f"`{name}`" in header
    table = rows(out)
    assert list(table) == kernels
    assert all(len(cells) == len(tileas_pass_effects.SEED_PASSES) for cells in table.values())
    # No loop, slice or conversion: nothing for any pass to do.
    assert table["vadd_f32"] == ["nothing"] * len(tileas_pass_effects.SEED_PASSES)
    # A loop gets its schedule recorded.
    schedule = tileas_pass_effects.SEED_PASSES.index("tileas-materialize-schedule")
    assert "nv_tileas.schedule on scf.for" in table["row_sum_loop_f32"][schedule]
    assert "changed" in out.splitlines()[-1]


def test_a_change_is_described_by_op_names() -> None:
    from tileir.compiler import parse_module_text

    before = parse_module_text("func.func @f() {\n  func.return\n}\n", "before.mlir")
    after = parse_module_text(
        "func.func @f() {\n  %0 = arith.constant 1 : i32\n  func.return\n}\n", "after.mlir"
    )
    assert tileas_pass_effects.describe_change(before, before.clone()) == "nothing"
    assert tileas_pass_effects.describe_change(before, after) == "+1 arith.constant"
    assert tileas_pass_effects.describe_change(after, before) == "-1 arith.constant"
