// convert-tileas-to-llvm: `nv_tileas.extract_slice` of a tile goes through shared memory
// (shared_memory.py `LowerExtract`): every thread writes the source, and reads its
// result registers from the buffer at the tile coordinate (offset / size) times the
// sub-tile's step.  A dynamic offset is `index_cast(%i) * size`, as
// convert-tileaa-to-tileas makes it from cuda_tile's tile coordinate `%i`: the address
// uses `%i` itself; a static offset gives its coordinate as a constant.
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse,dce | filecheck %s
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse,dce -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// CHECK-LABEL: llvm.func @extract(
// CHECK-SAME: %[[I:[^:]*]]: i32
// CHECK-NOT: arith.
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: nvvm.barrier0
// CHECK: %[[STEP:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[AT:.*]] = llvm.mul %[[I]], %[[STEP]] : i32
// CHECK: llvm.add %{{.*}}, %[[AT]] : i32
// CHECK: nvvm.barrier0
// The static offset 1: coordinate 1.
// CHECK: nvvm.barrier0
// CHECK: llvm.mul %[[ONE]], %[[STEP]] : i32
// CHECK: nvvm.barrier0
// CHECK-NOT: arith.
// CHECK-NOT: nv_tileas.extract_slice
#l8 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#l1 = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
builtin.module {
  func.func @extract(%i: i32, %p: !cuda_tile.ptr<i32>) attributes {nv_tileas.kernel, nv_tileas.num_warps = 1 : i32} {
    %t = cuda_tile.iota : tensor<8xi32, #l8>
    %o = arith.index_cast %i : i32 to index
    %one = arith.constant 1 : index
    %off = arith.muli %o, %one : index
    %a = nv_tileas.extract_slice %t[%off][1][1] : tensor<8xi32, #l8> to tensor<1xi32, #l1>
    %b = nv_tileas.extract_slice %t[1][1][1] : tensor<8xi32, #l8> to tensor<1xi32, #l1>
    %s = cuda_tile.addi %a, %b : tensor<1xi32, #l1>
    %ps = nv_tileas.splat %p : !cuda_tile.ptr<i32> -> tensor<1x!cuda_tile.ptr<i32>, #l1>
    %v = nv_tileas.view %ps : tensor<1x!cuda_tile.ptr<i32>, #l1> -> !nv_tileas.tiled_view<1xi32, gmem>
    %c0 = arith.constant 0 : index
    nv_tileas.tiled_store %s, %v[%c0] {atom = #nv_tileas<atom stg_32b>} : tensor<1xi32, #l1>, !nv_tileas.tiled_view<1xi32, gmem>
    func.return
  }
}
