// nv_tileaa round trip: shape wrappers, extract, select, dot with signedness (seed 004).
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// CHECK-LABEL: func.func @tile(%x: f32, %t: tensor<4x8xf32>, %c: i1, %y: f32, %ct: tensor<4x8xi1>, %i: i32, %a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %acc: tensor<16x8xf32>, %ai: tensor<16x32xi8>, %bi: tensor<32x8xi8>, %ci: tensor<16x8xi32>) {
// CHECK-NEXT: %0 = nv_tileaa.splat %x : f32 -> tensor<1x8xf32>
// CHECK-NEXT: %1 = nv_tileaa.broadcast %0 : tensor<1x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %2 = nv_tileaa.expand_dims %t {axis = 0 : i32} : tensor<4x8xf32> -> tensor<1x4x8xf32>
// CHECK-NEXT: %3 = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: %4 = nv_tileaa.extract %t[%i, %i] : tensor<4x8xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %5 = nv_tileaa.select %c, %x, %y : i1, f32
// CHECK-NEXT: %6 = nv_tileaa.select %ct, %t, %1 : tensor<4x8xi1>, tensor<4x8xf32>
// CHECK-NEXT: %7 = nv_tileaa.dot %a, %b, %acc : tensor<16x32xf16>, tensor<32x8xf16>, tensor<16x8xf32>
// CHECK-NEXT: %8 = nv_tileaa.dot %ai, %bi, %ci signed unsigned : tensor<16x32xi8>, tensor<32x8xi8>, tensor<16x8xi32>
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-LABEL: func.func @dot_kinds(%a: tensor<2x16x8xtf32>, %b: tensor<2x8x16xtf32>, %c: tensor<2x16x16xf32>, %e4: tensor<16x32xf8E4M3FN>, %e5: tensor<32x8xf8E5M2>, %h: tensor<16x8xf16>) {
// CHECK-NEXT: %0 = nv_tileaa.dot %a, %b, %c : tensor<2x16x8xtf32>, tensor<2x8x16xtf32>, tensor<2x16x16xf32>
// CHECK-NEXT: %1 = nv_tileaa.dot %e4, %e5, %h : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2>, tensor<16x8xf16>
// CHECK-NEXT: %2 = nv_tileaa.dot %e4, %e5, %h fast_acc : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2>, tensor<16x8xf16>
// CHECK-NEXT: func.return
// CHECK-NEXT: }

func.func @tile(%x: f32, %t: tensor<4x8xf32>, %c: i1, %y: f32, %ct: tensor<4x8xi1>, %i: i32, %a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %acc: tensor<16x8xf32>, %ai: tensor<16x32xi8>, %bi: tensor<32x8xi8>, %ci: tensor<16x8xi32>) {
  %0 = nv_tileaa.splat %x : f32 -> tensor<1x8xf32>
  %1 = nv_tileaa.broadcast %0 : tensor<1x8xf32> -> tensor<4x8xf32>
  %2 = nv_tileaa.expand_dims %t {axis = 0 : i32} : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %3 = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<32xf32>
  %4 = nv_tileaa.extract %t[%i, %i] : tensor<4x8xf32> -> tensor<2x4xf32>
  %5 = nv_tileaa.select %c, %x, %y : i1, f32
  %6 = nv_tileaa.select %ct, %t, %1 : tensor<4x8xi1>, tensor<4x8xf32>
  %7 = nv_tileaa.dot %a, %b, %acc : tensor<16x32xf16>, tensor<32x8xf16>, tensor<16x8xf32>
  %8 = nv_tileaa.dot %ai, %bi, %ci signed unsigned : tensor<16x32xi8>, tensor<32x8xi8>, tensor<16x8xi32>
  func.return
}
func.func @dot_kinds(%a: tensor<2x16x8xtf32>, %b: tensor<2x8x16xtf32>, %c: tensor<2x16x16xf32>, %e4: tensor<16x32xf8E4M3FN>, %e5: tensor<32x8xf8E5M2>, %h: tensor<16x8xf16>) {
  %0 = nv_tileaa.dot %a, %b, %c : tensor<2x16x8xtf32>, tensor<2x8x16xtf32>, tensor<2x16x16xf32>
  %1 = nv_tileaa.dot %e4, %e5, %h : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2>, tensor<16x8xf16>
  %2 = nv_tileaa.dot %e4, %e5, %h fast_acc : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2>, tensor<16x8xf16>
  func.return
}

// A view to rank 0: the scalar carrier of a one-element tile (cuda_tile reshape to rank 0).
// CHECK-LABEL: func.func @view_to_scalar(%t: tensor<1x1xi64>, %p: tensor<1x!cuda_tile.ptr<f32>>) {
// CHECK-NEXT: %0 = nv_tileaa.view %t : tensor<1x1xi64> -> i64
// CHECK-NEXT: %1 = nv_tileaa.view %p : tensor<1x!cuda_tile.ptr<f32>> -> !cuda_tile.ptr<f32>
func.func @view_to_scalar(%t: tensor<1x1xi64>, %p: tensor<1x!cuda_tile.ptr<f32>>) {
  %0 = nv_tileaa.view %t : tensor<1x1xi64> -> i64
  %1 = nv_tileaa.view %p : tensor<1x!cuda_tile.ptr<f32>> -> !cuda_tile.ptr<f32>
  func.return
}
