// nv_tileaa verifier rules: shape wrappers, select, dot (valid forms in tile.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

func.func @splat_type(%x: f16) {
  // expected-error@+1 {{'nv_tileaa.splat' op operand type f16 must be the element type of tensor<4xf32>}}
  %0 = nv_tileaa.splat %x : f16 -> tensor<4xf32>
  func.return
}

// -----

func.func @broadcast_shape(%x: tensor<2x8xf32>) {
  // expected-error@+1 {{'nv_tileaa.broadcast' op cannot broadcast [2, 8] to [4, 8]}}
  %0 = nv_tileaa.broadcast %x : tensor<2x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @broadcast_element(%x: tensor<1x8xf32>) {
  // expected-error@+1 {{'nv_tileaa.broadcast' op element type mismatch: f32 vs f16}}
  %0 = nv_tileaa.broadcast %x : tensor<1x8xf32> -> tensor<4x8xf16>
  func.return
}

// -----

func.func @expand_axis(%x: tensor<8xf32>) {
  // expected-error@+1 {{'nv_tileaa.expand_dims' op axis 2 out of range for rank 1}}
  %0 = nv_tileaa.expand_dims %x {axis = 2 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  func.return
}

// -----

func.func @expand_shape(%x: tensor<8xf32>) {
  // expected-error@+1 {{'nv_tileaa.expand_dims' op expected result shape [1, 8], got [8, 1]}}
  %0 = nv_tileaa.expand_dims %x {axis = 0 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  func.return
}

// -----

func.func @view_count(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'nv_tileaa.view' op source and result must have the same number of elements}}
  %0 = nv_tileaa.view %x : tensor<4x8xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @view_scalar(%x: f32) {
  // expected-error@+1 {{'nv_tileaa.view' op source must be a tensor, got f32}}
  %0 = nv_tileaa.view %x : f32 -> f32
  func.return
}

// -----

func.func @view_to_scalar_count(%x: tensor<2xf32>) {
  // expected-error@+1 {{'nv_tileaa.view' op source and result must have the same number of elements}}
  %0 = nv_tileaa.view %x : tensor<2xf32> -> f32
  func.return
}

// -----

func.func @view_to_scalar_element(%x: tensor<1xf32>) {
  // expected-error@+1 {{'nv_tileaa.view' op a rank-0 result must be the element type f32, got i32}}
  %0 = nv_tileaa.view %x : tensor<1xf32> -> i32
  func.return
}

// -----

func.func @extract_rank(%x: tensor<4x8xf32>, %i: i32) {
  // expected-error@+1 {{'nv_tileaa.extract' op result rank 1 differs from the source rank 2}}
  %0 = nv_tileaa.extract %x[%i, %i] : tensor<4x8xf32> -> tensor<8xf32>
  func.return
}

// -----

func.func @extract_indices(%x: tensor<4x8xf32>, %i: i32) {
  // expected-error@+1 {{'nv_tileaa.extract' op expects 2 indices (one per dimension), got 1}}
  %0 = nv_tileaa.extract %x[%i] : tensor<4x8xf32> -> tensor<2x8xf32>
  func.return
}

// -----

func.func @extract_divide(%x: tensor<4x8xf32>, %i: i32) {
  // expected-error@+1 {{'nv_tileaa.extract' op result shape [3, 8] must divide the source shape [4, 8]}}
  %0 = nv_tileaa.extract %x[%i, %i] : tensor<4x8xf32> -> tensor<3x8xf32>
  func.return
}

// -----

func.func @select_cond(%c: i8, %x: f32) {
  // expected-error@+1 {{'nv_tileaa.select' op condition must be i1, got i8}}
  %0 = nv_tileaa.select %c, %x, %x : i8, f32
  func.return
}

// -----

func.func @select_shape(%c: tensor<4xi1>, %x: tensor<8xf32>) {
  // expected-error@+1 {{'nv_tileaa.select' op condition shape [4] differs from the value shape [8]}}
  %0 = nv_tileaa.select %c, %x, %x : tensor<4xi1>, tensor<8xf32>
  func.return
}

// -----

func.func @dot_rank(%a: tensor<16xf16>, %b: tensor<16xf16>, %c: tensor<16xf32>) {
  // expected-error@+1 {{'nv_tileaa.dot' op operands must all be rank 2 (or 3, batched), got 1, 1, 1}}
  %0 = nv_tileaa.dot %a, %b, %c : tensor<16xf16>, tensor<16xf16>, tensor<16xf32>
  func.return
}

// -----

func.func @dot_batch(%a: tensor<2x16x16xf16>, %b: tensor<4x16x16xf16>, %c: tensor<2x16x16xf32>) {
  // expected-error@+1 {{'nv_tileaa.dot' op batch extents differ: 2, 4, 2}}
  %0 = nv_tileaa.dot %a, %b, %c : tensor<2x16x16xf16>, tensor<4x16x16xf16>, tensor<2x16x16xf32>
  func.return
}

// -----

func.func @dot_shapes(%a: tensor<16x32xf16>, %b: tensor<16x8xf16>, %c: tensor<16x8xf32>) {
  // expected-error@+1 {{'nv_tileaa.dot' op shapes [16, 32] x [16, 8] -> [16, 8] do not form (M x K) x (K x N) -> (M x N)}}
  %0 = nv_tileaa.dot %a, %b, %c : tensor<16x32xf16>, tensor<16x8xf16>, tensor<16x8xf32>
  func.return
}

// -----

func.func @dot_int_types(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xi16>) {
  // expected-error@+1 {{'nv_tileaa.dot' op integer dot is i8 x i8 -> i32, got i8 x i8 -> i16}}
  %0 = nv_tileaa.dot %a, %b, %c signed signed : tensor<16x16xi8>, tensor<16x16xi8>, tensor<16x16xi16>
  func.return
}

// -----

func.func @dot_int_signedness(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xi32>) {
  // expected-error@+1 {{'nv_tileaa.dot' op integer dot needs the signedness of both operands}}
  %0 = nv_tileaa.dot %a, %b, %c : tensor<16x16xi8>, tensor<16x16xi8>, tensor<16x16xi32>
  func.return
}

// -----

func.func @dot_float_signedness(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'nv_tileaa.dot' op signedness applies to integer dots only}}
  %0 = nv_tileaa.dot %a, %b, %c signed signed : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>
  func.return
}

// -----

func.func @dot_mixed(%a: tensor<16x16xf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'nv_tileaa.dot' op unsupported operand element types f16 x bf16}}
  %0 = nv_tileaa.dot %a, %b, %c : tensor<16x16xf16>, tensor<16x16xbf16>, tensor<16x16xf32>
  func.return
}

// -----

func.func @dot_acc(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf16>) {
  // expected-error@+1 {{'nv_tileaa.dot' op bf16 operands accumulate in f32, not f16}}
  %0 = nv_tileaa.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf16>
  func.return
}

// -----

func.func @dot_int_fast_acc(%a: tensor<16x16xi8>, %b: tensor<16x16xi8>, %c: tensor<16x16xi32>) {
  // expected-error@+1 {{'nv_tileaa.dot' op fast_acc applies to floating-point dots only}}
  %0 = nv_tileaa.dot %a, %b, %c signed signed fast_acc : tensor<16x16xi8>, tensor<16x16xi8>, tensor<16x16xi32>
  func.return
}
