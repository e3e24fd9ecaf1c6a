"""`cuda_tile.insert` (13.4) compiled to PTX and run in the PTX simulator against numpy:
the cuTile export (a 16-element block into a 64-element tile), and 2-d inserts at
dynamic block indices whose source and destination have different layouts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.compiler import compile_module, load_module
from tileir.testing import simulate

FIXTURE = Path(__file__).parent / "bytecode_fixtures" / "cutile" / "insert_tile.13.4.mlir"

KERNEL_2D = """
entry @insert2d(%src: tile<ptr<SCALAR>>, %dst: tile<ptr<SCALAR>>, %out: tile<ptr<SCALAR>>,
                %bi: tile<i32>, %bj: tile<i32>) {
  %t0 = make_token : token
  %z = constant <i32: 0> : tile<i32>
  %sv = make_tensor_view %src, shape = [SR, SC], strides = [SC, 1] : tensor_view<SRxSCxSCALAR, strides=[SC,1]>
  %dv = make_tensor_view %dst, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xSCALAR, strides=[64,1]>
  %ov = make_tensor_view %out, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xSCALAR, strides=[64,1]>
  %sp = make_partition_view %sv : partition_view<tile=(SRxSC), tensor_view<SRxSCxSCALAR, strides=[SC,1]>>
  %dp = make_partition_view %dv : partition_view<tile=(32x64), tensor_view<32x64xSCALAR, strides=[64,1]>>
  %op = make_partition_view %ov : partition_view<tile=(32x64), tensor_view<32x64xSCALAR, strides=[64,1]>>
  %s, %t1 = load_view_tko weak %sp[%z, %z] token = %t0 : partition_view<tile=(SRxSC), tensor_view<SRxSCxSCALAR, strides=[SC,1]>>, tile<i32> -> tile<SRxSCxSCALAR>, token
  %d, %t2 = load_view_tko weak %dp[%z, %z] token = %t0 : partition_view<tile=(32x64), tensor_view<32x64xSCALAR, strides=[64,1]>>, tile<i32> -> tile<32x64xSCALAR>, token
  %r = insert %s, %d[%bi, %bj] : tile<SRxSCxSCALAR>, tile<32x64xSCALAR>
  %t3 = store_view_tko weak %r, %op[%z, %z] token = %t0 : tile<32x64xSCALAR>, partition_view<tile=(32x64), tensor_view<32x64xSCALAR, strides=[64,1]>>, tile<i32> -> token
  return
}
"""


def _ptx(path: Path, arch: str) -> str:
    ptx = compile_module(load_module(path), arch).ptx
    assert ptx is not None
    return ptx


def _run_fixture(arch: str) -> None:
    ptx = _ptx(FIXTURE, arch)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(100).astype(np.float32)
    out = np.zeros(64, np.float32)
    simulate(ptx, (1, 1, 1), [a, 100, 1, out, 64, 1])
    expected = a[:64].copy()
    expected[16:32] = a[:16]
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_insert_fixture_simulated(arch: str) -> None:
    _run_fixture(arch)


@pytest.mark.parametrize(
    ("scalar", "dtype", "shape", "block", "registers"),
    [
        # Layouts that place elements differently: through shared memory.
        ("f32", np.float32, (4, 4), (3, 2), False),
        ("f16", np.float16, (1, 64), (17, 0), False),
        ("i64", np.int64, (32, 1), (0, 63), False),
        # Blocks that each thread's registers cover alike: selects in registers.
        ("f32", np.float32, (8, 16), (3, 2), True),
        ("f16", np.float16, (16, 64), (1, 0), True),
        ("i8", np.int8, (32, 32), (0, 1), True),
        ("i64", np.int64, (2, 64), (9, 0), True),
    ],
)
def test_insert_2d_simulated(
    tmp_path: Path,
    scalar: str,
    dtype: type,
    shape: tuple[int, int],
    block: tuple[int, int],
    registers: bool,
) -> None:
    rows, cols = shape
    bi, bj = block
    path = tmp_path / "insert2d.mlir"
    text = KERNEL_2D.replace("SCALAR", scalar).replace("SR", str(rows)).replace("SC", str(cols))
    path.write_text(text)
    ptx = _ptx(path, "sm_90a")
    assert ("bar.sync" not in ptx) == registers
    rng = np.random.default_rng(1)
    src = (rng.standard_normal(shape) * 100).astype(dtype)
    dst = (rng.standard_normal((32, 64)) * 100).astype(dtype)
    out = np.zeros((32, 64), dtype)
    simulate(ptx, (1, 1, 1), [src, dst, out, bi, bj])
    expected = dst.copy()
    expected[bi * rows : (bi + 1) * rows, bj * cols : (bj + 1) * cols] = src
    np.testing.assert_array_equal(out, expected)
