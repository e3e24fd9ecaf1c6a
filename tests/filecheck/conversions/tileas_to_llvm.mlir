// convert-tileas-to-llvm: a kernel with one masked 1-D load and store.  Each thread
// holds registers for its elements; contiguous groups move with one vector access,
// masked groups fall back to per-element predicated accesses at the edge, each at an
// immediate offset from the group's one address (`[$4+12]`: element 3 of f32s).
// RUN: tileir-opt %s -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse | filecheck %s

// CHECK-LABEL: llvm.func @scale(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.reqntid = array<i32: 64, 1, 1>
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK: nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK: llvm.getelementptr
// CHECK: llvm.icmp "slt"
// CHECK: llvm.inline_asm "{{.*}}@t_all ld.global.v4.b32 {$0, $1, $2, $3}, [$4];{{.*}}@t_p ld.global.b32 $0, [$4];{{.*}}@t_p ld.global.b32 $3, [$4+12];
// CHECK-SAME: "=r,=r,=r,=r,l,b,b,b,b"
// CHECK-SAME: -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.fmul
// CHECK: llvm.inline_asm has_side_effects "{{.*}}@t_all st.global.v4.b32 [$4], {$0, $1, $2, $3};
// CHECK: llvm.return
// CHECK-NOT: nv_tileas.
// CHECK-NOT: cuda_tile.
builtin.module {
  func.func @scale(%p: !cuda_tile.ptr<f32>, %n: i32) attributes {nv_tileas.kernel} {
    %bx, %by, %bz = cuda_tile.get_tile_block_id : i32
    %c256 = cuda_tile.constant <i32: 256> : i32
    %base = cuda_tile.muli %bx, %c256 : i32
    %pb = nv_tileas.addptr %p, %base : !cuda_tile.ptr<f32>, i32
    %s = nv_tileas.splat %pb : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
    %i = cuda_tile.iota : tensor<256xi32>
    %ptrs = nv_tileas.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
    %left = cuda_tile.subi %n, %base : i32
    %ls = nv_tileas.splat %left : i32 -> tensor<256xi32>
    %m = cuda_tile.cmpi less_than %i, %ls, signed : tensor<256xi32> -> tensor<256xi1>
    %v = nv_tileas.view %ptrs : tensor<256x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<256xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %v[%c0] mask %m {atom = #nv_tileas<atom ldg_128b>, padding_value = 0.0 : f32} : !nv_tileas.tiled_view<256xf32, gmem>, tensor<256xi1> -> tensor<256xf32>
    %two = cuda_tile.constant <f32: 2.0> : tensor<256xf32>
    %y = cuda_tile.mulf %x, %two : tensor<256xf32>
    nv_tileas.tiled_store %y, %v[%c0] mask %m {atom = #nv_tileas<atom stg_128b>} : tensor<256xf32>, !nv_tileas.tiled_view<256xf32, gmem>, tensor<256xi1>
    func.return
  }
}
