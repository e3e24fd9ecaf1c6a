"""cuda_tile `global` / `get_global` compiled to PTX (a `.global` array with the
initializer's bytes) and run in the PTX simulator: a constant table read back, a
counter updated atomically by every tile block, the cuTile printing export of bytecode
13.1 (a global spin lock) assembled by ptxas, and the diagnostic for a global two kernels
share."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.diagnostics import CompileError
from tileir.testing import simulate

FIXTURES = Path(__file__).parent / "bytecode_fixtures" / "cutile"

TABLE = """
global @table <T: [VALUES]> : tile<4xT>
entry @k(%out: tile<ptr<T>>) {
  %t = make_token : token
  %p = get_global @table : tile<ptr<T>>
  %i = iota : tile<4xi32>
  %pb = reshape %p : tile<ptr<T>> -> tile<1xptr<T>>
  %ps = broadcast %pb : tile<1xptr<T>> -> tile<4xptr<T>>
  %pp = offset %ps, %i : tile<4xptr<T>>, tile<4xi32> -> tile<4xptr<T>>
  %v, %t1 = load_ptr_tko weak %pp token=%t : tile<4xptr<T>> -> tile<4xT>, token
  %ob = reshape %out : tile<ptr<T>> -> tile<1xptr<T>>
  %os = broadcast %ob : tile<1xptr<T>> -> tile<4xptr<T>>
  %op = offset %os, %i : tile<4xptr<T>>, tile<4xi32> -> tile<4xptr<T>>
  %t2 = store_ptr_tko weak %op, %v token=%t1 : tile<4xptr<T>>, tile<4xT> -> token
  return
}
"""

COUNTER = """
global @counter <i32: 5> : tile<1xi32>
entry @k(%out: tile<ptr<i32>>) {
  %t = make_token : token
  %p = get_global @counter : tile<ptr<i32>>
  %p1 = reshape %p : tile<ptr<i32>> -> tile<1xptr<i32>>
  %one = constant <i32: 1> : tile<1xi32>
  %old, %t1 = atomic_rmw_tko relaxed device %p1, add, %one : tile<1xptr<i32>>, tile<1xi32> -> tile<1xi32>, token
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %o = offset %out, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
  %o1 = reshape %o : tile<ptr<i32>> -> tile<1xptr<i32>>
  %t2 = store_ptr_tko weak %o1, %old token=%t1 : tile<1xptr<i32>>, tile<1xi32> -> token
  return
}
"""


def _ptx(tmp_path: Path, text: str, arch: str = "sm_90a") -> str:
    path = tmp_path / "k.mlir"
    path.write_text(text)
    ptx = compile_module(load_module(path), arch).ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize(
    ("scalar", "dtype", "values"),
    [
        ("i32", np.int32, "10, -20, 30, 40"),
        ("f16", np.float16, "1.5, -2.25, 65504.0, 0.0"),
        ("f64", np.float64, "1.0e300, -2.5, 3.0, 0.1"),
    ],
)
def test_table_reads_back(tmp_path: Path, scalar: str, dtype: type, values: str) -> None:
    ptx = _ptx(tmp_path, TABLE.replace("VALUES", values).replace("T", scalar))
    assert ".global .align" in ptx
    out = np.zeros(4, dtype)
    simulate(ptx, (1, 1, 1), [out])
    expected = np.array([float(v) for v in values.split(",")]).astype(dtype)
    np.testing.assert_array_equal(out, expected)


def test_counter_is_one_variable_for_every_block(tmp_path: Path) -> None:
    ptx = _ptx(tmp_path, COUNTER)
    out = np.full(6, -1, np.int32)
    simulate(ptx, (6, 1, 1), [out])
    assert sorted(out.tolist()) == [5, 6, 7, 8, 9, 10]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_printing_13_1_assembles(tmp_path: Path, arch: str) -> None:
    from tileir.backend.ptx.ptxas import find_ptxas

    ptxas = find_ptxas()
    assert ptxas is not None, "ptxas comes with the test extra (nvidia-cuda-nvcc)"
    ptx = compile_module(load_module(FIXTURES / "printing.13.1.mlir"), arch).ptx
    assert ptx is not None and "tileir_global_print_mutex" in ptx and "vprintf" in ptx
    import subprocess

    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    run = subprocess.run(
        [str(ptxas), f"-arch={arch}", str(src), "-o", str(tmp_path / "k.cubin")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr


def test_global_shared_by_two_kernels_is_reported(tmp_path: Path) -> None:
    second = COUNTER.split("\n", 2)[2].replace("@k(", "@k2(")
    with pytest.raises(CompileError, match="used by more than one kernel"):
        _ptx(tmp_path, COUNTER + second)
