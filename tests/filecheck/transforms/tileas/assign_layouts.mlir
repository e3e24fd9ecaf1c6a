// tileas-assign-layouts: every tile gets a distributed layout.  Tiled loads and
// stores anchor a coalesced blocked layout whose threads hold as many contiguous
// elements as the atom moves; expand_dims sources become slices of their result's
// layout, so broadcasting never moves data between threads.
// RUN: tileir-opt %s --split-input-file -p tileas-assign-layouts --print-local-scope | filecheck %s

// 1-D f32, 128-bit atom: four contiguous elements per thread; 256 elements fill
// two warps exactly, so the kernel runs two warps instead of four.
// CHECK-LABEL: func.func @vector1d
// CHECK-SAME: nv_tileas.num_warps = 2 : i32
// CHECK: cuda_tile.iota : tensor<256xi32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
// CHECK: nv_tileas.tiled_load {{.*}} -> tensor<256xf32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>
func.func @vector1d(%p: !cuda_tile.ptr<f32>) {
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<256xi32>
  %ptrs = nv_tileas.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
  %v = nv_tileas.view %ptrs : tensor<256x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<256xf32, gmem>
  %c0 = arith.constant 0 : index
  %x = nv_tileas.tiled_load %v[%c0] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<256xf32, gmem> -> tensor<256xf32>
  "test.op"(%x) : (tensor<256xf32>) -> ()
  func.return
}

// -----

// 2-D: rows and columns built from 1-D iotas through expand_dims + broadcast; the
// 1-D values take slice layouts of the 2-D blocked layout.
// CHECK-LABEL: func.func @slices
// CHECK: cuda_tile.iota : tensor<16xi32, #nv_tileas.slice<{dim = 1, parent = #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: nv_tileas.expand_dims {{.*}} -> tensor<16x1xi32, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: cuda_tile.iota : tensor<64xi32, #nv_tileas.slice<{dim = 0, parent = #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>}>>
// CHECK: nv_tileas.tiled_load {{.*}} -> tensor<16x64xf32, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @slices(%p: !cuda_tile.ptr<f32>) {
  %rows = cuda_tile.iota : tensor<16xi32>
  %c64 = cuda_tile.constant <i32: 64> : tensor<16xi32>
  %r = cuda_tile.muli %rows, %c64 : tensor<16xi32>
  %r2 = nv_tileas.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = nv_tileas.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = cuda_tile.iota : tensor<64xi32>
  %c2 = nv_tileas.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = nv_tileas.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = cuda_tile.addi %rb, %cb : tensor<16x64xi32>
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<16x64x!cuda_tile.ptr<f32>>
  %ptrs = nv_tileas.addptr %s, %off : tensor<16x64x!cuda_tile.ptr<f32>>, tensor<16x64xi32>
  %v = nv_tileas.view %ptrs : tensor<16x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<16x64xf32, gmem>
  %c0 = arith.constant 0 : index
  %x = nv_tileas.tiled_load %v[%c0, %c0] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<16x64xf32, gmem> -> tensor<16x64xf32>
  "test.op"(%x) : (tensor<16x64xf32>) -> ()
  func.return
}

// -----

