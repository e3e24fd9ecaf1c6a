// convert-tileaa-to-tileas: pointer-tile loads and stores become tiled memory ops on
// a gmem view, carrying the widest copy atom the addresses allow (16 bytes per
// thread at most); a constant fallback becomes the padding value.
// RUN: tileir-opt %s --split-input-file -p convert-tileaa-to-tileas | filecheck %s

// 16-byte aligned contiguous f32: 128-bit accesses (ld.global.v4.b32).
// CHECK-LABEL: func.func @aligned_f32
// CHECK: %[[V:.*]] = nv_tileas.view %{{.*}} : tensor<256x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<256xf32, gmem>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: nv_tileas.tiled_load %[[V]][%[[C0]]] mask %{{.*}} token %{{.*}} {atom = #nv_tileas<atom ldg_128b>, in_bounds = array<i1: false>, padding_value = 0.000000e+00 : f32}
// CHECK: nv_tileas.tiled_store %{{.*}}, %{{.*}}[%{{.*}}] token %{{.*}} {atom = #nv_tileas<atom stg_128b>, in_bounds = array<i1: true>}
func.func @aligned_f32(%p: !cuda_tile.ptr<f32>, %m: tensor<256xi1>, %t: !nv_tileaa.mem_token) {
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %s = nv_tileaa.splat %a : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<256xi32>
  %ptrs = nv_tileaa.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
  %zero = cuda_tile.constant <f32: 0.0> : tensor<256xf32>
  %x, %t1 = nv_tileaa.load weak %ptrs, %m, %zero token %t : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi1>, tensor<256xf32> -> tensor<256xf32>
  %t2 = nv_tileaa.store weak %ptrs, %x token %t1 : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xf32>
  func.return
}

// -----

// Without an alignment fact, a pointer is only known to be element-aligned: 32-bit
// accesses.
// CHECK-LABEL: func.func @unaligned_f32
// CHECK: nv_tileas.tiled_load {{.*}}atom = #nv_tileas<atom ldg_32b>
func.func @unaligned_f32(%p: !cuda_tile.ptr<f32>) {
  %s = nv_tileaa.splat %p : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<256xi32>
  %ptrs = nv_tileaa.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs : tensor<256x!cuda_tile.ptr<f32>> -> tensor<256xf32>
  "test.op"(%x) : (tensor<256xf32>) -> ()
  func.return
}

// -----

// f16 rows with a pitch divisible by 8 elements and a 16-byte aligned base: eight
// halves per access along the contiguous dimension.
// CHECK-LABEL: func.func @f16_rows
// CHECK: nv_tileas.tiled_load {{.*}}atom = #nv_tileas<atom ldg_128b>
func.func @f16_rows(%p: !cuda_tile.ptr<f16>, %pitch: i32) {
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f16>
  %d = nv_tileaa.assume %pitch, #cuda_tile.div_by<8> : i32
  %rows = cuda_tile.iota : tensor<16xi32>
  %ps = nv_tileaa.splat %d : i32 -> tensor<16xi32>
  %r = cuda_tile.muli %rows, %ps : tensor<16xi32>
  %r2 = nv_tileaa.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = nv_tileaa.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = cuda_tile.iota : tensor<64xi32>
  %c2 = nv_tileaa.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = nv_tileaa.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = cuda_tile.addi %rb, %cb : tensor<16x64xi32>
  %s = nv_tileaa.splat %a : !cuda_tile.ptr<f16> -> tensor<16x64x!cuda_tile.ptr<f16>>
  %ptrs = nv_tileaa.addptr %s, %off : tensor<16x64x!cuda_tile.ptr<f16>>, tensor<16x64xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs : tensor<16x64x!cuda_tile.ptr<f16>> -> tensor<16x64xf16>
  "test.op"(%x) : (tensor<16x64xf16>) -> ()
  func.return
}

// -----

// Memory semantics carry over: relaxed device -> mem_semantic relaxed, mem_scope gpu.
// CHECK-LABEL: func.func @semantics
// CHECK: nv_tileas.tiled_load {{.*}}mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>
func.func @semantics(%ptrs: tensor<32x!cuda_tile.ptr<i32>>) {
  %x, %t1 = nv_tileaa.load relaxed device %ptrs : tensor<32x!cuda_tile.ptr<i32>> -> tensor<32xi32>
  "test.op"(%x) : (tensor<32xi32>) -> ()
  func.return
}

// -----

