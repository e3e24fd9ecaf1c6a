// nv_tileas.dot verifier rules for the atoms beyond the seed's and for batched dots
// (valid cases in dot_atoms.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: dot-atom
func.func @fma_on_integers(%a: tensor<2x2xi8>, %c: tensor<2x2xi32>) {
  // expected-error@+1 {{'nv_tileas.dot' op atom 'fma' multiplies floats, not i8 x i8 into i32}}
  %d = nv_tileas.dot %a, %a, %c {atom = #nv_tileas<atom fma>} : tensor<2x2xi8>, tensor<2x2xi8>, tensor<2x2xi32> -> tensor<2x2xi32>
  func.return
}

// -----

// RULE: dot-atom
func.func @wgmma_wrong_types(%a: tensor<64x32xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %c: tensor<64x64xf32>) {
  // expected-error@+1 {{'nv_tileas.dot' op atom 'wgmma_m64n64k32_e4m3_e5m2_f32' multiplies f8E4M3FN x f8E5M2 into f32, not f8E4M3FN x f8E4M3FN into f32}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom wgmma_m64n64k32_e4m3_e5m2_f32>} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<64x64xf32> -> tensor<64x64xf32>
  func.return
}

// -----

// RULE: dot-atom
// wgmma has no N of 20 (multiples of 8 only): no such atom in the catalog.
func.func @wgmma_no_such_n(%a: tensor<64x16xf16>, %b: tensor<16x20xf16>, %c: tensor<64x20xf32>) {
  // expected-error@+1 {{unknown atom 'wgmma_m64n20k16_f16_f16_f32'}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom wgmma_m64n20k16_f16_f16_f32>} : tensor<64x16xf16>, tensor<16x20xf16>, tensor<64x20xf32> -> tensor<64x20xf32>
  func.return
}

// -----

// RULE: dot-shapes
func.func @batch_mismatch(%a: tensor<2x16x16xf16>, %b: tensor<4x16x8xf16>, %c: tensor<2x16x8xf32>) {
  // expected-error@+1 {{'nv_tileas.dot' op expects a: MxK, b: KxN, acc: MxN, got [2, 16, 16], [4, 16, 8], [2, 16, 8]}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom mma_f16_f16_f32>} : tensor<2x16x16xf16>, tensor<4x16x8xf16>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  func.return
}

// -----

// RULE: dot-shapes
func.func @rank_four(%a: tensor<1x2x16x16xf16>, %b: tensor<1x2x16x8xf16>, %c: tensor<1x2x16x8xf32>) {
  // expected-error@+1 {{'nv_tileas.dot' op expects a: MxK, b: KxN, acc: MxN, got [1, 2, 16, 16], [1, 2, 16, 8], [1, 2, 16, 8]}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom mma_f16_f16_f32>} : tensor<1x2x16x16xf16>, tensor<1x2x16x8xf16>, tensor<1x2x16x8xf32> -> tensor<1x2x16x8xf32>
  func.return
}
