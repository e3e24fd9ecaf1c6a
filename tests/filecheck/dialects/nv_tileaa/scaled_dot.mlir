// nv_tileaa.dot of a block-scaled mmaf_scaled (kept whole for sm_100a by
// decompose-scaled-dots): the scales after the operands, their types after the others.
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// CHECK-LABEL: func.func @scaled_dot
// CHECK-NEXT: %0 = nv_tileaa.dot %a, %b, %c scales %sa, %sb : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<128x128xf32>, tensor<128x2xf8E8M0FNU>, tensor<2x128xf8E8M0FNU>
// CHECK-NEXT: %1 = nv_tileaa.dot %h, %hb, %c : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>
func.func @scaled_dot(%a: tensor<128x64xf8E4M3FN>, %b: tensor<64x128xf8E4M3FN>, %c: tensor<128x128xf32>, %sa: tensor<128x2xf8E8M0FNU>, %sb: tensor<2x128xf8E8M0FNU>, %h: tensor<128x64xf16>, %hb: tensor<64x128xf16>) {
  %0 = nv_tileaa.dot %a, %b, %c scales %sa, %sb : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN>, tensor<128x128xf32>, tensor<128x2xf8E8M0FNU>, tensor<2x128xf8E8M0FNU>
  %1 = nv_tileaa.dot %h, %hb, %c : tensor<128x64xf16>, tensor<64x128xf16>, tensor<128x128xf32>
  func.return
}
