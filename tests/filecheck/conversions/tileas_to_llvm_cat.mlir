// convert-tileas-to-llvm: an insertion chain into a fresh tile, `alloc_tensor` then
// `insert_slice`s at static offsets (convert-tileaa-to-tileas's form of `cuda_tile.cat`),
// is one exchange (slices.py `LowerCat`): each source writes into the result's buffer at
// its offset (the second at the buffer plus its shift), one barrier, then each thread
// reads its result registers.  No `alloc_tensor` or `insert_slice` is left.
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse,dce | filecheck %s
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse,dce -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// CHECK-LABEL: llvm.func @cat(
// CHECK: %[[SMEM:.*]] = llvm.inline_asm has_side_effects ".shared .align 16 .b8 tileir_xchg_0[32]
// The second source's base: 4 elements of 4 bytes on.
// CHECK: %[[SHIFT:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK: %[[RHS:.*]] = llvm.add %[[SMEM]], %[[SHIFT]] : i32
// CHECK-NOT: nvvm.barrier0
// CHECK: st.shared.v4.b32 {{.*}} %[[SMEM]],
// CHECK-NOT: nvvm.barrier0
// CHECK: st.shared.v4.b32 {{.*}} %[[RHS]],
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.load
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: nv_tileas.alloc_tensor
// CHECK-NOT: nv_tileas.insert_slice
#l8 = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#l4 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
builtin.module {
  func.func @cat(%p: !cuda_tile.ptr<i32>) attributes {nv_tileas.kernel, nv_tileas.num_warps = 1 : i32} {
    %a = cuda_tile.iota : tensor<4xi32, #l4>
    %b = cuda_tile.iota : tensor<4xi32, #l4>
    %t = nv_tileas.alloc_tensor : tensor<8xi32, #l8>
    %c1 = nv_tileas.insert_slice %a into %t[0][4][1] : tensor<4xi32, #l4> into tensor<8xi32, #l8>
    %c = nv_tileas.insert_slice %b into %c1[4][4][1] : tensor<4xi32, #l4> into tensor<8xi32, #l8>
    %ps = nv_tileas.splat %p : !cuda_tile.ptr<i32> -> tensor<8x!cuda_tile.ptr<i32>, #l8>
    %v = nv_tileas.view %ps : tensor<8x!cuda_tile.ptr<i32>, #l8> -> !nv_tileas.tiled_view<8xi32, gmem>
    %c0 = arith.constant 0 : index
    nv_tileas.tiled_store %c, %v[%c0] {atom = #nv_tileas<atom stg_32b>} : tensor<8xi32, #l8>, !nv_tileas.tiled_view<8xi32, gmem>
    func.return
  }
}
