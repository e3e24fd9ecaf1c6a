// convert-tileas-to-llvm: a row reduction combines the upper half of each row into the
// lower half, highest coordinate bit first: a thread's two registers along the row
// (bit 5), then butterfly shuffles over the lane bits (16, 8, 4, 2, 1); the body is
// the combiner, with the upper half as the next element (the block's second argument,
// the first operand of `maxf` here).  `maxf` is symmetric (`reductions.symmetric_body`):
// after a shuffle each lane combines its partner's value and its own as they are, no
// selects putting the pair in the tree's order first.
// RUN: tileir-opt %s --split-input-file -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse | filecheck %s

// CHECK-LABEL: llvm.func @row_max
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: %[[LOWER:.*]] = llvm.inline_asm "{{.*}}ld.global.b32
// CHECK: %[[UPPER:.*]] = llvm.inline_asm "{{.*}}ld.global.b32
// CHECK: llvm.call_intrinsic "llvm.maxnum.f32"(%[[UPPER]], %[[LOWER]])
// CHECK: nvvm.shfl.sync bfly %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK-NOT: llvm.select
// CHECK: nvvm.shfl.sync bfly %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync bfly %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync bfly %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync bfly %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK-NOT: shfl
// CHECK: st.global
// CHECK-NOT: cuda_tile.
builtin.module {
  func.func @row_max(%p: !cuda_tile.ptr<f32>, %q: !cuda_tile.ptr<f32>) attributes {nv_tileas.kernel} {
    %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<4x64x!cuda_tile.ptr<f32>>
    %i = cuda_tile.iota : tensor<64xi32>
    %row = nv_tileas.expand_dims %i {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cols = nv_tileas.broadcast %row : tensor<1x64xi32> -> tensor<4x64xi32>
    %ptrs = nv_tileas.addptr %s, %cols : tensor<4x64x!cuda_tile.ptr<f32>>, tensor<4x64xi32>
    %view = nv_tileas.view %ptrs : tensor<4x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<4x64xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %view[%c0, %c0] {atom = #nv_tileas<atom ldg_32b>, in_bounds = array<i1: true, true>} : !nv_tileas.tiled_view<4x64xf32, gmem> -> tensor<4x64xf32>
    %m = nv_tileas.reduce %x {axis = 1 : i32, identities = [0xFF800000 : f32]} : tensor<4x64xf32> -> tensor<4xf32> {
    ^bb0(%b: f32, %a: f32):
      %c = cuda_tile.maxf %a, %b : f32
      nv_tileas.yield %c : f32
    }
    %sq = nv_tileas.splat %q : !cuda_tile.ptr<f32> -> tensor<4x!cuda_tile.ptr<f32>>
    %j = cuda_tile.iota : tensor<4xi32>
    %out = nv_tileas.addptr %sq, %j : tensor<4x!cuda_tile.ptr<f32>>, tensor<4xi32>
    %oview = nv_tileas.view %out : tensor<4x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<4xf32, gmem>
    nv_tileas.tiled_store %m, %oview[%c0] {atom = #nv_tileas<atom stg_32b>, in_bounds = array<i1: true>} : tensor<4xf32>, !nv_tileas.tiled_view<4xf32, gmem>
    func.return
  }
}

// -----

// A row of 1024 over 4 warps: each thread combines its 8 registers once (registers
// that hold the same partial are not combined twice), then both warp bits of the tree
// cross shared memory in one exchange: one store per thread, a barrier, the three
// other warps' words (warp ^ 2, ^ 1, ^ 3) read, a barrier; the tree's order is kept
// by combining them locally, then the lane bits shuffle.
// CHECK-LABEL: llvm.func @wide_row_max
// CHECK-COUNT-7: llvm.call_intrinsic "llvm.maxnum.f32"
// CHECK-NOT: llvm.call_intrinsic "llvm.maxnum.f32"
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-3: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load
// CHECK: nvvm.barrier0
// CHECK-COUNT-3: llvm.call_intrinsic "llvm.maxnum.f32"
// CHECK: nvvm.shfl.sync bfly %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK-NOT: llvm.store
builtin.module {
  func.func @wide_row_max(%p: !cuda_tile.ptr<f32>, %q: !cuda_tile.ptr<f32>) attributes {nv_tileas.kernel} {
    %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<1x1024x!cuda_tile.ptr<f32>>
    %i = cuda_tile.iota : tensor<1024xi32>
    %row = nv_tileas.expand_dims %i {axis = 0 : i32} : tensor<1024xi32> -> tensor<1x1024xi32>
    %ptrs = nv_tileas.addptr %s, %row : tensor<1x1024x!cuda_tile.ptr<f32>>, tensor<1x1024xi32>
    %view = nv_tileas.view %ptrs : tensor<1x1024x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<1x1024xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %view[%c0, %c0] {atom = #nv_tileas<atom ldg_32b>, in_bounds = array<i1: true, true>} : !nv_tileas.tiled_view<1x1024xf32, gmem> -> tensor<1x1024xf32>
    %m = nv_tileas.reduce %x {axis = 1 : i32, identities = [0xFF800000 : f32]} : tensor<1x1024xf32> -> tensor<1xf32> {
    ^bb0(%b: f32, %a: f32):
      %c = cuda_tile.maxf %a, %b : f32
      nv_tileas.yield %c : f32
    }
    %sq = nv_tileas.splat %q : !cuda_tile.ptr<f32> -> tensor<1x!cuda_tile.ptr<f32>>
    %j = cuda_tile.iota : tensor<1xi32>
    %out = nv_tileas.addptr %sq, %j : tensor<1x!cuda_tile.ptr<f32>>, tensor<1xi32>
    %oview = nv_tileas.view %out : tensor<1x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<1xf32, gmem>
    nv_tileas.tiled_store %m, %oview[%c0] {atom = #nv_tileas<atom stg_32b>, in_bounds = array<i1: true>} : tensor<1xf32>, !nv_tileas.tiled_view<1xf32, gmem>
    func.return
  }
}
