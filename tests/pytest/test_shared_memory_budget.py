"""One shared-memory budget per kernel (`tileir/conversions/tileas_to_llvm/shared_arena.py`).

The exchanges, the reductions and scans that cross warps and the atomics that
broadcast old values across warps all take their buffers from one `.shared` arena
per kernel, as large as the largest use; the kernel's 48 KiB of static shared memory
less its mbarrier pool is the budget of the whole kernel, and a use over it is a
located diagnostic at its op.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Block, Region

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.conversions.tileas_to_llvm.shared_arena import (
    STATIC_SHARED_LIMIT,
    SharedBudget,
    kernel_budget,
)
from tileir.diagnostics import CompileError
from tileir.dialects import nvvm
from tileir.testing import simulate

#: `x` (M x N f32) is transposed into `t` (N x M) and summed along its rows into `r`
#: (N): a transpose exchange and a reduce across warps in one kernel.
_TRANSPOSE_AND_SUM = """
entry @transpose_and_sum(%x: tile<ptr<f32>>, %t: tile<ptr<f32>>, %r: tile<ptr<f32>>) optimization_hints=<default = {}> {
  %tok = make_token : token
  %c0 = constant <i32: 0> : tile<i32>
  %tv_x = make_tensor_view %x, shape = [@M@, @N@], strides = [@N@, 1] : tensor_view<@M@x@N@xf32, strides=[@N@,1]>
  %pv_x = make_partition_view %tv_x : partition_view<tile=(@M@x@N@), tensor_view<@M@x@N@xf32, strides=[@N@,1]>>
  %tile, %tok_x = load_view_tko weak %pv_x[%c0, %c0] token = %tok : partition_view<tile=(@M@x@N@), tensor_view<@M@x@N@xf32, strides=[@N@,1]>>, tile<i32> -> tile<@M@x@N@xf32>, token
  @TRANSPOSE@
  %sum = reduce %tile dim=0 identities=[0.000000e+00 : f32] : tile<@M@x@N@xf32> -> tile<@N@xf32>
  (%lhs: tile<f32>, %rhs: tile<f32>) {
    %s = addf %lhs, %rhs : tile<f32>
    yield %s : tile<f32>
  }
  %tv_r = make_tensor_view %r, shape = [@N@], strides = [1] : tensor_view<@N@xf32, strides=[1]>
  %pv_r = make_partition_view %tv_r : partition_view<tile=(@N@), tensor_view<@N@xf32, strides=[1]>>
  %tok_r = store_view_tko weak %sum, %pv_r[%c0] token = %tok : tile<@N@xf32>, partition_view<tile=(@N@), tensor_view<@N@xf32, strides=[1]>>, tile<i32> -> token
  return
}
"""

_TRANSPOSE = """%tp = permute %tile [1, 0] : tile<@M@x@N@xf32> -> tile<@N@x@M@xf32>
  %tv_t = make_tensor_view %t, shape = [@N@, @M@], strides = [@M@, 1] : tensor_view<@N@x@M@xf32, strides=[@M@,1]>
  %pv_t = make_partition_view %tv_t : partition_view<tile=(@N@x@M@), tensor_view<@N@x@M@xf32, strides=[@M@,1]>>
  %tok_t = store_view_tko weak %tp, %pv_t[%c0, %c0] token = %tok : tile<@N@x@M@xf32>, partition_view<tile=(@N@x@M@), tensor_view<@N@x@M@xf32, strides=[@M@,1]>>, tile<i32> -> token"""


def _kernel(m: int, n: int, transpose: bool = True) -> str:
    text = _TRANSPOSE_AND_SUM.replace("@TRANSPOSE@", _TRANSPOSE if transpose else "")
    return text.replace("@M@", str(m)).replace("@N@", str(n))


def _arena_size(ptx: str) -> int:
    declarations = [line for line in ptx.splitlines() if ".shared .align" in line]
    assert len(declarations) == 1 and "tileir_xchg_0[" in declarations[0], declarations
    return int(declarations[0].split("[")[1].split("]")[0])


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_a_reduction_and_an_exchange_share_the_arena(arch: str) -> None:
    """A 128x64 f32 transpose needs 33,024 bytes (over the old 32,512 for exchanges)
    and the reduce's warp steps 32,768 (over the old 16 KiB for reductions); together
    66 KB, but they are never live at once, so one 33,024-byte arena serves both."""
    m, n = 128, 64
    ptx = compile_module(parse_module_text(_kernel(m, n), "budget.mlir"), arch).ptx
    assert ptx is not None
    assert _arena_size(ptx) == n * (m * 4 + 4)
    assert "tileir_reduce" not in ptx
    assert ptx.count("bar.sync 0;") >= 4  # the exchange's two and the reduce's two
    result = run_ptxas(ptx, arch)
    assert result.ok, result.output
    rng = np.random.default_rng(7)
    x = rng.integers(-8, 9, (m, n)).astype(np.float32)  # sums exact in any order
    t = np.zeros((n, m), dtype=np.float32)
    r = np.zeros(n, dtype=np.float32)
    simulate(ptx, (1, 1, 1), [x, t, r])
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(r, x.sum(axis=0))


def test_a_reduction_over_the_kernel_budget_is_reported_at_its_op() -> None:
    """A 256x64 f32 column sum exchanges 64 words per thread between warps: 64 KiB."""
    with pytest.raises(CompileError) as e:
        compile_module(parse_module_text(_kernel(256, 64, transpose=False), "sum.mlir"), "sm_80")
    assert e.value.message == (
        "'cuda_tile.reduce' op is not supported by tileir yet: a reduction across warps "
        "needing 65536 bytes of shared memory (49152 are available: all of the kernel's "
        "static shared memory; dynamic shared memory is not used yet)"
    )
    assert e.value.location is not None and e.value.location.line == 9


def test_an_exchange_over_the_kernel_budget_is_reported_at_its_op() -> None:
    """A 128x128 f32 transpose needs 66,048 bytes: reported at the permute, before
    the reduce (which would fit) is reached."""
    with pytest.raises(CompileError) as e:
        compile_module(parse_module_text(_kernel(128, 128), "budget.mlir"), "sm_80")
    assert e.value.message.startswith(
        "'cuda_tile.permute' op is not supported by tileir yet: an exchange needing 66048 "
        "bytes of shared memory (49152 are available"
    )
    assert e.value.location is not None and e.value.location.line == 8


def _kernel_entry(pool_sizes: list[int]) -> Block:
    """The entry block of an `llvm.func` holding one pool address op per size."""
    entry = Block()
    slot = llvm.ConstantOp(IntegerAttr(0, i32), i32)
    entry.add_op(slot)
    for size in pool_sizes:
        entry.add_op(nvvm.MBarrierPoolAddressOp(slot.result, size))
    entry.add_op(llvm.ReturnOp())
    llvm.FuncOp("k", llvm.LLVMFunctionType([]), body=Region(entry))
    return entry


def test_the_budget_is_what_the_mbarrier_pool_leaves() -> None:
    """The pool is as large as its largest `pool_size` (8 bytes per mbarrier),
    rounded up to the arena's 16-byte alignment."""
    assert kernel_budget(_kernel_entry([])).available == STATIC_SHARED_LIMIT
    assert kernel_budget(_kernel_entry([1, 1])) == SharedBudget(8)
    assert kernel_budget(_kernel_entry([1])).available == STATIC_SHARED_LIMIT - 16
    full = kernel_budget(_kernel_entry([3, nvvm.MBARRIER_POOL_SIZE]))
    assert full.available == STATIC_SHARED_LIMIT - 256
    assert full.explain() == (
        "48896 are available: the kernel's 49152 bytes of static shared memory less 256 "
        "for its mbarrier pool; dynamic shared memory is not used yet"
    )
