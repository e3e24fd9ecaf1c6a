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


# A masked store of an mma accumulator: the mask takes the accumulator's layout, and
# through the iota it shares (after CSE) with the loads' pointer arithmetic, so would
# the loads' pointers.  They are recomputed in the loads' layout instead of exchanging a
# tile of pointers through shared memory (which also ran out of it for large tiles).
SHARED_POINTER_CHAIN = """
cuda_tile.module @m {
  entry @k(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %t0 = make_token : token
    %n = constant <i32: 16> : tile<i32>
    %va0 = make_tensor_view %a, shape = [%n, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %vb0 = make_tensor_view %b, shape = [%n, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %z0 = constant <i32: 0> : tile<i32>
    %pva = make_partition_view %va0 : partition_view<tile=(16x16), tensor_view<?x?xf16, strides=[?,1]>>
    %pvb = make_partition_view %vb0 : partition_view<tile=(16x16), tensor_view<?x?xf16, strides=[?,1]>>
    %ta, %t1 = load_view_tko weak %pva[%z0, %z0] token = %t0 : partition_view<tile=(16x16), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
    %tb, %t2 = load_view_tko weak %pvb[%z0, %z0] token = %t0 : partition_view<tile=(16x16), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x16xf16>, token
    %zf = constant <f32: 0.0> : tile<16x16xf32>
    %acc = mmaf %ta, %tb, %zf : tile<16x16xf16>, tile<16x16xf16>, tile<16x16xf32>
    %i = iota : tile<16xi32>
    %r = reshape %i : tile<16xi32> -> tile<16x1xi32>
    %q = reshape %i : tile<16xi32> -> tile<1x16xi32>
    %c16 = constant <i32: 16> : tile<16x1xi32>
    %r16 = muli %r, %c16 : tile<16x1xi32>
    %rb = broadcast %r16 : tile<16x1xi32> -> tile<16x16xi32>
    %qb = broadcast %q : tile<1x16xi32> -> tile<16x16xi32>
    %idx = addi %rb, %qb : tile<16x16xi32>
    %c1 = reshape %c : tile<ptr<f32>> -> tile<1x1xptr<f32>>
    %cb = broadcast %c1 : tile<1x1xptr<f32>> -> tile<16x16xptr<f32>>
    %pc = offset %cb, %idx : tile<16x16xptr<f32>>, tile<16x16xi32> -> tile<16x16xptr<f32>>
    %lim = constant <i32: 200> : tile<16x16xi32>
    %m = cmpi less_than %idx, %lim, signed : tile<16x16xi32> -> tile<16x16xi1>
    %t3 = store_ptr_tko weak %pc, %acc, %m token=%t0 : tile<16x16xptr<f32>>, tile<16x16xf32>, tile<16x16xi1> -> token
    return
  }
}
"""


def test_shared_pointer_chain_is_recomputed_not_exchanged() -> None:
    from tileir.pipelines import run_stages

    module = parse_module_text(SHARED_POINTER_CHAIN, "k.mlir", make_context())
    run_stages(make_context(), module, "sm_80", stop_after="tileas")
    converted = [
        str(op.operands[0].type) for op in module.walk() if op.name == "nv_tileas.convert_layout"
    ]
    assert not [t for t in converted if "ptr<" in t], converted
    rng = np.random.default_rng(1)
    a = rng.integers(-2, 3, (16, 16)).astype(np.float16)
    b = rng.integers(-2, 3, (16, 16)).astype(np.float16)
    c = np.full((16, 16), -1.0, np.float32)
    simulate(ptx_for(SHARED_POINTER_CHAIN, "sm_80"), (1, 1, 1), [a, b, c])
    want = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_array_equal(c, np.where(np.arange(256).reshape(16, 16) < 200, want, -1.0))


# A layout conversion the compiler inserts is located at the op that needed it, so that
# an error about it (an exchange too large for shared memory) names that op's line, not
# the entry's.
def test_inserted_conversion_is_located_at_its_user() -> None:
    from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr, TensorType
    from xdsl.ir import Operation
    from xdsl.rewriter import InsertPoint

    from tileir.dialects.nv_tileas.layouts import default_blocked
    from tileir.transforms.tileas.assign_layouts import Rematerializer

    text = """
    func.func @f(%p: !cuda_tile.ptr<f32>) {
      %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<128x!cuda_tile.ptr<f32>>
      %i = cuda_tile.iota : tensor<128xi32>
      %ptrs = nv_tileas.addptr %s, %i : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
      %v = nv_tileas.view %ptrs : tensor<128x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<128xf32, gmem>
      %c0 = arith.constant 0 : index
      %x = nv_tileas.tiled_load %v[%c0] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
      "test.op"(%x) : (tensor<128xf32>) -> ()
      func.return
    }
    """
    module = parse_module_text(text, "k.mlir", make_context())
    load = next(op for op in module.walk() if op.name == "nv_tileas.tiled_load")
    user = next(op for op in module.walk() if op.name == "test.op")
    where = FileLineColLoc(StringAttr("user.py"), IntAttr(8), IntAttr(9))
    layout = default_blocked((128,), 4, 1, (0,))
    remat = Rematerializer()
    # Not recomputable (a load): converted, and the conversion carries the location.
    converted = remat.value_in(load.results[0], layout, InsertPoint.before(user), where)
    convert = converted.owner
    assert isinstance(convert, Operation)
    assert convert.name == "nv_tileas.convert_layout"
    assert convert.location == where
    assert isinstance(converted.type, TensorType) and converted.type.encoding == layout
    # Recomputed pointer arithmetic (addptr, splat, iota) keeps its own locations.
    ptrs = next(op for op in module.walk() if op.name == "nv_tileas.addptr")
    clone = remat.value_in(ptrs.results[0], layout, InsertPoint.before(user), where).owner
    assert isinstance(clone, Operation)
    assert clone.name == "nv_tileas.addptr" and clone is not ptrs
    assert clone.location == ptrs.location
