"""Atomics on a tile smaller than the CTA (replicated over lanes and warps): memory is
updated once, by the owning copy, and every copy reads the old values (shuffled within
a warp, through shared memory across warps).  Run in the PTX simulator, which fails on
any second update of an element and checks every value against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from tileir.backend.ptx.ptxas import find_ptxas, run_ptxas
from tileir.backend.ptx.target import module_to_ptx
from tileir.compiler import parse_module_text
from tileir.conversions.tileas_to_llvm import ConvertTileASToLLVMPass
from tileir.registry import make_context
from tileir.testing import simulate
from tileir.transforms.tileas.assign_layouts import AssignLayoutsPass

#: A 512-element tile (four warps of four-element vectors) beside a 16-element
#: atomic whose old values are stored: each element of the small tile is held by
#: 32 threads (2 lanes x 4 warps x 4 repeats).
KERNEL = """
builtin.module {
  func.func @rep(%p: !cuda_tile.ptr<i32>, %q: !cuda_tile.ptr<i32>, %o: !cuda_tile.ptr<i32>) attributes {nv_tileas.kernel} {
    %s = nv_tileas.splat %q : !cuda_tile.ptr<i32> -> tensor<512x!cuda_tile.ptr<i32>>
    %i = cuda_tile.iota : tensor<512xi32>
    %ptrs = nv_tileas.addptr %s, %i : tensor<512x!cuda_tile.ptr<i32>>, tensor<512xi32>
    %view = nv_tileas.view %ptrs : tensor<512x!cuda_tile.ptr<i32>> -> !nv_tileas.tiled_view<512xi32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %view[%c0] {atom = #nv_tileas<atom ldg_128b>, in_bounds = array<i1: true>} : !nv_tileas.tiled_view<512xi32, gmem> -> tensor<512xi32>
    %y = cuda_tile.addi %x, %x : tensor<512xi32>
    nv_tileas.tiled_store %y, %view[%c0] {atom = #nv_tileas<atom stg_128b>, in_bounds = array<i1: true>} : tensor<512xi32>, !nv_tileas.tiled_view<512xi32, gmem>
    %sp = nv_tileas.splat %p : !cuda_tile.ptr<i32> -> tensor<16x!cuda_tile.ptr<i32>>
    %j = cuda_tile.iota : tensor<16xi32>
    %pp = nv_tileas.addptr %sp, %j : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
    %three = cuda_tile.constant <i32: 3> : tensor<16xi32>
    %old = nv_tileas.atomic_rmw add %three, %pp {mem_semantic = #nv_tileas<mem_semantic MODE>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
    %so = nv_tileas.splat %o : !cuda_tile.ptr<i32> -> tensor<16x!cuda_tile.ptr<i32>>
    %po = nv_tileas.addptr %so, %j : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
    %ov = nv_tileas.view %po : tensor<16x!cuda_tile.ptr<i32>> -> !nv_tileas.tiled_view<16xi32, gmem>
    %twice = cuda_tile.addi %old, %old : tensor<16xi32>
    nv_tileas.tiled_store %twice, %ov[%c0] {atom = #nv_tileas<atom stg_32b>, in_bounds = array<i1: true>} : tensor<16xi32>, !nv_tileas.tiled_view<16xi32, gmem>
    func.return
  }
}
"""


def compile_kernel(mode: str, arch: str) -> str:
    ctx = make_context()
    module = parse_module_text(KERNEL.replace("MODE", mode), "replicated.mlir", ctx)
    AssignLayoutsPass().apply(ctx, module)
    ConvertTileASToLLVMPass(arch=arch).apply(ctx, module)
    return module_to_ptx(module, arch)


@pytest.mark.parametrize("mode", ["relaxed", "acquire_release"])
def test_replicated_atomic_updates_once_and_every_copy_reads_the_old_value(mode: str) -> None:
    ptx = compile_kernel(mode, "sm_90a")
    assert ".reqntid 128, 1, 1" in ptx and "ld.shared" in ptx
    a = np.arange(16, dtype=np.int32) * 10
    q = np.arange(512, dtype=np.int32)
    out = np.zeros(16, np.int32)
    before = a.copy()
    simulate(ptx, (1, 1, 1), [a, q, out])
    np.testing.assert_array_equal(a, before + 3)
    np.testing.assert_array_equal(out, 2 * before)
    np.testing.assert_array_equal(q, 2 * np.arange(512))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_replicated_atomic_assembles(arch: str) -> None:
    report = run_ptxas(compile_kernel("acquire_release", arch), arch)
    assert report.ok, report.output


#: A scalar atomic (every thread holds the pointer) whose old value every thread uses.
SCALAR_KERNEL = """
builtin.module {
  func.func @counter(%p: !cuda_tile.ptr<i32>, %q: !cuda_tile.ptr<i32>) attributes {nv_tileas.kernel} {
    %s = nv_tileas.splat %q : !cuda_tile.ptr<i32> -> tensor<512x!cuda_tile.ptr<i32>>
    %i = cuda_tile.iota : tensor<512xi32>
    %ptrs = nv_tileas.addptr %s, %i : tensor<512x!cuda_tile.ptr<i32>>, tensor<512xi32>
    %view = nv_tileas.view %ptrs : tensor<512x!cuda_tile.ptr<i32>> -> !nv_tileas.tiled_view<512xi32, gmem>
    %c0 = arith.constant 0 : index
    %one = cuda_tile.constant <i32: 1> : i32
    %old = nv_tileas.atomic_rmw add %one, %p {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope gpu>} : i32, !cuda_tile.ptr<i32> -> i32
    %base = nv_tileas.splat %old : i32 -> tensor<512xi32>
    %v = cuda_tile.addi %base, %i : tensor<512xi32>
    nv_tileas.tiled_store %v, %view[%c0] {atom = #nv_tileas<atom stg_128b>, in_bounds = array<i1: true>} : tensor<512xi32>, !nv_tileas.tiled_view<512xi32, gmem>
    func.return
  }
}
"""


def test_scalar_atomic_runs_once_per_block_and_every_thread_reads_it() -> None:
    ctx = make_context()
    module = parse_module_text(SCALAR_KERNEL, "scalar.mlir", ctx)
    AssignLayoutsPass().apply(ctx, module)
    ConvertTileASToLLVMPass(arch="sm_90a").apply(ctx, module)
    ptx = module_to_ptx(module, "sm_90a")
    counter = np.asarray([100], np.int32)
    out = np.zeros(512, np.int32)
    simulate(ptx, (1, 1, 1), [counter, out])
    assert counter[0] == 101
    np.testing.assert_array_equal(out, 100 + np.arange(512))
    if find_ptxas() is not None:
        report = run_ptxas(ptx, "sm_90a")
        assert report.ok, report.output
