// nv_tileas.dot's scales (valid form in scaled_dot.mlir): a block-scaled atom needs them,
// no other atom takes them, and they are MxK/G and K/G x N.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: dot-shapes
func.func @scales_dropped(%a: tensor<128x64xf8E4M3FN>, %b: tensor<64x128xf8E4M3FN>, %c: tensor<128x128xf32>, %sa: tensor<128x2xf8E8M0FNU>, %sb: tensor<2x128xf8E8M0FNU>) {
  // expected-error@+1 {{'nv_tileas.dot' op atom 'tcgen05_mma_mxf8f6f4_e4m3_e4m3_f32_ue8m0' takes the scales of a and b}}
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom tcgen05_mma_mxf8f6f4_e4m3_e4m3_f32_ue8m0>} : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<128x128xf32> -> tensor<128x128xf32>
  func.return
}

// -----

// RULE: dot-shapes
func.func @scales_on_a_plain_atom(%a: tensor<128x64xf8E4M3FN>, %b: tensor<64x128xf8E4M3FN>, %c: tensor<128x128xf32>, %sa: tensor<128x2xf8E8M0FNU>, %sb: tensor<2x128xf8E8M0FNU>) {
  // expected-error@+1 {{'nv_tileas.dot' op atom 'tcgen05_mma_e4m3_e4m3_f32' is not block-scaled: no scales}}
  %d = nv_tileas.dot %a, %b, %c scales %sa, %sb {atom = #nv_tileas<atom tcgen05_mma_e4m3_e4m3_f32>} : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<128x128xf32> scales tensor<128x2xf8E8M0FNU>, tensor<2x128xf8E8M0FNU> -> tensor<128x128xf32>
  func.return
}

// -----

// RULE: dot-shapes
func.func @scales_transposed(%a: tensor<128x64xf8E4M3FN>, %b: tensor<64x128xf8E4M3FN>, %c: tensor<128x128xf32>, %sa: tensor<128x2xf8E8M0FNU>, %sb: tensor<2x128xf8E8M0FNU>, %st: tensor<128x2xf8E8M0FNU>) {
  // expected-error@+1 {{'nv_tileas.dot' op scales tensor<128x2xf8E8M0FNU>, tensor<128x2xf8E8M0FNU> are not MxK/G and K/G x N f8E8M0FNU for a: [128, 64], b: [64, 128]}}
  %d = nv_tileas.dot %a, %b, %c scales %sa, %st {atom = #nv_tileas<atom tcgen05_mma_mxf8f6f4_e4m3_e4m3_f32_ue8m0>} : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<128x128xf32> scales tensor<128x2xf8E8M0FNU>, tensor<128x2xf8E8M0FNU> -> tensor<128x128xf32>
  func.return
}
