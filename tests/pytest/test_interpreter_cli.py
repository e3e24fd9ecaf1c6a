"""`tileir-run`: argument specs, output, and diagnostics (never tracebacks)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.interpreter.cli import main

FIXTURES = Path(__file__).resolve().parent / "bytecode_fixtures" / "cutile"
PRINTING = str(FIXTURES / "printing.13.3.tileirbc")
CONTROL = str(FIXTURES / "control_flow.13.3.tileirbc")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


def test_prints_and_arrays(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([PRINTING, "--grid", "2", "cutile:arange:100"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("block 0 sum 2016.000000\nblock 1 sum 2934.000000\narg0: float32[100] =")


def test_save_and_scalars(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = [CONTROL, "cutile:full=3:64", "cutile:zeros:64", "5", "4.5", "--print", "none"]
    code, out, err = run([*argv, "--save", str(tmp_path)], capsys)
    assert (code, out, err) == (0, "", "")
    np.testing.assert_array_equal(np.load(tmp_path / "arg3.npy"), np.full(64, 4.5, np.float32))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["missing.mlir"], "error: no such file: missing.mlir"),
        ([PRINTING, "cutile:arnge:100"], "unknown initializer 'arnge'"),
        ([PRINTING, "cutile:zeros:1x"], "bad shape '1x'"),
        ([PRINTING, "cutile:arange:100", "5"], "too many arguments"),
        ([PRINTING, "--grid", "0", "cutile:zeros:4"], "--grid '0'"),
        ([CONTROL, "cutile:zeros:64", "cutile:zeros:64", "7.5", "1"], "expected an int, got float"),
        ([CONTROL, "cutile:zeros:64", "cutile:zeros:64", "7"], "takes 8 argument(s), got 7"),
    ],
)
def test_diagnostics(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, capsys)
    assert code == 1
    assert message in err
    assert "Traceback" not in err


def test_a_block_past_the_index_space_loads_padding(capsys: pytest.CaptureFixture[str]) -> None:
    """Three blocks over 100 elements in 64-element tiles: block 2's tile lies wholly
    outside the view's index space, so it loads only padding (zeros) and sums to 0
    (docs/interpreter.md; it was an error before tileiras's behaviour was adopted)."""
    code, out, err = run([PRINTING, "--grid", "3", "cutile:arange:100"], capsys)
    assert code == 0, err
    assert "block 2 sum 0.000000" in out


def test_npy_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    argv = [CONTROL, f"cutile:{tmp_path / 'x.npy'}", "cutile:zeros:64", "1", "0.5"]
    code, _, err = run([*argv, "--print", "none", "--save", str(tmp_path / "out")], capsys)
    assert (code, err) == (0, "")
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "arg3.npy"), np.minimum(x - 1, 0.5))
    np.save(tmp_path / "i.npy", x.astype(np.int32))
    code, _, err = run(
        [CONTROL, f"cutile:{tmp_path / 'i.npy'}", "cutile:zeros:64", "1", "0.5"], capsys
    )
    assert code == 1 and "holds int32, the parameter wants float32" in err
