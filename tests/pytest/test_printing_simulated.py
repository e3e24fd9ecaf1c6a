"""print_tko and assert compiled to PTX and run in the PTX simulator (which models
`vprintf` and `__assertfail`, tileir/testing/ptx_calls.py), against the interpreter:
the same text (tile elements in any order, since threads print in parallel), each
element of a replicated tile printed once, and a failing assert stopping the launch with
its message."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.interpreter import KernelAssertionError, launch
from tileir.testing import SimulationError, simulate

FIXTURES = Path(__file__).parent / "bytecode_fixtures" / "cutile"


def _ptx(path: Path, arch: str = "sm_90a") -> str:
    ptx = compile_module(load_module(path), arch).ptx
    assert ptx is not None
    return ptx


def _interpreted(path: Path, grid: int, *args: object) -> str:
    out = io.StringIO()
    launch(path, grid, *args, out=out)
    return out.getvalue()


@pytest.mark.parametrize("version", [2, 3, 4])
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_printing_export_prints_like_the_interpreter(version: int, arch: str) -> None:
    path = FIXTURES / f"printing.13.{version}.mlir"
    a = np.random.default_rng(version).standard_normal(150).astype(np.float32)
    printed: list[str] = []
    simulate(_ptx(path, arch), (3, 1, 1), [a, 150, 1], printed=printed)
    assert "".join(printed) == _interpreted(path, 3, a, 150, 1)


def test_printing_13_1_with_its_global_lock() -> None:
    # One block: the simulator runs the lowest program counter first, so a second
    # block spinning on the lock would starve the holder.
    path = FIXTURES / "printing.13.1.mlir"
    a = np.arange(64, dtype=np.float32)
    printed: list[str] = []
    simulate(_ptx(path), (1, 1, 1), [a, 64, 1], printed=printed)
    assert "".join(printed) == _interpreted(path, 1, a, 64, 1) == "block 0 sum 2016.000000\n"


TILES = """
entry @k(%x: tile<ptr<f32>>, %n: tile<i64>) {
  %t = make_token : token
  %i = iota : tile<SIZExi32>
  %xb = reshape %x : tile<ptr<f32>> -> tile<1xptr<f32>>
  %xs = broadcast %xb : tile<1xptr<f32>> -> tile<SIZExptr<f32>>
  %xp = offset %xs, %i : tile<SIZExptr<f32>>, tile<SIZExi32> -> tile<SIZExptr<f32>>
  %v, %t1 = load_ptr_tko weak %xp token=%t : tile<SIZExptr<f32>> -> tile<SIZExf32>, token
  %h = ftof %v : tile<SIZExf32> -> tile<SIZExf16>
  %0 = print_tko "x[%d] = %.3f (%e) n=%lld %x%%\\0A", %i, %v, %h, %n, %i token=%t1 : tile<SIZExi32>, tile<SIZExf32>, tile<SIZExf16>, tile<i64>, tile<SIZExi32> -> token
  %1 = print_tko "done %d\\0A", %n token=%0 : tile<i64> -> token
  return
}
"""


@pytest.mark.parametrize("size", [8, 64, 512])
def test_tile_prints_every_element_once(tmp_path: Path, size: int) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(TILES.replace("SIZE", str(size)))
    x = np.random.default_rng(size).standard_normal(size).astype(np.float32)
    printed: list[str] = []
    simulate(_ptx(path), (1, 1, 1), [x, -(2**40)], printed=printed)
    expected = _interpreted(path, 1, x, -(2**40))
    device = "".join(printed)
    assert sorted(device.splitlines()) == sorted(expected.splitlines())
    assert device.endswith(f"done {-(2**40)}\n")  # once, after every element


ASSERT = """
entry @k(%x: tile<ptr<i32>>, %limit: tile<i32>) {
  %t = make_token : token
  %i = iota : tile<64xi32>
  %xb = reshape %x : tile<ptr<i32>> -> tile<1xptr<i32>>
  %xs = broadcast %xb : tile<1xptr<i32>> -> tile<64xptr<i32>>
  %xp = offset %xs, %i : tile<64xptr<i32>>, tile<64xi32> -> tile<64xptr<i32>>
  %v, %t1 = load_ptr_tko weak %xp token=%t : tile<64xptr<i32>> -> tile<64xi32>, token
  %lb = reshape %limit : tile<i32> -> tile<1xi32>
  %l = broadcast %lb : tile<1xi32> -> tile<64xi32>
  %ok = cmpi less_than %v, %l, signed : tile<64xi32> -> tile<64xi1>
  assert %ok, "value below the limit" : tile<64xi1>
  %t2 = store_ptr_tko weak %xp, %l token=%t1 : tile<64xptr<i32>>, tile<64xi32> -> token
  return
}
"""


def test_assert_passes_and_fails_like_the_interpreter(tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(ASSERT)
    ptx = _ptx(path)
    x = np.arange(64, dtype=np.int32)
    simulate(ptx, (1, 1, 1), [x, 100])
    assert (x == 100).all()  # the kernel went on past the assert

    x = np.arange(64, dtype=np.int32)
    x[37] = 500
    with pytest.raises(SimulationError, match="Assertion `value below the limit` failed") as info:
        simulate(ptx, (1, 1, 1), [x, 100])
    assert info.value.kind == "assertion"
    assert "k.mlir:" in str(info.value) and ": k: " in str(info.value)
    assert (x[:37] == np.arange(37)).all()  # stopped: nothing stored
    with pytest.raises(KernelAssertionError, match="value below the limit"):
        launch(path, 1, np.where(np.arange(64) == 37, 500, np.arange(64)).astype(np.int32), 100)


LOOP = """
entry @k(%n: tile<i32>) {
  %t = make_token : token
  %z = constant <i32: 0> : tile<i32>
  %one = constant <i32: 1> : tile<i32>
  %i4 = iota : tile<4xi32>
  for %iv in (%z to %n, step %one) : tile<i32> {
    %b = reshape %iv : tile<i32> -> tile<1xi32>
    %bb = broadcast %b : tile<1xi32> -> tile<4xi32>
    %s = addi %i4, %bb : tile<4xi32>
    %p = print_tko "it %d: %d\\0A", %iv, %s : tile<i32>, tile<4xi32> -> token
    %two = constant <i32: 2> : tile<i32>
    %c = cmpi equal %iv, %two, signed : tile<i32> -> tile<i1>
    if %c {
      %q = print_tko "two!\\0A" -> token
    }
  }
  return
}
"""


def test_prints_in_loops_and_branches_keep_program_order(tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    path.write_text(LOOP)
    printed: list[str] = []
    simulate(_ptx(path), (1, 1, 1), [4], printed=printed)
    text = "".join(printed)
    assert text == _interpreted(path, 1, 4)
    assert text.count("two!") == 1
