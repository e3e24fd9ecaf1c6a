// Compute verifier rules (valid cases in compute.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: dot-atom
func.func @dot_atom_kind(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'nv_tileas.dot' op needs an MMA atom, got 'ldg_128b' (copy)}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom ldg_128b>} : tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
  func.return
}

// -----

// RULE: dot-atom
func.func @dot_atom_types(%a: tensor<16x16xbf16>, %b: tensor<16x16xbf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'nv_tileas.dot' op atom 'mma_f16_f16_f32' multiplies f16 x f16 into f32, not bf16 x bf16 into f32}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom mma_f16_f16_f32>} : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf32> -> tensor<16x16xf32>
  func.return
}

// -----

// RULE: dot-shapes
func.func @dot_shapes(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) {
  // expected-error@+1 {{'nv_tileas.dot' op expects a: MxK, b: KxN, acc: MxN, got [16, 32], [16, 16], [16, 16]}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom mma_f16_f16_f32>} : tensor<16x32xf16>, tensor<16x16xf16>, tensor<16x16xf32> -> tensor<16x16xf32>
  func.return
}

// -----

// RULE: reduce-region
func.func @reduce_region(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'nv_tileas.reduce' op region must take (f32, f32): the running values, then the next elements}}
  %r = nv_tileas.reduce %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%acc: f32):
    nv_tileas.yield %acc : f32
  }
  func.return
}

// -----

// RULE: reduce-axis
func.func @reduce_axis(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'nv_tileas.reduce' op result tensor<8xf32> must have shape [4] and element type f32}}
  %r = nv_tileas.reduce %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<8xf32> {
  ^bb0(%acc: f32, %e: f32):
    nv_tileas.yield %acc : f32
  }
  func.return
}

// -----

// RULE: reduce-identities
func.func @reduce_identity_count(%x: tensor<4x8xf32>) {
  // expected-error@+1 {{'nv_tileas.reduce' op needs one identity per operand, got 2 for 1 operands}}
  %r = nv_tileas.reduce %x {axis = 1 : i32, identities = [0.0 : f32, 0.0 : f32]} : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%acc: f32, %e: f32):
    nv_tileas.yield %acc : f32
  }
  func.return
}

// -----

// RULE: reduce-identities
func.func @scan_identity_type(%x: tensor<8xf32>) {
  // expected-error@+1 {{'nv_tileas.scan' op identity #0 must be a f32 value, got 0 : i32}}
  %r = nv_tileas.scan %x {axis = 0 : i32, identities = [0 : i32]} : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%acc: f32, %e: f32):
    nv_tileas.yield %acc : f32
  }
  func.return
}

// -----

// RULE: iterator-reduction-factor
func.func @iterator_factor(%it: !nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 3>) {
  // expected-error@+1 {{'nv_tileas.scan' op reduction factor 2 does not divide the iterator count 3}}
  %r = nv_tileas.scan %it {axis = 0 : i32, reduction_factor = 2 : i32} : !nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 3> -> !nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 1> {
  ^bb0(%acc: f32, %e: f32):
    nv_tileas.yield %acc : f32
  }
  func.return
}
