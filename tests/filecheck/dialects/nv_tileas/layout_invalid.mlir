// Layout-family verifier rules: one broken case per rule (valid cases in layout.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: convert-layout
func.func @convert(%x: tensor<128xf32>) {
  // expected-error@+1 {{'nv_tileas.convert_layout' op convert_layout changes only the layout}}
  %y = nv_tileas.convert_layout %x : tensor<128xf32> -> tensor<64xf32>
  func.return
}

// -----

// RULE: view-pointers
func.func @view(%ptrs: tensor<128x!cuda_tile.ptr<f32>>) {
  // expected-error@+1 {{'nv_tileas.view' op a view of global pointers must reside in gmem}}
  %v = nv_tileas.view %ptrs : tensor<128x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<128xf32, smem>
  func.return
}

// -----

// RULE: expand-dims
func.func @expand(%r: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileas.expand_dims' op result tensor<1x16xi32> must be the source with a unit dimension at 1}}
  %e = nv_tileas.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<1x16xi32>
  func.return
}

// -----

// RULE: reinterpret-bits
func.func @reinterpret(%f: tensor<64xf32>) {
  // expected-error@+1 {{'nv_tileas.reinterpret' op reinterpret must keep the bit size: tensor<64xf32> has 2048 bits, tensor<64xf16> has 1024}}
  %h = nv_tileas.reinterpret %f : tensor<64xf32> -> tensor<64xf16>
  func.return
}

// -----

// RULE: reinterpret-bits
func.func @reinterpret_residency(%s: !nv_tileas.tiled_view<64xf32, smem>) {
  // expected-error@+1 {{'nv_tileas.reinterpret' op reinterpret keeps a view's residency (smem vs gmem)}}
  %g = nv_tileas.reinterpret %s : !nv_tileas.tiled_view<64xf32, smem> -> !nv_tileas.tiled_view<64xf32, gmem>
  func.return
}

// -----

// RULE: shuffle-permutation
func.func @shuffle(%t: tensor<4x8xf32>) {
  // expected-error@+1 {{'nv_tileas.shuffle' op permutation [1, 1] is not a permutation of the 2 dimensions}}
  %s = nv_tileas.shuffle %t {permutation = array<i64: 1, 1>} : tensor<4x8xf32> -> tensor<8x8xf32>
  func.return
}

// -----

// RULE: generate-region
func.func @generate() {
  // expected-error@+1 {{'nv_tileas.generate' op region must take 2 index arguments, one per dimension}}
  %g = nv_tileas.generate : tensor<4x8xindex> {
  ^bb0(%i: index):
    nv_tileas.yield %i : index
  }
  func.return
}

// -----

// RULE: view-value
func.func @value_view_count(%x: tensor<128xf32>) {
  // expected-error@+1 {{'nv_tileas.view' op a value view keeps the element count: 128 elements (tensor<128xf32>) vs 64 (tensor<64xf32>)}}
  %v = nv_tileas.view %x : tensor<128xf32> -> tensor<64xf32>
  func.return
}

// -----

// RULE: view-value
func.func @value_view_element(%x: tensor<128xf32>) {
  // expected-error@+1 {{'nv_tileas.view' op a value view keeps the element type: f32 vs i32}}
  %v = nv_tileas.view %x : tensor<128xf32> -> tensor<128xi32>
  func.return
}

// -----

// RULE: view-value
func.func @value_view_of_view(%s: !nv_tileas.tiled_view<128xf32, smem>) {
  // expected-error@+1 {{'nv_tileas.view' op a value view (tensor result) views a tensor, without sub-view indices}}
  %v = nv_tileas.view %s : !nv_tileas.tiled_view<128xf32, smem> -> tensor<128xf32>
  func.return
}

// -----

// RULE: view-value
func.func @value_view_to_rank_0(%x: tensor<2xf32>) {
  // expected-error@+1 {{'nv_tileas.view' op a value view to rank 0 views a one-element tensor as its element type: tensor<2xf32> -> f32}}
  %v = nv_tileas.view %x : tensor<2xf32> -> f32
  func.return
}
