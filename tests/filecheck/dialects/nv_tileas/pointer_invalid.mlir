// Pointer verifier rules: one broken case per rule (valid cases in pointer.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: addptr-operands
func.func @addptr_not_pointers(%x: tensor<16xi64>, %o: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileas.addptr' op expected a pointer or tensor of pointers, got tensor<16xi64>}}
  %q = nv_tileas.addptr %x, %o : tensor<16xi64>, tensor<16xi32>
  func.return
}

// -----

// RULE: addptr-operands
func.func @addptr_float_offsets(%p: tensor<16x!cuda_tile.ptr<f32>>, %o: tensor<16xf32>) {
  // expected-error@+1 {{'nv_tileas.addptr' op expected integer offsets, got tensor<16xf32>}}
  %q = nv_tileas.addptr %p, %o : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>
  func.return
}

// -----

// RULE: addptr-operands
func.func @addptr_shapes(%p: tensor<16x!cuda_tile.ptr<f32>>, %o: tensor<32xi32>) {
  // expected-error@+1 {{'nv_tileas.addptr' op pointer and offset shapes differ}}
  %q = nv_tileas.addptr %p, %o : tensor<16x!cuda_tile.ptr<f32>>, tensor<32xi32>
  func.return
}

// -----

// RULE: addptr-operands
func.func @addptr_scalar_pointer_tile_offsets(%p: !cuda_tile.ptr<f32>, %o: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileas.addptr' op pointer and offset shapes differ}}
  %q = nv_tileas.addptr %p, %o : !cuda_tile.ptr<f32>, tensor<16xi32>
  func.return
}

// -----

// RULE: assume-predicate
func.func @div_by_not_pow2(%n: i32) {
  // expected-error@+1 {{'nv_tileas.assume' op div_by divisor must be a positive power of 2, got 12}}
  %a = nv_tileas.assume %n, #cuda_tile.div_by<12> : i32
  func.return
}

// -----

// RULE: assume-predicate
func.func @div_by_float(%x: f32) {
  // expected-error@+1 {{'nv_tileas.assume' op div_by needs integers or pointers, got f32}}
  %a = nv_tileas.assume %x, #cuda_tile.div_by<4> : f32
  func.return
}

// -----

// RULE: assume-predicate
func.func @div_by_along(%i: tensor<128xi32>) {
  // expected-error@+1 {{'nv_tileas.assume' op div_by along 1 is not a dimension of tensor<128xi32>}}
  %a = nv_tileas.assume %i, #cuda_tile.div_by<8, every 4 along 1> : tensor<128xi32>
  func.return
}

// -----

// RULE: assume-predicate
func.func @bounded_pointer(%p: !cuda_tile.ptr<f32>) {
  // expected-error@+1 {{'nv_tileas.assume' op bounded needs integers, got !cuda_tile.ptr<f32>}}
  %a = nv_tileas.assume %p, #cuda_tile.bounded<0, ?> : !cuda_tile.ptr<f32>
  func.return
}

// -----

// RULE: assume-predicate
func.func @same_elements_rank(%r: tensor<16x64xi32>) {
  // expected-error@+1 {{'nv_tileas.assume' op same_elements lists 1 extents for rank 2}}
  %a = nv_tileas.assume %r, #cuda_tile.same_elements<[4]> : tensor<16x64xi32>
  func.return
}