// The pitch limits the vector: rows start every `pitch` elements, so with a pitch
// only known divisible by 2 (8 bytes of f32) a 16-byte vector would straddle rows
// that are not 16-byte aligned. The widest safe access is 64 bits.
// CHECK-LABEL: func.func @pitch_limits_vector
// CHECK: nv_tileas.tiled_load {{.*}}atom = #nv_tileas<atom ldg_64b>
func.func @pitch_limits_vector(%p: !cuda_tile.ptr<f32>, %pitch: i32) {
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %d = nv_tileaa.assume %pitch, #cuda_tile.div_by<2> : i32
  %rows = cuda_tile.iota : tensor<16xi32>
  %ps = nv_tileaa.splat %d : i32 -> tensor<16xi32>
  %r = cuda_tile.muli %rows, %ps : tensor<16xi32>
  %r2 = nv_tileaa.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = nv_tileaa.broadcast %r2 : tensor<16x1xi32> -> tensor<16x32xi32>
  %cols = cuda_tile.iota : tensor<32xi32>
  %c2 = nv_tileaa.expand_dims %cols {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %cb = nv_tileaa.broadcast %c2 : tensor<1x32xi32> -> tensor<16x32xi32>
  %off = cuda_tile.addi %rb, %cb : tensor<16x32xi32>
  %s = nv_tileaa.splat %a : !cuda_tile.ptr<f32> -> tensor<16x32x!cuda_tile.ptr<f32>>
  %ptrs = nv_tileaa.addptr %s, %off : tensor<16x32x!cuda_tile.ptr<f32>>, tensor<16x32xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs : tensor<16x32x!cuda_tile.ptr<f32>> -> tensor<16x32xf32>
  "test.op"(%x) : (tensor<16x32xf32>) -> ()
  func.return
}

// -----

// A pitch with no divisibility fact: rows may start at any element, so accesses are
// one element wide even though each row is contiguous and the base is aligned.
// CHECK-LABEL: func.func @unknown_pitch
// CHECK: nv_tileas.tiled_load {{.*}}atom = #nv_tileas<atom ldg_16b>
func.func @unknown_pitch(%p: !cuda_tile.ptr<bf16>, %pitch: i32) {
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<bf16>
  %rows = cuda_tile.iota : tensor<16xi32>
  %ps = nv_tileaa.splat %pitch : i32 -> tensor<16xi32>
  %r = cuda_tile.muli %rows, %ps : tensor<16xi32>
  %r2 = nv_tileaa.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = nv_tileaa.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %cols = cuda_tile.iota : tensor<64xi32>
  %c2 = nv_tileaa.expand_dims %cols {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %cb = nv_tileaa.broadcast %c2 : tensor<1x64xi32> -> tensor<16x64xi32>
  %off = cuda_tile.addi %rb, %cb : tensor<16x64xi32>
  %s = nv_tileaa.splat %a : !cuda_tile.ptr<bf16> -> tensor<16x64x!cuda_tile.ptr<bf16>>
  %ptrs = nv_tileaa.addptr %s, %off : tensor<16x64x!cuda_tile.ptr<bf16>>, tensor<16x64xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs : tensor<16x64x!cuda_tile.ptr<bf16>> -> tensor<16x64xbf16>
  "test.op"(%x) : (tensor<16x64xbf16>) -> ()
  func.return
}

// -----

// `iota + 1` is contiguous but its run starts one element (4 bytes) past the
// aligned base: a 16-byte vector would be misaligned, so accesses are 32-bit.
// CHECK-LABEL: func.func @shifted_run
// CHECK: nv_tileas.tiled_load {{.*}}atom = #nv_tileas<atom ldg_32b>
func.func @shifted_run(%p: !cuda_tile.ptr<f32>) {
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %i = cuda_tile.iota : tensor<64xi32>
  %one = cuda_tile.constant <i32: 1> : tensor<64xi32>
  %off = cuda_tile.addi %i, %one : tensor<64xi32>
  %s = nv_tileaa.splat %a : !cuda_tile.ptr<f32> -> tensor<64x!cuda_tile.ptr<f32>>
  %ptrs = nv_tileaa.addptr %s, %off : tensor<64x!cuda_tile.ptr<f32>>, tensor<64xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs : tensor<64x!cuda_tile.ptr<f32>> -> tensor<64xf32>
  "test.op"(%x) : (tensor<64xf32>) -> ()
  func.return
}

// -----

// A bool is a byte in memory: 16 contiguous bools of a 16-byte aligned base move in
// one 16-byte access, as i8 would (they were always one byte at a time); 4-byte
// aligned, 4 at a time.
// CHECK-LABEL: func.func @aligned_bools
// CHECK: nv_tileas.tiled_load {{.*}}atom = #nv_tileas<atom ldg_128b>
// CHECK: nv_tileas.tiled_store {{.*}}atom = #nv_tileas<atom stg_128b>
// CHECK: nv_tileas.tiled_load {{.*}}atom = #nv_tileas<atom ldg_32b>
func.func @aligned_bools(%p: !cuda_tile.ptr<i1>, %q: !cuda_tile.ptr<i1>) {
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<i1>
  %i = cuda_tile.iota : tensor<256xi32>
  %s = nv_tileaa.splat %a : !cuda_tile.ptr<i1> -> tensor<256x!cuda_tile.ptr<i1>>
  %ptrs = nv_tileaa.addptr %s, %i : tensor<256x!cuda_tile.ptr<i1>>, tensor<256xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs : tensor<256x!cuda_tile.ptr<i1>> -> tensor<256xi1>
  %t2 = nv_tileaa.store weak %ptrs, %x token %t1 : tensor<256x!cuda_tile.ptr<i1>>, tensor<256xi1>
  %b = nv_tileaa.assume %q, #cuda_tile.div_by<4> : !cuda_tile.ptr<i1>
  %sq = nv_tileaa.splat %b : !cuda_tile.ptr<i1> -> tensor<256x!cuda_tile.ptr<i1>>
  %qs = nv_tileaa.addptr %sq, %i : tensor<256x!cuda_tile.ptr<i1>>, tensor<256xi32>
  %y, %t3 = nv_tileaa.load weak %qs : tensor<256x!cuda_tile.ptr<i1>> -> tensor<256xi1>
  "test.op"(%y) : (tensor<256xi1>) -> ()
  func.return
}
