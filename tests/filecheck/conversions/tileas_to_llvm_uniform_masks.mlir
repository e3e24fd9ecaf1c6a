// convert-tileas-to-llvm: rank-0 tiles and uniform masks (issue 13).
// A view of a one-element tile to rank 0 is the thread's first register (every
// register of every thread holds that element); int_to_ptr of a scalar is an
// llvm.inttoptr to a global pointer.  A mask that is one value across a vector
// group (a splat: the check that the tile index lies in the view's index space)
// guards the vector access itself, with no per-element fallback and one address.
// RUN: tileir-opt %s -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse | filecheck %s
// RUN: tileir-opt %s -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse,dce -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// CHECK-LABEL: llvm.func @uniform(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i1)
// CHECK: llvm.inline_asm "{\0Amov.b32 $0, 0x00000000;\0Amov.b32 $1, 0x00000000;\0Amov.b32 $2, 0x00000000;\0Amov.b32 $3, 0x00000000;\0A@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];\0A}", "=r,=r,=r,=r,l,b"
// CHECK-NOT: t_all
// CHECK: llvm.inline_asm has_side_effects "{\0A@$5 st.global.v4.b32 [$4], {$0, $1, $2, $3};\0A}", "r,r,r,r,l,b"
// CHECK: %[[ONE:.*]] = llvm.inline_asm "{\0Ald.global.b32 $0, [$1];\0A}", "=r,l"
// CHECK: %[[Q:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<1>
// CHECK: llvm.inline_asm has_side_effects "{\0A@$2 st.global.b32 [$1], $0;\0A}", "r,l,b" %[[ONE]], %[[Q]], %{{.*}} : (f32, !llvm.ptr<1>, i1) -> ()
builtin.module {
  func.func @uniform(%p: !cuda_tile.ptr<f32>, %addr: i64, %inside: i1) attributes {nv_tileas.kernel} {
    %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
    %i = cuda_tile.iota : tensor<256xi32>
    %ptrs = nv_tileas.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
    %m = nv_tileas.splat %inside : i1 -> tensor<256xi1>
    %v = nv_tileas.view %ptrs : tensor<256x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<256xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %v[%c0] mask %m {atom = #nv_tileas<atom ldg_128b>, padding_value = 0.0 : f32} : !nv_tileas.tiled_view<256xf32, gmem>, tensor<256xi1> -> tensor<256xf32>
    nv_tileas.tiled_store %x, %v[%c0] mask %m {atom = #nv_tileas<atom stg_128b>} : tensor<256xf32>, !nv_tileas.tiled_view<256xf32, gmem>, tensor<256xi1>
    %s1 = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<1x!cuda_tile.ptr<f32>>
    %v1 = nv_tileas.view %s1 : tensor<1x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<1xf32, gmem>
    %y = nv_tileas.tiled_load %v1[%c0] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<1xf32, gmem> -> tensor<1xf32>
    %f = nv_tileas.view %y : tensor<1xf32> -> f32
    %q = cuda_tile.int_to_ptr %addr : i64 -> !cuda_tile.ptr<f32>
    %v2 = nv_tileas.view %q : !cuda_tile.ptr<f32> -> !nv_tileas.tiled_view<f32, gmem>
    nv_tileas.tiled_store %f, %v2[] {atom = #nv_tileas<atom stg_32b>} : f32, !nv_tileas.tiled_view<f32, gmem>
    func.return
  }
}
