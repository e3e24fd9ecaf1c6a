// convert-tileaa-to-tileas: pointer arithmetic and assumptions become tileir's nv_tileas
// pointer ops (tileir/conversions/tileaa_pointers.py; seed 003 has neither), and the
// kernel marker `nv_tileaa.kernel` becomes `nv_tileas.kernel`: no nv_tileaa op or
// attribute is left.  The layouts come later, from tileas-assign-layouts
// (tileaa_to_tileas_pointers_corpus.test).
// RUN: tileir-opt %s --split-input-file -p convert-tileaa-to-tileas | filecheck %s

// nv_tileaa.addptr (the lifted cuda_tile `offset`), on a tile of pointers and on one
// pointer, becomes nv_tileas.addptr with the same operands and type; the assumptions
// keep their cuda_tile predicates as they are (div_by on a pointer, bounded on an
// integer, same_elements on a tile).
// CHECK-LABEL: func.func @addptr_assume
// CHECK-SAME: attributes {nv_tileas.kernel}
// CHECK: %[[A:.*]] = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
// CHECK: %[[B:.*]] = nv_tileas.assume %n, #cuda_tile.bounded<0, ?> : i32
// CHECK: %[[Q:.*]] = nv_tileas.addptr %[[A]], %[[B]] : !cuda_tile.ptr<f32>, i32
// CHECK: %[[S:.*]] = nv_tileas.splat %[[Q]] : !cuda_tile.ptr<f32> -> tensor<64x!cuda_tile.ptr<f32>>
// CHECK: %[[O:.*]] = nv_tileas.assume %off, #cuda_tile.same_elements<[4]> : tensor<64xi64>
// CHECK: %[[P:.*]] = nv_tileas.addptr %[[S]], %[[O]] : tensor<64x!cuda_tile.ptr<f32>>, tensor<64xi64>
// CHECK: func.return %[[P]]
// CHECK-NOT: nv_tileaa.
func.func @addptr_assume(%p: !cuda_tile.ptr<f32>, %n: i32, %off: tensor<64xi64>) -> tensor<64x!cuda_tile.ptr<f32>> attributes {nv_tileaa.kernel} {
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %b = nv_tileaa.assume %n, #cuda_tile.bounded<0, ?> : i32
  %q = nv_tileaa.addptr %a, %b : !cuda_tile.ptr<f32>, i32
  %s = nv_tileaa.splat %q : !cuda_tile.ptr<f32> -> tensor<64x!cuda_tile.ptr<f32>>
  %o = nv_tileaa.assume %off, #cuda_tile.same_elements<[4]> : tensor<64xi64>
  %ptrs = nv_tileaa.addptr %s, %o : tensor<64x!cuda_tile.ptr<f32>>, tensor<64xi64>
  func.return %ptrs : tensor<64x!cuda_tile.ptr<f32>>
}

// -----

// cuda_tile `offset`, which lifting keeps on builtin carriers (gather/scatter and
// atomics address their pointers with it), becomes nv_tileas.addptr too.
// CHECK-LABEL: func.func @offset
// CHECK: %[[Q:.*]] = nv_tileas.addptr %p, %i : !cuda_tile.ptr<i32>, i64
// CHECK: %[[T:.*]] = nv_tileas.addptr %t, %o : tensor<256x!cuda_tile.ptr<i32>>, tensor<256xi64>
// CHECK: func.return %[[Q]], %[[T]]
// CHECK-NOT: cuda_tile.offset
func.func @offset(%p: !cuda_tile.ptr<i32>, %i: i64, %t: tensor<256x!cuda_tile.ptr<i32>>, %o: tensor<256xi64>) -> (!cuda_tile.ptr<i32>, tensor<256x!cuda_tile.ptr<i32>>) {
  %q = cuda_tile.offset %p, %i : !cuda_tile.ptr<i32>, i64 -> !cuda_tile.ptr<i32>
  %r = cuda_tile.offset %t, %o : tensor<256x!cuda_tile.ptr<i32>>, tensor<256xi64> -> tensor<256x!cuda_tile.ptr<i32>>
  func.return %q, %r : !cuda_tile.ptr<i32>, tensor<256x!cuda_tile.ptr<i32>>
}

// -----

// The analysis still sees the facts through the converted ops: a 16-byte aligned base
// advanced by a multiple of four f32 elements, then by a contiguous iota, gives 128-bit
// accesses (the addptr chain and the assumptions are converted before the load asks).
// CHECK-LABEL: func.func @vector_width
// CHECK: nv_tileas.tiled_load {{.*}}atom = #nv_tileas<atom ldg_128b>
func.func @vector_width(%p: !cuda_tile.ptr<f32>, %n: i32) {
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %d = nv_tileaa.assume %n, #cuda_tile.div_by<4> : i32
  %b = nv_tileaa.addptr %a, %d : !cuda_tile.ptr<f32>, i32
  %s = nv_tileaa.splat %b : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<256xi32>
  %ptrs = nv_tileaa.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs : tensor<256x!cuda_tile.ptr<f32>> -> tensor<256xf32>
  "test.op"(%x) : (tensor<256xf32>) -> ()
  func.return
}

// -----

// nv_tileaa.select chooses per element: it becomes cuda_tile.select on the same
// carriers (the per-element exception), on tiles and on scalars.
// CHECK-LABEL: func.func @select
// CHECK: %[[R:.*]] = cuda_tile.select %c, %t, %f : tensor<64xi1>, tensor<64xf32>
// CHECK: %[[S:.*]] = cuda_tile.select %b, %x, %y : i1, i32
// CHECK: func.return %[[R]], %[[S]]
// CHECK-NOT: nv_tileaa.
func.func @select(%c: tensor<64xi1>, %t: tensor<64xf32>, %f: tensor<64xf32>, %b: i1, %x: i32, %y: i32) -> (tensor<64xf32>, i32) attributes {nv_tileaa.kernel} {
  %r = nv_tileaa.select %c, %t, %f : tensor<64xi1>, tensor<64xf32>
  %s = nv_tileaa.select %b, %x, %y : i1, i32
  func.return %r, %s : tensor<64xf32>, i32
}
