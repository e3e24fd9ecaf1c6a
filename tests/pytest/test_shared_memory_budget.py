"""One shared-memory budget per kernel (`tileir/conversions/tileas_to_llvm/shared_arena.py`).

The exchanges, the reductions and scans that cross warps and the atomics that
broadcast old values across warps all take their buffers from one `.shared` arena
per kernel, as large as the largest use; the shared memory a CTA of the target may use
(163 KiB on sm_80, 99 KiB on sm_86, 227 KiB on sm_90a) less its mbarrier pool is the
budget of the whole kernel, and a use over it is a located diagnostic at its op.  An
arena over the 48 KiB ptxas accepts as static `.shared` before sm_90 is dynamic shared
memory, whose size the kernel records for launchers and checks at entry.
"""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Block, Region

from tileir.backend.ptx.ptxas import run_ptxas
from tileir.compiler import compile_module, parse_module_text
from tileir.conversions.tileas_to_llvm.shared_arena import SharedBudget, kernel_budget
from tileir.diagnostics import CompileError
from tileir.dialects import nvvm
from tileir.testing import simulate
from tileir.testing.ptx_errors import SimulationError

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
    # The exchange's two and the reduce's first: nothing writes shared memory after the
    # reduce's reads, so no barrier closes them (llvm-defer-read-barriers).
    assert ptx.count("bar.sync 0;") >= 3
    result = run_ptxas(ptx, arch)
    assert result.ok, result.output
    rng = np.random.default_rng(7)
    x = rng.integers(-8, 9, (m, n)).astype(np.float32)  # sums exact in any order
    t = np.zeros((n, m), dtype=np.float32)
    r = np.zeros(n, dtype=np.float32)
    simulate(ptx, (1, 1, 1), [x, t, r])
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(r, x.sum(axis=0))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_an_arena_over_48_kib(arch: str) -> None:
    """A 256x64 f32 transpose exchanges the whole tile, 64 padded rows of 256 f32:
    65,792 bytes.  On sm_90a that is a static `.shared` array; on sm_80, where ptxas
    takes at most 48 KiB of static shared memory, it is the module's dynamic shared
    memory, its size recorded in a `.global` constant and checked at entry (a launch
    that gives less traps).  (The kernel's column sum alone needed 64 KiB too until a
    reduction exchanged each thread's distinct partials once: now 1 KiB.)"""
    ptx = compile_module(parse_module_text(_kernel(256, 64, transpose=True), "s.mlir"), arch).ptx
    assert ptx is not None
    assert run_ptxas(ptx, arch).ok
    dynamic = ".extern .shared .align 16 .b8 __tileir_dynamic_smem[];" in ptx
    assert dynamic == (arch == "sm_80")
    if dynamic:
        assert ".u32 __tileir_dynamic_smem_bytes_transpose_and_sum = 65792;" in ptx
        assert "setp.lt.u32" in ptx and "trap;" in ptx
    else:
        assert _arena_size(ptx) == 65792
    x = np.random.default_rng(3).integers(-8, 9, (256, 64)).astype(np.float32)
    t, r = np.zeros((64, 256), np.float32), np.zeros(64, np.float32)
    simulate(ptx, (1, 1, 1), [x, t, r])  # launched as tileir.runtime launches it
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(r, x.sum(axis=0))
    if dynamic:
        with pytest.raises(SimulationError, match="trap"):
            simulate(ptx, (1, 1, 1), [x, t, r], dynamic_shared=65776)


def test_a_use_over_the_targets_budget_is_reported_at_its_op() -> None:
    """A 256x256 f32 transpose needs 263,168 bytes: more than any target's CTA may use,
    reported at the permute with the target's figure."""
    for arch, limit in (("sm_80", 166912), ("sm_90a", 232448)):
        with pytest.raises(CompileError) as e:
            compile_module(parse_module_text(_kernel(256, 256), "budget.mlir"), arch)
        assert e.value.message == (
            "'nv_tileas.shuffle' op exceeds the shared memory limit: an exchange (written as "
            "ct.transpose / ct.permute in cuTile: cuda_tile.permute) needs 263168 "
            f"bytes ({limit} are available: a CTA may use {limit} bytes of shared memory "
            f"on {arch}); make the tile smaller, or compile for a target with more shared "
            "memory per CTA"
        )
        assert e.value.location is not None and e.value.location.line == 8


def test_sm_86_has_less_than_sm_80() -> None:
    """A 128x256 f32 transpose (132,096 bytes) fits sm_80's 163 KiB, not sm_86's 99."""
    text = _kernel(128, 256)
    assert run_ptxas(
        compile_module(parse_module_text(text, "t.mlir"), "sm_80").ptx or "", "sm_80"
    ).ok
    with pytest.raises(CompileError, match="101376 are available"):
        compile_module(parse_module_text(text, "t.mlir"), "sm_86")


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
    limit = 163 * 1024
    assert kernel_budget(_kernel_entry([]), "sm_80").available == limit
    assert kernel_budget(_kernel_entry([1, 1]), "sm_80") == SharedBudget("sm_80", 8)
    assert kernel_budget(_kernel_entry([1]), "sm_80").available == limit - 16
    full = kernel_budget(_kernel_entry([3, nvvm.MBARRIER_POOL_SIZE]), "sm_80")
    assert full.available == limit - 256
    assert full.explain() == (
        "166656 are available: a CTA may use 166912 bytes of shared memory on sm_80, "
        "less 256 for its mbarrier pool"
    )
    # Dynamic once the arena and the pool pass the 48 KiB ptxas takes statically.
    assert not full.is_dynamic(48 * 1024 - 256) and full.is_dynamic(48 * 1024 - 240)
    hopper = kernel_budget(_kernel_entry([]), "sm_90a")
    assert hopper.available == 227 * 1024 and not hopper.is_dynamic(227 * 1024)
