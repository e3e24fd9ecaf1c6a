// convert-tileas-to-llvm: `nv_tileas.insert_slice` of a tile (slices.py `LowerInsert`),
// as convert-tileaa-to-tileas makes it from cuda_tile's `insert`: the offset is
// `index_cast(%i) * size`, and the address of the source's block uses `%i` itself.
// Here the layouts differ in their lanes, so the tile goes through shared memory:
// every thread writes the destination, then (after a barrier) the source at the
// block's origin `%i * step`, then reads back its destination registers.
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse,dce | filecheck %s
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse,dce -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// CHECK-LABEL: llvm.func @insert(
// CHECK-SAME: %[[I:[^:]*]]: i32
// CHECK-NOT: arith.
// CHECK: nvvm.barrier0
// CHECK: %[[STEP:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[AT:.*]] = llvm.mul %[[I]], %[[STEP]] : i32
// CHECK: llvm.add %{{.*}}, %[[AT]] : i32
// CHECK: nvvm.barrier0
// CHECK: nvvm.barrier0
// CHECK-NOT: arith.
// CHECK-NOT: nv_tileas.insert_slice
#l8 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#l1 = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
builtin.module {
  func.func @insert(%i: i32, %p: !cuda_tile.ptr<i32>) attributes {nv_tileas.kernel, nv_tileas.num_warps = 1 : i32} {
    %t = cuda_tile.iota : tensor<8xi32, #l8>
    %x = cuda_tile.iota : tensor<1xi32, #l1>
    %o = arith.index_cast %i : i32 to index
    %one = arith.constant 1 : index
    %off = arith.muli %o, %one : index
    %r = nv_tileas.insert_slice %x into %t[%off][1][1] : tensor<1xi32, #l1> into tensor<8xi32, #l8>
    %ps = nv_tileas.splat %p : !cuda_tile.ptr<i32> -> tensor<8x!cuda_tile.ptr<i32>, #l8>
    %v = nv_tileas.view %ps : tensor<8x!cuda_tile.ptr<i32>, #l8> -> !nv_tileas.tiled_view<8xi32, gmem>
    %c0 = arith.constant 0 : index
    nv_tileas.tiled_store %r, %v[%c0] {atom = #nv_tileas<atom stg_32b>} : tensor<8xi32, #l8>, !nv_tileas.tiled_view<8xi32, gmem>
    func.return
  }
}
