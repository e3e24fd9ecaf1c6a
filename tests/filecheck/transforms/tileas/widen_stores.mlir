// tileas-widen-stores: a global store whose layout moves at most 8 bytes a thread (a
// dot accumulator's #nv_tileas.mma layout: two consecutive f32) while its atom and
// the axis analysis allow 16 gets a convert_layout to a blocked layout with 16-byte
// vectors; pointers and mask are recomputed in that layout (never exchanged).
// `convert-tileas-to-llvm` lowers the conversion through shared memory.
// RUN: tileir-opt %s --split-input-file -p 'tileas-widen-stores{arch=sm_90a},dce' --print-local-scope | filecheck %s

// The epilogue of a 64x32 f32 GEMM tile with a ragged column mask: the value is
// converted, the pointer and mask chains are rebuilt in the blocked layout (the mma
// copies are dead and gone), and the mask keeps its per-column comparison.
// CHECK-LABEL: func.func @epilogue
// CHECK-NOT: #nv_tileas.mma<{{.*}}> -> tensor<64x32x!cuda_tile.ptr<f32>
// CHECK: %[[OFF:.*]] = cuda_tile.addi {{.*}} : tensor<64x32xi32, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %[[PTRS:.*]] = nv_tileas.addptr {{.*}}, %[[OFF]] : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %[[COLS:.*]] = cuda_tile.cmpi less_than {{.*}} -> tensor<32xi1, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: %[[MASK:.*]] = nv_tileas.broadcast {{.*}} -> tensor<64x32xi1, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: %[[VIEW:.*]] = nv_tileas.view %[[PTRS]] : {{.*}} -> !nv_tileas.tiled_view<64x32xf32, gmem>
// CHECK: %[[WIDE:.*]] = nv_tileas.convert_layout %[[ACC:.*]] : tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xf32, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK-NEXT: nv_tileas.tiled_store %[[WIDE]], %[[VIEW]][%{{.*}}, %{{.*}}] mask %[[MASK]] {atom = #nv_tileas<atom stg_128b>}
// CHECK-NOT: nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32x!cuda_tile.ptr
func.func @epilogue(%p: !cuda_tile.ptr<f32>, %n: i32) attributes {nv_tileas.num_warps = 4 : i32} {
  %acc = "test.op"() : () -> tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %pa = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %r = cuda_tile.iota : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %c32 = cuda_tile.constant <i32: 32> : i32
  %s32 = nv_tileas.splat %c32 : i32 -> tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ro = cuda_tile.muli %r, %s32 : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %re = nv_tileas.expand_dims %ro {axis = 1 : i32} : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<64x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %rb = nv_tileas.broadcast %re : tensor<64x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %c = cuda_tile.iota : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ce = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<1x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %cb = nv_tileas.broadcast %ce : tensor<1x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %off = cuda_tile.addi %rb, %cb : tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %base = nv_tileas.splat %pa : !cuda_tile.ptr<f32> -> tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %ptrs = nv_tileas.addptr %base, %off : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %ns = nv_tileas.splat %n : i32 -> tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %m1 = cuda_tile.cmpi less_than %c, %ns, signed : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<32xi1, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %me = nv_tileas.expand_dims %m1 {axis = 0 : i32} : tensor<32xi1, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<1x32xi1, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %mask = nv_tileas.broadcast %me : tensor<1x32xi1, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi1, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %v = nv_tileas.view %ptrs : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> !nv_tileas.tiled_view<64x32xf32, gmem>
  %c0 = arith.constant 0 : index
  nv_tileas.tiled_store %acc, %v[%c0, %c0] mask %mask {atom = #nv_tileas<atom stg_128b>} : tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, !nv_tileas.tiled_view<64x32xf32, gmem>, tensor<64x32xi1, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  func.return
}

// -----

// Blocked: the value already moves 16 bytes a thread (nothing to gain).
// CHECK-LABEL: func.func @already_wide
// CHECK-NOT: convert_layout
// CHECK: nv_tileas.tiled_store %acc, %v
func.func @already_wide(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.num_warps = 4 : i32} {
  %acc = "test.op"() : () -> tensor<64x32xf32, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
  %pa = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %r = cuda_tile.iota : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %cn = cuda_tile.constant <i32: 32> : i32
  %sn = nv_tileas.splat %cn : i32 -> tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ro = cuda_tile.muli %r, %sn : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %re = nv_tileas.expand_dims %ro {axis = 1 : i32} : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<64x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %rb = nv_tileas.broadcast %re : tensor<64x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %c = cuda_tile.iota : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ce = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<1x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %cb = nv_tileas.broadcast %ce : tensor<1x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %off = cuda_tile.addi %rb, %cb : tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %base = nv_tileas.splat %pa : !cuda_tile.ptr<f32> -> tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %ptrs = nv_tileas.addptr %base, %off : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %v = nv_tileas.view %ptrs : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> !nv_tileas.tiled_view<64x32xf32, gmem>
  %c0 = arith.constant 0 : index
  nv_tileas.tiled_store %acc, %v[%c0, %c0] {atom = #nv_tileas<atom stg_128b>} : tensor<64x32xf32, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>, !nv_tileas.tiled_view<64x32xf32, gmem>
  func.return
}

// -----

// Blocked: the atom moves 8 bytes (the pointers allow no more), as the mma layout does.
// CHECK-LABEL: func.func @narrow_atom
// CHECK-NOT: convert_layout
// CHECK: nv_tileas.tiled_store %acc, %v
func.func @narrow_atom(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.num_warps = 4 : i32} {
  %acc = "test.op"() : () -> tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %pa = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %r = cuda_tile.iota : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %cn = cuda_tile.constant <i32: 32> : i32
  %sn = nv_tileas.splat %cn : i32 -> tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ro = cuda_tile.muli %r, %sn : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %re = nv_tileas.expand_dims %ro {axis = 1 : i32} : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<64x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %rb = nv_tileas.broadcast %re : tensor<64x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %c = cuda_tile.iota : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ce = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<1x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %cb = nv_tileas.broadcast %ce : tensor<1x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %off = cuda_tile.addi %rb, %cb : tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %base = nv_tileas.splat %pa : !cuda_tile.ptr<f32> -> tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %ptrs = nv_tileas.addptr %base, %off : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %v = nv_tileas.view %ptrs : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> !nv_tileas.tiled_view<64x32xf32, gmem>
  %c0 = arith.constant 0 : index
  nv_tileas.tiled_store %acc, %v[%c0, %c0] {atom = #nv_tileas<atom stg_64b>} : tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, !nv_tileas.tiled_view<64x32xf32, gmem>
  func.return
}

// -----

// Blocked: a release store (the lowering vectorizes weak accesses only).
// CHECK-LABEL: func.func @release
// CHECK-NOT: convert_layout
// CHECK: nv_tileas.tiled_store %acc, %v
func.func @release(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.num_warps = 4 : i32} {
  %acc = "test.op"() : () -> tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %pa = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %r = cuda_tile.iota : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %cn = cuda_tile.constant <i32: 32> : i32
  %sn = nv_tileas.splat %cn : i32 -> tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ro = cuda_tile.muli %r, %sn : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %re = nv_tileas.expand_dims %ro {axis = 1 : i32} : tensor<64xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<64x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %rb = nv_tileas.broadcast %re : tensor<64x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %c = cuda_tile.iota : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ce = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<32xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<1x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %cb = nv_tileas.broadcast %ce : tensor<1x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %off = cuda_tile.addi %rb, %cb : tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %base = nv_tileas.splat %pa : !cuda_tile.ptr<f32> -> tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %ptrs = nv_tileas.addptr %base, %off : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, tensor<64x32xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %v = nv_tileas.view %ptrs : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> !nv_tileas.tiled_view<64x32xf32, gmem>
  %c0 = arith.constant 0 : index
  nv_tileas.tiled_store %acc, %v[%c0, %c0] {atom = #nv_tileas<atom stg_128b>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, !nv_tileas.tiled_view<64x32xf32, gmem>
  func.return
}

// -----

// Blocked: 256 elements, fewer than a 4-element vector for each of 128 threads
// (the blocked layout would hold copies).
// CHECK-LABEL: func.func @small_tile
// CHECK-NOT: convert_layout
// CHECK: nv_tileas.tiled_store %acc, %v
func.func @small_tile(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.num_warps = 4 : i32} {
  %acc = "test.op"() : () -> tensor<16x16xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %pa = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %r = cuda_tile.iota : tensor<16xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %cn = cuda_tile.constant <i32: 16> : i32
  %sn = nv_tileas.splat %cn : i32 -> tensor<16xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ro = cuda_tile.muli %r, %sn : tensor<16xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %re = nv_tileas.expand_dims %ro {axis = 1 : i32} : tensor<16xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<16x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %rb = nv_tileas.broadcast %re : tensor<16x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<16x16xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %c = cuda_tile.iota : tensor<16xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ce = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<16xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<1x16xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %cb = nv_tileas.broadcast %ce : tensor<1x16xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<16x16xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %off = cuda_tile.addi %rb, %cb : tensor<16x16xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %base = nv_tileas.splat %pa : !cuda_tile.ptr<f32> -> tensor<16x16x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %ptrs = nv_tileas.addptr %base, %off : tensor<16x16x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, tensor<16x16xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %v = nv_tileas.view %ptrs : tensor<16x16x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> !nv_tileas.tiled_view<16x16xf32, gmem>
  %c0 = arith.constant 0 : index
  nv_tileas.tiled_store %acc, %v[%c0, %c0] {atom = #nv_tileas<atom stg_128b>} : tensor<16x16xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, !nv_tileas.tiled_view<16x16xf32, gmem>
  func.return
}

// -----

// Blocked: 64 registers of the tile a thread (MAX_STAGED_WORDS is 32): kernels with
// accumulators this large sit at the register limit, and the exchange spilled.
// CHECK-LABEL: func.func @large_share
// CHECK-NOT: convert_layout
// CHECK: nv_tileas.tiled_store %acc, %v
func.func @large_share(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.num_warps = 4 : i32} {
  %acc = "test.op"() : () -> tensor<128x64xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %pa = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %r = cuda_tile.iota : tensor<128xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %cn = cuda_tile.constant <i32: 64> : i32
  %sn = nv_tileas.splat %cn : i32 -> tensor<128xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ro = cuda_tile.muli %r, %sn : tensor<128xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %re = nv_tileas.expand_dims %ro {axis = 1 : i32} : tensor<128xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<128x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %rb = nv_tileas.broadcast %re : tensor<128x1xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<128x64xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %c = cuda_tile.iota : tensor<64xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>>
  %ce = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<64xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.mma<{warpsPerCTA = [4, 1]}>}>> -> tensor<1x64xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %cb = nv_tileas.broadcast %ce : tensor<1x64xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<128x64xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %off = cuda_tile.addi %rb, %cb : tensor<128x64xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %base = nv_tileas.splat %pa : !cuda_tile.ptr<f32> -> tensor<128x64x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %ptrs = nv_tileas.addptr %base, %off : tensor<128x64x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, tensor<128x64xi32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %v = nv_tileas.view %ptrs : tensor<128x64x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> !nv_tileas.tiled_view<128x64xf32, gmem>
  %c0 = arith.constant 0 : index
  nv_tileas.tiled_store %acc, %v[%c0, %c0] {atom = #nv_tileas<atom stg_128b>} : tensor<128x64xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, !nv_tileas.tiled_view<128x64xf32, gmem>
  func.return
}

// -----

// Blocked: pointers that cannot be recomputed in the new layout (a pointer tile is
// never exchanged through shared memory).
// CHECK-LABEL: func.func @opaque_pointers
// CHECK-NOT: convert_layout
// CHECK: nv_tileas.tiled_store %acc, %v
func.func @opaque_pointers(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.num_warps = 4 : i32} {
  %acc = "test.op"() : () -> tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %ptrs = "test.op"() : () -> tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
  %v = nv_tileas.view %ptrs : tensor<64x32x!cuda_tile.ptr<f32>, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> !nv_tileas.tiled_view<64x32xf32, gmem>
  %c0 = arith.constant 0 : index
  nv_tileas.tiled_store %acc, %v[%c0, %c0] {atom = #nv_tileas<atom stg_128b>} : tensor<64x32xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>, !nv_tileas.tiled_view<64x32xf32, gmem>
  func.return
}
