"""Kernels whose memory accesses are all scalars (rank-0 tiles): a scalar atomic whose old
value is stored through a scalar pointer.  No tile gives tileas-assign-layouts a layout to
choose, and the scalar store must be done by one thread, not by every thread of the CTA."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.registry import make_context
from tileir.testing import simulate

KERNEL = """
cuda_tile.module @m {
  entry @k(%p: tile<ptr<i32>>, %q: tile<ptr<i32>>) {
    %one = constant <i32: 1> : tile<i32>
    %old, %t = atomic_rmw_tko relaxed device %p, add, %one : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %t2 = store_ptr_tko weak %q, %old token = %t : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""


def ptx_for(arch: str) -> str:
    ptx = compile_module(parse_module_text(KERNEL, "scalar.mlir", make_context()), arch).ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_scalar_atomic_then_scalar_store(arch: str) -> None:
    counter = np.array([5], np.int32)
    out = np.zeros(3, np.int32)
    simulate(ptx_for(arch), (1, 1, 1), [counter, out[1:2]])
    assert counter.tolist() == [6]  # one atomic, not one per thread
    assert out.tolist() == [0, 5, 0]  # the old value, stored once, nowhere else


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_scalar_kernel_assembles(arch: str, tmp_path: Path) -> None:
    report = run_ptxas(ptx_for(arch), arch, str(tmp_path / "k.cubin"))
    assert report.ok, report.output
