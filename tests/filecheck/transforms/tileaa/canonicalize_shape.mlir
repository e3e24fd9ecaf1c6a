// tileaa-canonicalize, shape folds (seed 004 rows "Shape wrappers", "Assumptions over
// splats", "Select over splats", "Extract motion"): each rewrite and each safety
// condition that blocks it.  Shape folds keep the final result type exactly.
// RUN: tileir-opt %s --split-input-file -p tileaa-canonicalize | filecheck %s

// broadcast, expand_dims and view around a splat fold into one splat of the final type.
// CHECK-LABEL: func.func @shape_folds
// CHECK-NEXT: %[[S:.*]] = nv_tileaa.splat %x : f32 -> tensor<8x16xf32>
// CHECK-NEXT: %[[E:.*]] = nv_tileaa.splat %x : f32 -> tensor<1x16xf32>
// CHECK-NEXT: %[[V:.*]] = nv_tileaa.splat %x : f32 -> tensor<128xf32>
// CHECK-NEXT: "test.op"(%[[S]], %[[E]], %[[V]])
func.func @shape_folds(%x: f32) {
  %0 = nv_tileaa.splat %x : f32 -> tensor<1x16xf32>
  %1 = nv_tileaa.broadcast %0 : tensor<1x16xf32> -> tensor<8x16xf32>
  %2 = nv_tileaa.splat %x : f32 -> tensor<16xf32>
  %3 = nv_tileaa.expand_dims %2 {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
  %4 = nv_tileaa.view %1 : tensor<8x16xf32> -> tensor<128xf32>
  "test.op"(%1, %3, %4) : (tensor<8x16xf32>, tensor<1x16xf32>, tensor<128xf32>) -> ()
  func.return
}

// -----

// Blocked: wrappers of a value that is not a splat stay.
// CHECK-LABEL: func.func @shape_blocked
// CHECK-NEXT: nv_tileaa.broadcast %t : tensor<1x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT: nv_tileaa.expand_dims %t {axis = 0 : i32} : tensor<1x16xf32> -> tensor<1x1x16xf32>
func.func @shape_blocked(%t: tensor<1x16xf32>) {
  %0 = nv_tileaa.broadcast %t : tensor<1x16xf32> -> tensor<8x16xf32>
  %1 = nv_tileaa.expand_dims %t {axis = 0 : i32} : tensor<1x16xf32> -> tensor<1x1x16xf32>
  "test.op"(%0, %1) : (tensor<8x16xf32>, tensor<1x1x16xf32>) -> ()
  func.return
}

// -----

// A chain of views folds into one view of the final type; a view to its own type
// disappears.  Blocked: a single view of a non-splat stays.
// CHECK-LABEL: func.func @view_chain
// CHECK-NEXT: %[[V:.*]] = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: %[[W:.*]] = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<8x4xf32>
// CHECK-NEXT: "test.op"(%[[V]], %t, %[[W]])
func.func @view_chain(%t: tensor<4x8xf32>) {
  %0 = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = nv_tileaa.view %0 : tensor<2x16xf32> -> tensor<32xf32>
  %2 = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<8x4xf32>
  "test.op"(%1, %2, %3) : (tensor<32xf32>, tensor<4x8xf32>, tensor<8x4xf32>) -> ()
  func.return
}

// -----

// Views to rank 0 (a one-element tile to its scalar): a chain ends in one view to the
// scalar, and the view of a splat is the splatted scalar itself.  Blocked: the view
// of a loaded one-element tile stays.
// CHECK-LABEL: func.func @view_to_scalar
// CHECK-NEXT: %[[V:.*]] = nv_tileaa.view %t : tensor<1x1xi64> -> i64
// CHECK-NEXT: "test.op"(%[[V]], %x) : (i64, f32) -> ()
func.func @view_to_scalar(%t: tensor<1x1xi64>, %x: f32) {
  %0 = nv_tileaa.view %t : tensor<1x1xi64> -> tensor<1xi64>
  %1 = nv_tileaa.view %0 : tensor<1xi64> -> i64
  %2 = nv_tileaa.splat %x : f32 -> tensor<1xf32>
  %3 = nv_tileaa.view %2 : tensor<1xf32> -> f32
  "test.op"(%1, %3) : (i64, f32) -> ()
  func.return
}

// -----

// assume(splat(x), pred) -> splat(assume(x, pred)) for elementwise predicates
// (div_by<N>, bounded): the fact moves to the scalar.
// CHECK-LABEL: func.func @assume_splat
// CHECK-NEXT: %[[A:.*]] = nv_tileaa.assume %x, #cuda_tile.div_by<16> : i32
// CHECK-NEXT: %[[S:.*]] = nv_tileaa.splat %[[A]] : i32 -> tensor<16xi32>
// CHECK-NEXT: %[[B:.*]] = nv_tileaa.assume %x, #cuda_tile.bounded<0, 100> : i32
// CHECK-NEXT: %[[T:.*]] = nv_tileaa.splat %[[B]] : i32 -> tensor<16xi32>
// CHECK-NEXT: "test.op"(%[[S]], %[[T]])
func.func @assume_splat(%x: i32, %p: !cuda_tile.ptr<f32>) {
  %0 = nv_tileaa.splat %x : i32 -> tensor<16xi32>
  %1 = nv_tileaa.assume %0, #cuda_tile.div_by<16> : tensor<16xi32>
  %2 = nv_tileaa.assume %0, #cuda_tile.bounded<0, 100> : tensor<16xi32>
  "test.op"(%1, %2) : (tensor<16xi32>, tensor<16xi32>) -> ()
  func.return
}

// -----

// Blocked: predicates that depend on lane positions (div_by ... every ... along,
// same_elements), and an operand that is not a splat.
// CHECK-LABEL: func.func @assume_splat_blocked
// CHECK-NEXT: %[[S:.*]] = nv_tileaa.splat %x : i32 -> tensor<16xi32>
// CHECK-NEXT: nv_tileaa.assume %[[S]], #cuda_tile.div_by<4, every 4 along 0> : tensor<16xi32>
// CHECK-NEXT: nv_tileaa.assume %[[S]], #cuda_tile.same_elements<[16]> : tensor<16xi32>
// CHECK-NEXT: nv_tileaa.assume %t, #cuda_tile.div_by<16> : tensor<16xi32>
func.func @assume_splat_blocked(%x: i32, %t: tensor<16xi32>) {
  %0 = nv_tileaa.splat %x : i32 -> tensor<16xi32>
  %1 = nv_tileaa.assume %0, #cuda_tile.div_by<4, every 4 along 0> : tensor<16xi32>
  %2 = nv_tileaa.assume %0, #cuda_tile.same_elements<[16]> : tensor<16xi32>
  %3 = nv_tileaa.assume %t, #cuda_tile.div_by<16> : tensor<16xi32>
  "test.op"(%1, %2, %3) : (tensor<16xi32>, tensor<16xi32>, tensor<16xi32>) -> ()
  func.return
}

// -----

// splat(select(c, t, f)) -> select(splat(c), splat(t), splat(f)); all three splats have
// the original splat's shape.
// CHECK-LABEL: func.func @select_splat
// CHECK-NEXT: %[[C:.*]] = nv_tileaa.splat %c : i1 -> tensor<4x4xi1>
// CHECK-NEXT: %[[T:.*]] = nv_tileaa.splat %a : f32 -> tensor<4x4xf32>
// CHECK-NEXT: %[[F:.*]] = nv_tileaa.splat %b : f32 -> tensor<4x4xf32>
// CHECK-NEXT: %[[S:.*]] = nv_tileaa.select %[[C]], %[[T]], %[[F]] : tensor<4x4xi1>, tensor<4x4xf32>
// CHECK-NEXT: "test.op"(%[[S]])
func.func @select_splat(%c: i1, %a: f32, %b: f32) {
  %0 = nv_tileaa.select %c, %a, %b : i1, f32
  %1 = nv_tileaa.splat %0 : f32 -> tensor<4x4xf32>
  "test.op"(%1) : (tensor<4x4xf32>) -> ()
  func.return
}

// -----

// Blocked: a splat of something other than a select.
// CHECK-LABEL: func.func @select_splat_blocked
// CHECK: nv_tileaa.splat %{{.*}} : f32 -> tensor<4x4xf32>
// CHECK-NOT: nv_tileaa.select
func.func @select_splat_blocked(%c: i1, %a: f32, %b: f32) {
  %0 = "test.op"(%c, %a, %b) : (i1, f32, f32) -> f32
  %1 = nv_tileaa.splat %0 : f32 -> tensor<4x4xf32>
  "test.op"(%1) : (tensor<4x4xf32>) -> ()
  func.return
}

// -----

// extract(f(a, b)) -> f(extract(a), extract(b)) for an elementwise f whose lanes map one
// to one: the work is done on the sub-tile only.
// CHECK-LABEL: func.func @extract_elementwise
// CHECK-NEXT: %[[A:.*]] = nv_tileaa.extract %a[%i, %j] : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[B:.*]] = nv_tileaa.extract %b[%i, %j] : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[S:.*]] = cuda_tile.addf %[[A]], %[[B]] {{.*}}: tensor<4x16xf32>
// CHECK-NEXT: "test.op"(%[[S]])
func.func @extract_elementwise(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %i: i32, %j: i32) {
  %0 = cuda_tile.addf %a, %b rounding<nearest_even> : tensor<8x16xf32>
  %1 = nv_tileaa.extract %0[%i, %j] : tensor<8x16xf32> -> tensor<4x16xf32>
  "test.op"(%1) : (tensor<4x16xf32>) -> ()
  func.return
}

// -----

// extract(expand_dims(x, d)) -> expand_dims(extract(x)) when the unit dimension is
// extracted whole (its index dropped).
// CHECK-LABEL: func.func @extract_expand_dims
// CHECK-NEXT: %[[E:.*]] = nv_tileaa.extract %a[%j] : tensor<16xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[X:.*]] = nv_tileaa.expand_dims %[[E]] {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>
// CHECK-NEXT: "test.op"(%[[X]])
func.func @extract_expand_dims(%a: tensor<16xf32>, %i: i32, %j: i32) {
  %0 = nv_tileaa.expand_dims %a {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
  %1 = nv_tileaa.extract %0[%i, %j] : tensor<1x16xf32> -> tensor<1x4xf32>
  "test.op"(%1) : (tensor<1x4xf32>) -> ()
  func.return
}

// -----

// Blocked: an elementwise op with another user (hoisting would compute it twice), and
// a broadcast, whose lanes do not map one to one to the source lanes.
// CHECK-LABEL: func.func @extract_blocked
// CHECK-NEXT: %[[S:.*]] = cuda_tile.addf %a, %b
// CHECK-NEXT: nv_tileaa.extract %[[S]][%i, %j] : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: nv_tileaa.expand_dims %r
// CHECK-NEXT: %[[B:.*]] = nv_tileaa.broadcast
// CHECK-NEXT: nv_tileaa.extract %[[B]][%i, %j] : tensor<16x8xf32> -> tensor<4x4xf32>
func.func @extract_blocked(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %r: tensor<16xf32>, %i: i32, %j: i32) {
  %0 = cuda_tile.addf %a, %b rounding<nearest_even> : tensor<8x16xf32>
  %1 = nv_tileaa.extract %0[%i, %j] : tensor<8x16xf32> -> tensor<4x16xf32>
  %2 = nv_tileaa.expand_dims %r {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
  %3 = nv_tileaa.broadcast %2 : tensor<16x1xf32> -> tensor<16x8xf32>
  %4 = nv_tileaa.extract %3[%i, %j] : tensor<16x8xf32> -> tensor<4x4xf32>
  "test.op"(%0, %1, %4) : (tensor<8x16xf32>, tensor<4x16xf32>, tensor<4x4xf32>) -> ()
  func.return
}

// -----

// The same for cuda_tile's select on scalars.
// CHECK-LABEL: func.func @ct_select_splat
// CHECK-NEXT: %[[C:.*]] = nv_tileaa.splat %c : i1 -> tensor<4xi1>
// CHECK-NEXT: %[[T:.*]] = nv_tileaa.splat %a : f32 -> tensor<4xf32>
// CHECK-NEXT: %[[F:.*]] = nv_tileaa.splat %b : f32 -> tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = cuda_tile.select %[[C]], %[[T]], %[[F]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: "test.op"(%[[S]])
func.func @ct_select_splat(%c: i1, %a: f32, %b: f32) {
  %0 = "cuda_tile.select"(%c, %a, %b) : (i1, f32, f32) -> f32
  %1 = nv_tileaa.splat %0 : f32 -> tensor<4xf32>
  "test.op"(%1) : (tensor<4xf32>) -> ()
  func.return
}

// -----

// Blocked: the elementwise op is outside the loop that extracts from it; hoisting
// would move the work into every iteration.
// CHECK-LABEL: func.func @extract_blocked_across_blocks
// CHECK-NEXT: %[[S:.*]] = cuda_tile.addf %a, %b
// CHECK: scf.for
// CHECK-NEXT: nv_tileaa.extract %[[S]][%i, %i] : tensor<8x16xf32> -> tensor<4x16xf32>
func.func @extract_blocked_across_blocks(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %i: i32, %lb: index, %ub: index, %st: index) {
  %0 = cuda_tile.addf %a, %b rounding<nearest_even> : tensor<8x16xf32>
  scf.for %k = %lb to %ub step %st {
    %1 = nv_tileaa.extract %0[%i, %i] : tensor<8x16xf32> -> tensor<4x16xf32>
    "test.op"(%1) : (tensor<4x16xf32>) -> ()
  }
  func.return
}
