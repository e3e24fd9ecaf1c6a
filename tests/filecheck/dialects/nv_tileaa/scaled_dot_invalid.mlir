// nv_tileaa.dot's scales (valid form in scaled_dot.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

func.func @scales_do_not_fit(%a: tensor<128x64xf8E4M3FN>, %b: tensor<64x128xf8E4M3FN>, %c: tensor<128x128xf32>, %sa: tensor<128x2xf8E8M0FNU>, %sb: tensor<2x128xf8E8M0FNU>) {
  // expected-error@+1 {{'nv_tileaa.dot' op scales [128, 2], [128, 2] do not fit [128, 64] x [64, 128]: expected [.., M, K/G] and [.., K/G, N]}}
  %0 = nv_tileaa.dot %a, %b, %c scales %sa, %sa : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<128x128xf32>, tensor<128x2xf8E8M0FNU>, tensor<128x2xf8E8M0FNU>
  func.return
}

// -----

func.func @scaled_f16(%h: tensor<128x64xf16>, %hb: tensor<64x128xf16>, %c: tensor<128x128xf32>, %sa: tensor<128x2xf8E8M0FNU>, %sb: tensor<2x128xf8E8M0FNU>) {
  // expected-error@+1 {{'nv_tileaa.dot' op a block-scaled dot is f8 x f8 -> f32, got f16 x f16 -> f32}}
  %0 = nv_tileaa.dot %h, %hb, %c scales %sa, %sb : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>, tensor<128x2xf8E8M0FNU>, tensor<2x128xf8E8M0FNU>
  func.return
}
