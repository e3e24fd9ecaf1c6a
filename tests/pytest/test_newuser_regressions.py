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
