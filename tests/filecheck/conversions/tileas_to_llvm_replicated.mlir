// convert-tileas-to-llvm: a tile smaller than the CTA is replicated over warps (the
// warp bases of its layout are zero).  Every copy may load, but only the copy in
// warp 0 stores: the others' stores are predicated off, so copies neither race nor,
// for a tile updated in place, store a value loaded after another copy's store.
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse | filecheck %s
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80} -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// CHECK-LABEL: llvm.func @inplace
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: %[[WARP:.*]] = llvm.lshr %[[TID]], %{{.*}} : i32
// The owner test: warp bits with a zero basis (both of them) must be 0.
// CHECK: %[[WBITS:.*]] = llvm.and %[[WARP]], %{{.*}} : i32
// CHECK: %[[OWNER:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.inline_asm {{.*}}"{{.*}}ld.global.b32
// One predicate for the whole access (the owner test) guards the store itself.
// CHECK: llvm.inline_asm has_side_effects "{\0A@$2 st.global.b32 [$1], $0;\0A}", "r,l,b" %{{.*}}, %{{.*}}, %[[OWNER]]
#l = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
builtin.module {
  func.func @inplace(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.kernel, nv_tileas.num_warps = 4 : i32} {
    %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<32x!cuda_tile.ptr<f32>, #l>
    %i = cuda_tile.iota : tensor<32xi32, #l>
    %ptrs = nv_tileas.addptr %s, %i : tensor<32x!cuda_tile.ptr<f32>, #l>, tensor<32xi32, #l>
    %v = nv_tileas.view %ptrs : tensor<32x!cuda_tile.ptr<f32>, #l> -> !nv_tileas.tiled_view<32xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %v[%c0] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<32xf32, gmem> -> tensor<32xf32, #l>
    %one = cuda_tile.constant <f32: 1.0> : tensor<32xf32, #l>
    %y = cuda_tile.addf %x, %one : tensor<32xf32, #l>
    nv_tileas.tiled_store %y, %v[%c0] {atom = #nv_tileas<atom stg_32b>} : tensor<32xf32, #l>, !nv_tileas.tiled_view<32xf32, gmem>
    func.return
  }
}
