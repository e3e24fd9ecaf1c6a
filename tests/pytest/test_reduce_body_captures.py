"""A reduce or scan body may use values defined outside it (cuTile's
`ct.reduce(x, -1, lambda a, b: (a + b) % modulo, 0)` captures `modulo`; CSE hoists a
constant of the body out of it): the lowering combines with the scalar that value was
lowered to. Before, such kernels were an internal compiler error (KeyError)."""

from __future__ import annotations

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.interpreter import launch as interpret
from tileir.testing import simulate

KERNEL = """
entry @mod_sum(%x: tile<ptr<i32>>, %m: tile<i32>, %y: tile<ptr<i32>>) optimization_hints=<default = {}> {
  %tok = make_token : token
  %c0 = constant <i32: 0> : tile<i32>
  %tv_x = make_tensor_view %x, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xi32, strides=[16,1]>
  %pv_x = make_partition_view %tv_x : partition_view<tile=(16x16), tensor_view<16x16xi32, strides=[16,1]>>
  %tile, %tok_x = load_view_tko weak %pv_x[%c0, %c0] token = %tok : partition_view<tile=(16x16), tensor_view<16x16xi32, strides=[16,1]>>, tile<i32> -> tile<16x16xi32>, token
  %r = reduce %tile dim=1 identities=[0 : i32] : tile<16x16xi32> -> tile<16xi32>
  (%a: tile<i32>, %b: tile<i32>) {
    %s = addi %a, %b : tile<i32>
    %q = remi %s, %m signed : tile<i32>
    yield %q : tile<i32>
  }
  %tv_y = make_tensor_view %y, shape = [16], strides = [1] : tensor_view<16xi32, strides=[1]>
  %pv_y = make_partition_view %tv_y : partition_view<tile=(16), tensor_view<16xi32, strides=[1]>>
  %tok_y = store_view_tko weak %r, %pv_y[%c0] token = %tok : tile<16xi32>, partition_view<tile=(16), tensor_view<16xi32, strides=[1]>>, tile<i32> -> token
  return
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_a_reduce_body_captures_an_argument(arch: str) -> None:
    ptx = compile_module(parse_module_text(KERNEL, "mod_sum.mlir"), arch).ptx
    assert ptx is not None and run_ptxas(ptx, arch).ok
    x = np.random.default_rng(5).integers(0, 1000, (16, 16)).astype(np.int32)
    want = np.zeros(16, np.int32)
    interpret(parse_module_text(KERNEL, "mod_sum.mlir"), 1, x, 7, want)
    got = np.zeros(16, np.int32)
    simulate(ptx, (1, 1, 1), [x, 7, got])
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, x.sum(axis=1) % 7)
