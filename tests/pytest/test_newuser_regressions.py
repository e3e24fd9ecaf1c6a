"""Regressions found by compiling new user-style cuTile kernels (not in tests/corpus):

* a masked rank-0 pointer load (`ct.gather(a, 0)` of a scalar) with a constant fallback:
  its fallback is a select, not a `padding_value` (a rank-0 `tiled_load` has no
  dimension to mark out of bounds), and every thread loads the scalar;
* memory tokens carried through `loop` / `if` (a compare-and-swap retry loop) take no
  registers in convert-tileas-to-llvm (they were left as `create_mem_token` block
  arguments);
* an `if` whose arm holds a `for` (whose `continue` belongs to that `for`, not to a loop
  around the `if`) is lifted to `scf.if`.

Each kernel is compiled to PTX and run in the PTX simulator against expected values.
"""

from __future__ import annotations

import numpy as np
import pytest

from tileir.compiler import compile_module, parse_module_text
from tileir.registry import make_context
from tileir.testing import simulate

MASKED_SCALAR_LOAD = """
cuda_tile.module @m {
  entry @k(%p: tile<ptr<i32>>, %q: tile<ptr<i32>>, %n: tile<i32>) {
    %t0 = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c42 = constant <i32: 42> : tile<i32>
    %m = cmpi less_than %c0, %n, signed : tile<i32> -> tile<i1>
    %v, %tk = load_ptr_tko weak %p, %m, %c42 token=%t0 : tile<ptr<i32>>, tile<i1>, tile<i32> -> tile<i32>, token
    %t1 = store_ptr_tko weak %q, %v token = %tk : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""

CAS_MAX_LOOP = """
cuda_tile.module @m {
  entry @k(%p: tile<ptr<i32>>, %q: tile<ptr<i32>>, %v: tile<i32>) {
    %t0 = make_token : token
    %cur, %tk = load_ptr_tko weak %p token=%t0 : tile<ptr<i32>> -> tile<i32>, token
    %r:2 = loop iter_values(%a = %cur, %b = %tk) : tile<i32>, token -> tile<i32>, token {
      %lt = cmpi less_than %a, %v, signed : tile<i32> -> tile<i1>
      if %lt {
      } else {
        break %a, %b : tile<i32>, token
      }
      %old, %t2 = atomic_cas_tko acq_rel device %p, %a, %v token=%b : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
      %eq = cmpi equal %old, %a, signed : tile<i32> -> tile<i1>
      if %eq {
        break %old, %t2 : tile<i32>, token
      } else {
      }
      continue %old, %t2 : tile<i32>, token
    }
    %t3 = store_ptr_tko weak %q, %r#0 token = %r#1 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
"""

IF_AROUND_FOR = """
cuda_tile.module @m {
  entry @k(%p: tile<ptr<i32>>, %n: tile<i32>) {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %cond = cmpi greater_than %n, %c0, signed : tile<i32> -> tile<i1>
    if %cond {
      %s = for %i in (%c0 to %n, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
        %a = addi %acc, %i : tile<i32>
        continue %a : tile<i32>
      }
      %t = store_ptr_tko weak %p, %s : tile<ptr<i32>>, tile<i32> -> token
    }
    return
  }
}
"""


def ptx_for(text: str, arch: str) -> str:
    ptx = compile_module(parse_module_text(text, "k.mlir", make_context()), arch).ptx
    assert ptx is not None
    return ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize(("n", "expected"), [(1, 5), (0, 42)])
def test_masked_scalar_load(arch: str, n: int, expected: int) -> None:
    p = np.array([5], np.int32)
    q = np.array([-1], np.int32)
    simulate(ptx_for(MASKED_SCALAR_LOAD, arch), (1, 1, 1), [p, q, n])
    assert q.tolist() == [expected]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize(("init", "final", "seen"), [(3, 7, 3), (9, 9, 9)])
def test_cas_max_loop_carries_tokens(arch: str, init: int, final: int, seen: int) -> None:
    p = np.array([init], np.int32)
    q = np.array([-1], np.int32)
    simulate(ptx_for(CAS_MAX_LOOP, arch), (1, 1, 1), [p, q, 7])
    assert p.tolist() == [final]  # max(init, 7)
    assert q.tolist() == [seen]  # the value the successful CAS (or the check) saw


@pytest.mark.parametrize(("n", "expected"), [(5, 10), (0, -1)])
def test_if_around_for_is_lifted(n: int, expected: int) -> None:
    out = np.array([-1], np.int32)
    simulate(ptx_for(IF_AROUND_FOR, "sm_80"), (1, 1, 1), [out, n])
    assert out.tolist() == [expected]


# An mma result (accumulator layout) stored through a pointer tile: the pointers
# (`offset`), the mask and the atomic's old values take the value's layout.
MMA_THROUGH_POINTERS = """
cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %d: tile<ptr<f32>>) {
    %t0 = make_token : token
    %i = iota : tile<16xi32>
    %r = reshape %i : tile<16xi32> -> tile<16x1xi32>
    %q = reshape %i : tile<16xi32> -> tile<1x16xi32>
    %c16 = constant <i32: 16> : tile<16x1xi32>
    %rb0 = muli %r, %c16 : tile<16x1xi32>
    %rb = broadcast %rb0 : tile<16x1xi32> -> tile<16x16xi32>
    %qb = broadcast %q : tile<1x16xi32> -> tile<16x16xi32>
    %idx = addi %rb, %qb : tile<16x16xi32>
    %a1 = reshape %a : tile<ptr<f16>> -> tile<1x1xptr<f16>>
    %ab = broadcast %a1 : tile<1x1xptr<f16>> -> tile<16x16xptr<f16>>
    %pa = offset %ab, %idx : tile<16x16xptr<f16>>, tile<16x16xi32> -> tile<16x16xptr<f16>>
    %b1 = reshape %b : tile<ptr<f16>> -> tile<1x1xptr<f16>>
    %bb = broadcast %b1 : tile<1x1xptr<f16>> -> tile<16x16xptr<f16>>
    %pb = offset %bb, %idx : tile<16x16xptr<f16>>, tile<16x16xi32> -> tile<16x16xptr<f16>>
    %va, %t1 = load_ptr_tko weak %pa token=%t0 : tile<16x16xptr<f16>> -> tile<16x16xf16>, token
    %vb, %t2 = load_ptr_tko weak %pb token=%t0 : tile<16x16xptr<f16>> -> tile<16x16xf16>, token
    %z = constant <f32: 0.0> : tile<16x16xf32>
    %acc = mmaf %va, %vb, %z : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
    %c1 = reshape %c : tile<ptr<f32>> -> tile<1x1xptr<f32>>
    %cb = broadcast %c1 : tile<1x1xptr<f32>> -> tile<16x16xptr<f32>>
    %pc = offset %cb, %idx : tile<16x16xptr<f32>>, tile<16x16xi32> -> tile<16x16xptr<f32>>
    %c8 = constant <i32: 200> : tile<16x16xi32>
    %m = cmpi less_than %idx, %c8, signed : tile<16x16xi32> -> tile<16x16xi1>
    %old, %t3 = atomic_rmw_tko acq_rel device %pc, xchg, %acc, %m token=%t0 : tile<16x16xptr<f32>>, tile<16x16xf32>, tile<16x16xi1> -> tile<16x16xf32>, token
    %d1 = reshape %d : tile<ptr<f32>> -> tile<1x1xptr<f32>>
    %db = broadcast %d1 : tile<1x1xptr<f32>> -> tile<16x16xptr<f32>>
    %pd = offset %db, %idx : tile<16x16xptr<f32>>, tile<16x16xi32> -> tile<16x16xptr<f32>>
    %t4 = store_ptr_tko weak %pd, %acc token=%t3 : tile<16x16xptr<f32>>, tile<16x16xf32> -> token
    %ob, %t5 = atomic_rmw_tko relaxed device %pc, addf, %old, %m token=%t4 : tile<16x16xptr<f32>>, tile<16x16xf32>, tile<16x16xi1> -> tile<16x16xf32>, token
    return
  }
}
"""


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_mma_result_through_pointer_tiles(arch: str) -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    b = rng.integers(-3, 4, (16, 16)).astype(np.float16)
    c = np.full((16, 16), 0.5, np.float32)
    d = np.zeros((16, 16), np.float32)
    simulate(ptx_for(MMA_THROUGH_POINTERS, arch), (1, 1, 1), [a, b, c, d])
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_array_equal(d, want)  # the scatter of the accumulator
    first = np.arange(256).reshape(16, 16) < 200  # the xchg's mask
    np.testing.assert_array_equal(c, np.where(first, want + 0.5, 0.5))  # xchg, then += old