// Loop-carried tiles keep one layout across init, block argument, yield and result.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<128xf32, #[[L:.*]]>)
// CHECK: cuda_tile.addf {{.*}} : tensor<128xf32, #[[L]]>
// CHECK: scf.yield {{.*}} : tensor<128xf32, #[[L]]>
func.func @loop(%p: !cuda_tile.ptr<f32>, %n: i32) {
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<128x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<128xi32>
  %ptrs = nv_tileas.addptr %s, %i : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
  %v = nv_tileas.view %ptrs : tensor<128x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<128xf32, gmem>
  %c0 = arith.constant 0 : index
  %x = nv_tileas.tiled_load %v[%c0] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  %zero = cuda_tile.constant <i32: 0> : i32
  %one = cuda_tile.constant <i32: 1> : i32
  %r = scf.for %k = %zero to %n step %one iter_args(%acc = %x) -> (tensor<128xf32>) : i32 {
    %y = cuda_tile.addf %acc, %x : tensor<128xf32>
    scf.yield %y : tensor<128xf32>
  }
  nv_tileas.tiled_store %r, %v[%c0] {atom = #nv_tileas<atom stg_32b>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  func.return
}

// -----

// A square tile: one iota serves as row and column index (CSE merged them), but the
// rows need it sliced along dim 1 and the columns along dim 0.  The iota is cheap,
// so it is recomputed in the second layout instead of converted.
// CHECK-LABEL: func.func @square_rematerialized
// CHECK-DAG: %[[I:.*]] = cuda_tile.iota : tensor<16xi32, #nv_tileas.slice<{dim = 1,
// CHECK-DAG: %[[J:.*]] = cuda_tile.iota : tensor<16xi32, #nv_tileas.slice<{dim = 0,
// CHECK-NOT: nv_tileas.convert_layout
// CHECK: cuda_tile.muli %[[I]]
// CHECK: nv_tileas.expand_dims %[[J]] {axis = 0 : i32}
// CHECK-NOT: nv_tileas.convert_layout
func.func @square_rematerialized(%p: !cuda_tile.ptr<f32>) {
  %i = cuda_tile.iota : tensor<16xi32>
  %c16 = cuda_tile.constant <i32: 16> : tensor<16xi32>
  %r = cuda_tile.muli %i, %c16 : tensor<16xi32>
  %r2 = nv_tileas.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = nv_tileas.broadcast %r2 : tensor<16x1xi32> -> tensor<16x16xi32>
  %c2 = nv_tileas.expand_dims %i {axis = 0 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  %cb = nv_tileas.broadcast %c2 : tensor<1x16xi32> -> tensor<16x16xi32>
  %off = cuda_tile.addi %rb, %cb : tensor<16x16xi32>
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<16x16x!cuda_tile.ptr<f32>>
  %ptrs = nv_tileas.addptr %s, %off : tensor<16x16x!cuda_tile.ptr<f32>>, tensor<16x16xi32>
  %v = nv_tileas.view %ptrs : tensor<16x16x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<16x16xf32, gmem>
  %c0 = arith.constant 0 : index
  %x = nv_tileas.tiled_load %v[%c0, %c0] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<16x16xf32, gmem> -> tensor<16x16xf32>
  "test.op"(%x) : (tensor<16x16xf32>) -> ()
  func.return
}

// -----

// One layout per rank, fitted to each tile's shape where it would make threads hold
// copies (`fitted_layout`): cuTile's FFT reshapes 2x128x64 tiles into 2x8192x1 ones, on
// which the loaded tile's layout (4 x 16 along the last dimension) left each thread
// 8192 registers for 128 elements.  The fitted layout puts the vector and the lanes
// along the dimension with elements; a smaller load of the rank (16x16x2) is fitted too.
// CHECK-LABEL: func.func @fitted_to_shape
// CHECK: nv_tileas.tiled_load {{.*}} -> tensor<2x128x64xf32, #nv_tileas.blocked<{sizePerThread = [1, 1, 4], threadsPerWarp = [1, 2, 16], warpsPerCTA = [1, 4, 1], order = [2, 1, 0]}>>
// CHECK: nv_tileas.view {{.*}} -> tensor<2x8192x1xf32, #nv_tileas.blocked<{sizePerThread = [1, 4, 1], threadsPerWarp = [1, 32, 1], warpsPerCTA = [1, 4, 1], order = [1, 0, 2]}>>
// CHECK: cuda_tile.negf {{.*}} : tensor<2x8192x1xf32, #nv_tileas.blocked<{sizePerThread = [1, 4, 1], threadsPerWarp = [1, 32, 1], warpsPerCTA = [1, 4, 1], order = [1, 0, 2]}>>
// CHECK: nv_tileas.tiled_load {{.*}} -> tensor<16x16x2xf32, #nv_tileas.blocked<{sizePerThread = [1, 1, 2], threadsPerWarp = [2, 16, 1], warpsPerCTA = [4, 1, 1], order = [2, 1, 0]}>>
func.func @fitted_to_shape(%p: !cuda_tile.ptr<f32>, %q: !cuda_tile.ptr<f32>) {
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<2x128x64x!cuda_tile.ptr<f32>>
  %v = nv_tileas.view %s : tensor<2x128x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<2x128x64xf32, gmem>
  %c0 = arith.constant 0 : index
  %x = nv_tileas.tiled_load %v[%c0, %c0, %c0] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<2x128x64xf32, gmem> -> tensor<2x128x64xf32>
  %y = nv_tileas.view %x : tensor<2x128x64xf32> -> tensor<2x8192x1xf32>
  %z = cuda_tile.negf %y : tensor<2x8192x1xf32>
  %t = nv_tileas.splat %q : !cuda_tile.ptr<f32> -> tensor<16x16x2x!cuda_tile.ptr<f32>>
  %w = nv_tileas.view %t : tensor<16x16x2x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<16x16x2xf32, gmem>
  %u = nv_tileas.tiled_load %w[%c0, %c0, %c0] {atom = #nv_tileas<atom ldg_64b>} : !nv_tileas.tiled_view<16x16x2xf32, gmem> -> tensor<16x16x2xf32>
  "test.op"(%z, %x, %u) : (tensor<2x8192x1xf32>, tensor<2x128x64xf32>, tensor<16x16x2xf32>) -> ()
  func.return
}

// -----

// A scan along the contiguous dimension: the thread's 8 elements all run along the
// scanned rows (two 16-byte vectors), so a row spans 4 lanes (two Kogge-Stone steps
// and one run per thread) instead of 8 lanes and two runs of 4.
// CHECK-LABEL: func.func @scan_rows
// CHECK: nv_tileas.tiled_load {{.*}} -> tensor<32x32xf32, #nv_tileas.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: nv_tileas.scan {{.*}} -> tensor<32x32xf32, #nv_tileas.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @scan_rows(%p: !cuda_tile.ptr<f32>) {
  %rows = cuda_tile.iota : tensor<32xi32>
  %c32 = cuda_tile.constant <i32: 32> : tensor<32xi32>
  %r = cuda_tile.muli %rows, %c32 : tensor<32xi32>
  %r2 = nv_tileas.expand_dims %r {axis = 1 : i32} : tensor<32xi32> -> tensor<32x1xi32>
  %rb = nv_tileas.broadcast %r2 : tensor<32x1xi32> -> tensor<32x32xi32>
  %cols = cuda_tile.iota : tensor<32xi32>
  %c2 = nv_tileas.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb = nv_tileas.broadcast %c2 : tensor<1x32xi32> -> tensor<32x32xi32>
  %off = cuda_tile.addi %rb, %cb : tensor<32x32xi32>
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<32x32x!cuda_tile.ptr<f32>>
  %ptrs = nv_tileas.addptr %s, %off : tensor<32x32x!cuda_tile.ptr<f32>>, tensor<32x32xi32>
  %v = nv_tileas.view %ptrs : tensor<32x32x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<32x32xf32, gmem>
  %c0 = arith.constant 0 : index
  %x = nv_tileas.tiled_load %v[%c0, %c0] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<32x32xf32, gmem> -> tensor<32x32xf32>
  %y = nv_tileas.scan %x {axis = 1 : i32, identities = [0.0 : f32], reverse = false} : tensor<32x32xf32> -> tensor<32x32xf32> {
  ^bb0(%acc: f32, %e: f32):
    %t = arith.addf %acc, %e : f32
    nv_tileas.yield %t : f32
  }
  "test.op"(%y) : (tensor<32x32xf32>) -> ()
  func.return
}

// -----

// A scan across the contiguous dimension (x_cumprod_rev_i8_axis0's 16x32 i8 along
// dim 0, one warp): 16-byte vectors along the rows left dim 0 over 16 lanes, four
// shuffle steps for each of a thread's 16 registers; the vectors narrow to 4 bytes
// and the registers they free run down the columns: dim 0 over 4 registers and 4
// lanes.
// CHECK-LABEL: func.func @scan_columns_i8
// CHECK-SAME: nv_tileas.num_warps = 1 : i32
// CHECK: nv_tileas.tiled_load {{.*}} -> tensor<16x32xi8, #nv_tileas.blocked<{sizePerThread = [4, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>
func.func @scan_columns_i8(%p: !cuda_tile.ptr<i8>) {
  %rows = cuda_tile.iota : tensor<16xi32>
  %c32 = cuda_tile.constant <i32: 32> : tensor<16xi32>
  %r = cuda_tile.muli %rows, %c32 : tensor<16xi32>
  %r2 = nv_tileas.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = nv_tileas.broadcast %r2 : tensor<16x1xi32> -> tensor<16x32xi32>
  %cols = cuda_tile.iota : tensor<32xi32>
  %c2 = nv_tileas.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb = nv_tileas.broadcast %c2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %off = cuda_tile.addi %rb, %cb : tensor<16x32xi32>
  %s = nv_tileas.splat %p : !cuda_tile.ptr<i8> -> tensor<16x32x!cuda_tile.ptr<i8>>
  %ptrs = nv_tileas.addptr %s, %off : tensor<16x32x!cuda_tile.ptr<i8>>, tensor<16x32xi32>
  %v = nv_tileas.view %ptrs : tensor<16x32x!cuda_tile.ptr<i8>> -> !nv_tileas.tiled_view<16x32xi8, gmem>
  %c0 = arith.constant 0 : index
  %x = nv_tileas.tiled_load %v[%c0, %c0] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<16x32xi8, gmem> -> tensor<16x32xi8>
  %y = nv_tileas.scan %x {axis = 0 : i32, identities = [1 : i8], reverse = true} : tensor<16x32xi8> -> tensor<16x32xi8> {
  ^bb0(%acc: i8, %e: i8):
    %t = arith.muli %acc, %e : i8
    nv_tileas.yield %t : i8
  }
  "test.op"(%y) : (tensor<16x32xi8>) -> ()
  func.return
}

// -----

// A tile reshaped only to be reduced (cuTile's `argmax(x, axis=None)`: a 2-D tile
// flattened, reduced with an `iota` of its indices) keeps its loaded layout seen through
// the reshape (4 contiguous f32 a thread), and the iota takes it too: the reshape
// renames registers.  The rank's layout from the 1-element store (one element a
// thread) would have exchanged the whole tile through shared memory: 256 KiB for
// NVIDIA's 512x128 sample, more than a CTA has (`renamed_reshape_results`).
// CHECK-LABEL: func.func @reshaped_for_reduce
// CHECK: nv_tileas.tiled_load {{.*}} -> tensor<64x32xf32, #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>>
// CHECK: nv_tileas.view {{.*}} -> tensor<2048xf32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: cuda_tile.iota : tensor<2048xi32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK-NOT: convert_layout
func.func @reshaped_for_reduce(%p: !cuda_tile.ptr<f32>, %q: !cuda_tile.ptr<i32>) {
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<64x32x!cuda_tile.ptr<f32>>
  %v = nv_tileas.view %s : tensor<64x32x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<64x32xf32, gmem>
  %c0 = arith.constant 0 : index
  %x = nv_tileas.tiled_load %v[%c0, %c0] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<64x32xf32, gmem> -> tensor<64x32xf32>
  %flat = nv_tileas.view %x : tensor<64x32xf32> -> tensor<2048xf32>
  %i = cuda_tile.iota : tensor<2048xi32>
  %r, %j = nv_tileas.reduce %flat, %i {axis = 0 : i32, identities = [0xff800000 : f32, 0 : i32]} : tensor<2048xf32>, tensor<2048xi32> -> f32, i32 {
  ^bb0(%b0: f32, %b1: i32, %a0: f32, %a1: i32):
    %gt = cuda_tile.cmpf greater_than ordered %a0, %b0 : f32 -> i1
    %v0 = cuda_tile.select %gt, %a0, %b0 : i1, f32
    %v1 = cuda_tile.select %gt, %a1, %b1 : i1, i32
    nv_tileas.yield %v0, %v1 : f32, i32
  }
  %o = nv_tileas.splat %j : i32 -> tensor<1xi32>
  %t = nv_tileas.splat %q : !cuda_tile.ptr<i32> -> tensor<1x!cuda_tile.ptr<i32>>
  %w = nv_tileas.view %t : tensor<1x!cuda_tile.ptr<i32>> -> !nv_tileas.tiled_view<1xi32, gmem>
  nv_tileas.tiled_store %o, %w[%c0] {atom = #nv_tileas<atom stg_32b>} : tensor<1xi32>, !nv_tileas.tiled_view<1xi32, gmem>
  func.return
}
