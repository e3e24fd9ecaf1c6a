// nv_tileas.dot of a block-scaled atom (sm_100a's tcgen05.mma .kind::mxf8f6f4): the scales
// of a and b as an optional group; a dot without them prints as before.
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// RULE: dot-shapes
// CHECK-LABEL: func.func @scaled_dot
// CHECK: nv_tileas.dot %a, %b, %c scales %sa, %sb {atom = #nv_tileas<atom tcgen05_mma_mxf8f6f4_e4m3_e4m3_f32_ue8m0>} : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<128x128xf32> scales tensor<128x2xf8E8M0FNU>, tensor<2x128xf8E8M0FNU> -> tensor<128x128xf32>
// CHECK: nv_tileas.dot %h, %hb, %c {atom = #nv_tileas<atom tcgen05_mma_f16_f16_f32>} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
func.func @scaled_dot(%a: tensor<128x64xf8E4M3FN>, %b: tensor<64x128xf8E4M3FN>, %c: tensor<128x128xf32>, %sa: tensor<128x2xf8E8M0FNU>, %sb: tensor<2x128xf8E8M0FNU>, %h: tensor<128x64xf16>, %hb: tensor<64x128xf16>) {
  %0 = nv_tileas.dot %a, %b, %c scales %sa, %sb {atom = #nv_tileas<atom tcgen05_mma_mxf8f6f4_e4m3_e4m3_f32_ue8m0>} : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<128x128xf32> scales tensor<128x2xf8E8M0FNU>, tensor<2x128xf8E8M0FNU> -> tensor<128x128xf32>
  %1 = nv_tileas.dot %h, %hb, %c {atom = #nv_tileas<atom tcgen05_mma_f16_f16_f32>} : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32> -> tensor<128x128xf32>
  func.return
}
