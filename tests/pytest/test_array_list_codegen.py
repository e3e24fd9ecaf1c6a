"""A list of arrays indexed inside a kernel (cuTile's ``xs[g]``): rank-0 tiles and
pointers made from integers.

cuTile passes a ``ListConstraint`` of 1-D arrays as one ``tile<ptr<i64>>`` table of
``n x 3`` entries (base address, size, stride) and its length.  ``xs[1]`` loads row 1
of the table as a ``1x4`` tile, extracts each entry as a ``1x1`` tile, reshapes it to
rank 0 and turns the address back into a pointer (``int_to_ptr``) for the array's
tensor view.  ``LIST_KERNEL`` is what cuTile 1.7 exports for

    @ct.kernel
    def array_list(xs, out):
        b = ct.bid(0)
        ct.store(out, (b,), ct.load(xs[1], (b,), (16,)))

with ``xs`` a list of 16-byte aligned f32 arrays (the entry renamed).  The table holds
device addresses: each test passes the list's arrays as ``indirect_arrays`` and writes
into the table the addresses the simulator or the interpreter will give them (the same
placement, made beforehand).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, load_module
from tileir.interpreter import launch
from tileir.interpreter.memory import Memory
from tileir.testing import simulate
from tileir.testing.ptx_machine import GlobalMemory

LIST_KERNEL = """
cuda_tile.module @kernels {
entry @array_list(%arg0: tile<ptr<i64>>, %arg1: tile<i32>, %arg2: tile<ptr<f32>>, %arg3: tile<i32>, %arg4: tile<i32>) {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg2 : tile<ptr<f32>>
  %tview = make_tensor_view %arg0, shape = [%arg1, 3], strides = [3, 1] : tile<i32> -> tensor_view<?x3xi64, strides=[3,1]>
  %pview = make_partition_view %tview : partition_view<tile=(1x4), tensor_view<?x3xi64, strides=[3,1]>>
  %assume_1 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview_2 = make_tensor_view %assume, shape = [%assume_1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %tile, %result_token = load_view_tko weak %pview[%cst_1_i32_3, %cst_0_i32] : partition_view<tile=(1x4), tensor_view<?x3xi64, strides=[3,1]>>, tile<i32> -> tile<1x4xi64>, token
  %cst_0_i32_4 = constant <i32: 0> : tile<i32>
  %1 = extract %tile[%cst_0_i32, %cst_0_i32_4] : tile<1x4xi64> -> tile<1x1xi64>
  %reshape = reshape %1 : tile<1x1xi64> -> tile<i64>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %2 = extract %tile[%cst_0_i32, %cst_1_i32_5] : tile<1x4xi64> -> tile<1x1xi64>
  %reshape_6 = reshape %2 : tile<1x1xi64> -> tile<i64>
  %cst_2_i32 = constant <i32: 2> : tile<i32>
  %3 = extract %tile[%cst_0_i32, %cst_2_i32] : tile<1x4xi64> -> tile<1x1xi64>
  %reshape_7 = reshape %3 : tile<1x1xi64> -> tile<i64>
  %4 = trunci %reshape_6 : tile<i64> -> tile<i32>
  %5 = trunci %reshape_7 : tile<i64> -> tile<i32>
  %6 = int_to_ptr %reshape : tile<i64> -> tile<ptr<f32>>
  %assume_8 = assume div_by<16>, %6 : tile<ptr<f32>>
  %assume_9 = assume bounded<0, ?>, %4 : tile<i32>
  %tview_10 = make_tensor_view %assume_8, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %pview_11 = make_partition_view %tview_10 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %tile_12, %result_token_13 = load_view_tko weak %pview_11[%blockId_x] token = %0 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<16xf32>, token
  %pview_14 = make_partition_view %tview_2 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %7 = store_view_tko weak %tile_12, %pview_14[%blockId_x] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
}
"""

ARCHES = ("sm_80", "sm_90a", "sm_100a")
#: Four blocks over xs[1]'s 40 elements: three tiles (the last ragged), then one tile
#: outside the index space, which loads zeros.
GRID = (4, 1, 1)


def arrays() -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    xs = [np.arange(24, dtype=np.float32) + 100.0, np.arange(40, dtype=np.float32) + 1.0]
    table = np.zeros((len(xs), 3), np.int64)
    table[:, 1] = [len(x) for x in xs]
    table[:, 2] = 1
    out = np.full(64, np.nan, np.float32)
    return table, xs, out


def expected(xs: list[np.ndarray]) -> np.ndarray:
    want = np.zeros(64, np.float32)
    want[:40] = xs[1]
    return want


def kernel_path(tmp_path: Path) -> Path:
    path = tmp_path / "array_list.mlir"
    path.write_text(LIST_KERNEL)
    return path


@pytest.mark.parametrize("arch", ARCHES)
def test_list_of_arrays_compiles_and_assembles(tmp_path: Path, arch: str) -> None:
    ptx = compile_module(load_module(kernel_path(tmp_path)), arch).ptx
    assert ptx is not None
    result = run_ptxas(ptx, arch)
    assert result.ok, result.output


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_list_of_arrays_in_the_simulator(tmp_path: Path, arch: str) -> None:
    ptx = compile_module(load_module(kernel_path(tmp_path)), arch).ptx
    assert ptx is not None
    table, xs, out = arrays()
    # simulate() places its array arguments in order (the table, out); the list's
    # arrays are only reachable through the table, so they go after those.
    placement = GlobalMemory()
    placement.place(table, "table")
    placement.place(out, "out")
    table[:, 0] = [placement.place(x, f"xs[{i}]") for i, x in enumerate(xs)]
    simulate(ptx, GRID, [table, len(xs), out, 64, 1], indirect_arrays=xs)
    np.testing.assert_array_equal(out, expected(xs))


def test_list_of_arrays_in_the_interpreter(tmp_path: Path) -> None:
    table, xs, out = arrays()
    placement = Memory()
    placement.map_array(table, "argument 0")
    placement.map_array(out, "argument 2")
    table[:, 0] = [placement.map_array(x, f"xs[{i}]") for i, x in enumerate(xs)]
    launch(kernel_path(tmp_path), GRID, table, len(xs), out, 64, 1, indirect_arrays=xs)
    np.testing.assert_array_equal(out, expected(xs))
