// convert-tileas-to-llvm on the nv_tileas forms of the last ops to cross the boundary:
// `nv_tileas.assume` passes its value through (its fact already chose the 128-bit
// accesses), `nv_tileas.addptr` is one address per register, a value `nv_tileas.view`
// (a reshape) and `nv_tileas.shuffle` (a transpose) move elements between threads
// through shared memory, each between two CTA barriers (docs/codegen.md).
// RUN: tileir-opt %s -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse | filecheck %s --check-prefix=LLVM
// RUN: tileir-opt %s -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse | filecheck %s --check-prefix=GONE
// RUN: tileir-opt %s -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse,dce -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: filecheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// LLVM-LABEL: llvm.func @transpose
// LLVM-SAME: nvvm.kernel
// LLVM: llvm.getelementptr %{{.*}} : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
// GONE-NOT: nv_tileas.assume
// GONE-NOT: nv_tileas.addptr
// GONE-NOT: nv_tileas.view
// GONE-NOT: nv_tileas.shuffle
// GONE-NOT: nv_tileas.kernel

// CHECK-LABEL: .visible .entry transpose(
// CHECK: ld.global.v4.b32
// CHECK: st.shared
// CHECK: bar.sync 0
// CHECK: ld.shared
// CHECK: bar.sync 0
// CHECK: st.shared
// CHECK: bar.sync 0
// CHECK: ld.shared
// CHECK: bar.sync 0
// CHECK: st.global.v4.b32
builtin.module {
  func.func @transpose(%p: !cuda_tile.ptr<f32>, %q: !cuda_tile.ptr<f32>) attributes {nv_tileas.kernel} {
    %a = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
    %b = nv_tileas.assume %q, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
    %i = cuda_tile.iota : tensor<2048xi32>
    %sa = nv_tileas.splat %a : !cuda_tile.ptr<f32> -> tensor<2048x!cuda_tile.ptr<f32>>
    %pa = nv_tileas.addptr %sa, %i : tensor<2048x!cuda_tile.ptr<f32>>, tensor<2048xi32>
    %va = nv_tileas.view %pa : tensor<2048x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<2048xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %va[%c0] {atom = #nv_tileas<atom ldg_128b>, in_bounds = array<i1: true>} : !nv_tileas.tiled_view<2048xf32, gmem> -> tensor<2048xf32>
    %m = nv_tileas.view %x : tensor<2048xf32> -> tensor<32x64xf32>
    %t = nv_tileas.shuffle %m {permutation = array<i64: 1, 0>} : tensor<32x64xf32> -> tensor<64x32xf32>
    %y = nv_tileas.view %t : tensor<64x32xf32> -> tensor<2048xf32>
    %sb = nv_tileas.splat %b : !cuda_tile.ptr<f32> -> tensor<2048x!cuda_tile.ptr<f32>>
    %pb = nv_tileas.addptr %sb, %i : tensor<2048x!cuda_tile.ptr<f32>>, tensor<2048xi32>
    %vb = nv_tileas.view %pb : tensor<2048x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<2048xf32, gmem>
    nv_tileas.tiled_store %y, %vb[%c0] {atom = #nv_tileas<atom stg_128b>, in_bounds = array<i1: true>} : tensor<2048xf32>, !nv_tileas.tiled_view<2048xf32, gmem>
    func.return
  }
}
