// Globals verifier rules: one broken case per rule (valid cases in globals.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: global-value
// expected-error@+1 {{'nv_tileas.global' op initializer must have rank 1}}
nv_tileas.global @matrix dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>

// -----

// RULE: global-value
// expected-error@+1 {{'nv_tileas.global' op alignment must be a power of two, got 12}}
nv_tileas.global @odd dense<[1, 2, 3]> : tensor<3xi32> {alignment = 12 : i64}

// -----

// RULE: get-global-symbol
func.func @missing() {
  // expected-error@+1 {{'nv_tileas.get_global' op '@nowhere' does not name an nv_tileas.global}}
  %p = nv_tileas.get_global @nowhere : !cuda_tile.ptr<i32>
  func.return
}

// -----

// RULE: get-global-symbol
nv_tileas.global @table dense<[1, 2]> : tensor<2xi32>
func.func @wrong_pointee() {
  // expected-error@+1 {{'nv_tileas.get_global' op result !cuda_tile.ptr<f32> does not point to the element type i32 of @table}}
  %p = nv_tileas.get_global @table : !cuda_tile.ptr<f32>
  func.return
}
