// Slice verifier rules: one broken case per rule (tagged RULE; valid cases in slices.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: slice-rank
func.func @rank(%src: tensor<128x128xf32>) {
  // expected-error@+1 {{'nv_tileas.extract_slice' op expected 2 sizes (the tile's rank), got 1}}
  %s = nv_tileas.extract_slice %src[0, 0][64][1, 1] : tensor<128x128xf32> to tensor<64xf32>
  func.return
}

// -----

// RULE: slice-rank
func.func @rank_reduced(%src: tensor<128x128xf32>) {
  // expected-error@+1 {{'nv_tileas.extract_slice' op the result tensor<64xf32> must keep the rank 2 of tensor<128x128xf32>}}
  %s = nv_tileas.extract_slice %src[0, 0][64, 1][1, 1] : tensor<128x128xf32> to tensor<64xf32>
  func.return
}

// -----

// RULE: slice-sizes
func.func @sizes(%src: tensor<128x128xf32>, %n: index) {
  // expected-error@+1 {{'nv_tileas.extract_slice' op dimension 1 of the result tensor<64x64xf32> must be ? (the slice size there)}}
  %s = nv_tileas.extract_slice %src[0, 0][64, %n][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
  func.return
}

// -----

// RULE: slice-sizes
func.func @insert_sizes(%x: tensor<32x32xf32>, %dst: tensor<64x64xf32>) {
  // expected-error@+1 {{'nv_tileas.insert_slice' op dimension 0 of the source tensor<32x32xf32> must be 16 or ? (the slice size there)}}
  %r = nv_tileas.insert_slice %x into %dst[0, 0][16, 32][1, 1] : tensor<32x32xf32> into tensor<64x64xf32>
  func.return
}

// -----

// RULE: slice-bounds
func.func @bounds(%src: tensor<128x128xf32>) {
  // expected-error@+1 {{'nv_tileas.extract_slice' op slice [96 + 64 x 1] runs past extent 128 of dimension 0}}
  %s = nv_tileas.extract_slice %src[96, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
  func.return
}

// -----

// RULE: slice-bounds
func.func @stride(%src: tensor<128x128xf32>) {
  // expected-error@+1 {{'nv_tileas.extract_slice' op stride 0 of dimension 1 must be at least 1}}
  %s = nv_tileas.extract_slice %src[0, 0][64, 64][1, 0] : tensor<128x128xf32> to tensor<64x64xf32>
  func.return
}

// -----

// RULE: slice-types
func.func @types(%x: tensor<32x32xf16>, %dst: tensor<64x64xf32>) {
  // expected-error@+1 {{'nv_tileas.insert_slice' op element types differ: f16 vs f32}}
  %r = nv_tileas.insert_slice %x into %dst[0, 0][32, 32][1, 1] : tensor<32x32xf16> into tensor<64x64xf32>
  func.return
}

// -----

// RULE: slice-types
func.func @insert_result(%x: tensor<32x32xf32>, %dst: tensor<64x64xf32>) {
  // expected-error@+1 {{'nv_tileas.insert_slice' op result type tensor<64x32xf32> must be the destination type tensor<64x64xf32>}}
  %r = "nv_tileas.insert_slice"(%x, %dst) <{static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 32, 32>, static_strides = array<i64: 1, 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (tensor<32x32xf32>, tensor<64x64xf32>) -> tensor<64x32xf32>
  func.return
}

// -----

// RULE: alloc-sizes
func.func @alloc() {
  // expected-error@+1 {{'nv_tileas.alloc_tensor' op expects 1 dynamic sizes for tensor<?x64xf32>, got 0}}
  %a = nv_tileas.alloc_tensor : tensor<?x64xf32>
  func.return
}
