// Shape verifier rules: one broken case per rule (valid cases in shape.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: splat-element
func.func @splat(%d: i32) {
  // expected-error@+1 {{'nv_tileas.splat' op operand type i32 must be the element type of tensor<16xi64>}}
  %s = nv_tileas.splat %d : i32 -> tensor<16xi64>
  func.return
}

// -----

// RULE: broadcast-shape
func.func @broadcast_extent(%r: tensor<16x2xi32>) {
  // expected-error@+1 {{'nv_tileas.broadcast' op cannot broadcast [16, 2] to [16, 64]}}
  %b = nv_tileas.broadcast %r : tensor<16x2xi32> -> tensor<16x64xi32>
  func.return
}

// -----

// RULE: broadcast-shape
func.func @broadcast_rank(%r: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileas.broadcast' op cannot broadcast [16] to [16, 64]}}
  %b = nv_tileas.broadcast %r : tensor<16xi32> -> tensor<16x64xi32>
  func.return
}

// -----

// RULE: broadcast-shape
func.func @broadcast_element(%r: tensor<16x1xi32>) {
  // expected-error@+1 {{'nv_tileas.broadcast' op element type mismatch: i32 vs f32}}
  %b = nv_tileas.broadcast %r : tensor<16x1xi32> -> tensor<16x64xf32>
  func.return
}
