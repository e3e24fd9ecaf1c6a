// tileaa-canonicalize, constant dot folding (seed 004 row "Dot folding", "Constant Dot
// Folding"): products and sums in the accumulator type, integer operands read with the
// dot's signedness, a zero multiplicand giving the accumulator; and what blocks it.
// RUN: tileir-opt %s --split-input-file -p tileaa-canonicalize | filecheck %s

// f16 operands, f32 accumulator: 0.25 + 1 * 2048 + 2 * 1 = 2050.25 is exact in f32 (in
// f16 it would round to 2050): the fold converts to the accumulator type, never the
// narrow input format.
// CHECK-LABEL: func.func @dot_f16
// CHECK-NEXT: %[[D:.*]] = cuda_tile.constant <f32: {{\[\[}}2.050250e+03, 2.000000e+00], [6.149000e+03, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: "test.op"(%[[D]])
func.func @dot_f16(%x: tensor<2x2xf16>) {
  %a = cuda_tile.constant <f16: [[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf16>
  %b = cuda_tile.constant <f16: [[2048.0, 1.0], [1.0, 0.5]]> : tensor<2x2xf16>
  %c = cuda_tile.constant <f32: [[0.25, 0.0], [1.0, -1.0]]> : tensor<2x2xf32>
  %d = nv_tileaa.dot %a, %b, %c : tensor<2x2xf16>, tensor<2x2xf16>, tensor<2x2xf32>
  "test.op"(%d) : (tensor<2x2xf32>) -> ()
  func.return
}

// -----

// An f16 accumulator rounds each step in f16, k in order: 0 + 2048 = 2048, then
// 2048 + 1 rounds back to 2048.
// CHECK-LABEL: func.func @dot_f16_acc
// CHECK-NEXT: %[[D:.*]] = cuda_tile.constant <f16: 2.048000e+03> : tensor<1x1xf16>
func.func @dot_f16_acc(%x: tensor<1x2xf16>) {
  %a = cuda_tile.constant <f16: [[2048.0, 1.0]]> : tensor<1x2xf16>
  %b = cuda_tile.constant <f16: [[1.0], [1.0]]> : tensor<2x1xf16>
  %c = cuda_tile.constant <f16: 0.0> : tensor<1x1xf16>
  %d = nv_tileaa.dot %a, %b, %c : tensor<1x2xf16>, tensor<2x1xf16>, tensor<1x1xf16>
  "test.op"(%d) : (tensor<1x1xf16>) -> ()
  func.return
}

// -----

// i8 bits [-1, 2] x [-1, -128] + 10 read signed x signed: 10 + 1 - 256 = -245; unsigned
// x unsigned: 10 + 255 * 255 + 2 * 128 = 65291; signed x unsigned: 10 - 255 + 256 = 11.
// CHECK-LABEL: func.func @dot_int_signedness
// CHECK-NEXT: %[[SS:.*]] = cuda_tile.constant <i32: -245> : tensor<1x1xi32>
// CHECK-NEXT: %[[UU:.*]] = cuda_tile.constant <i32: 65291> : tensor<1x1xi32>
// CHECK-NEXT: %[[SU:.*]] = cuda_tile.constant <i32: 11> : tensor<1x1xi32>
// CHECK-NEXT: "test.op"(%[[SS]], %[[UU]], %[[SU]])
func.func @dot_int_signedness() {
  %a = cuda_tile.constant <i8: [[-1, 2]]> : tensor<1x2xi8>
  %b = cuda_tile.constant <i8: [[-1], [-128]]> : tensor<2x1xi8>
  %c = cuda_tile.constant <i32: 10> : tensor<1x1xi32>
  %ss = nv_tileaa.dot %a, %b, %c signed signed : tensor<1x2xi8>, tensor<2x1xi8>, tensor<1x1xi32>
  %uu = nv_tileaa.dot %a, %b, %c unsigned unsigned : tensor<1x2xi8>, tensor<2x1xi8>, tensor<1x1xi32>
  %su = nv_tileaa.dot %a, %b, %c signed unsigned : tensor<1x2xi8>, tensor<2x1xi8>, tensor<1x1xi32>
  "test.op"(%ss, %uu, %su) : (tensor<1x1xi32>, tensor<1x1xi32>, tensor<1x1xi32>) -> ()
  func.return
}

// -----

// A zero multiplicand makes the result the accumulator unchanged: on integers whatever
// the other operand, on floats when the other operand is a finite constant.
// CHECK-LABEL: func.func @dot_zero
// CHECK-NEXT: "test.op"(%acc, %accf)
func.func @dot_zero(%b: tensor<16x8xi8>, %acc: tensor<16x8xi32>, %bf: tensor<8x8xf32>, %accf: tensor<8x8xf32>) {
  %z = cuda_tile.constant <i8: 0> : tensor<16x16xi8>
  %zf = cuda_tile.constant <f32: 0.0> : tensor<8x8xf32>
  %one = cuda_tile.constant <f32: 1.0> : tensor<8x8xf32>
  %d = nv_tileaa.dot %z, %b, %acc signed signed : tensor<16x16xi8>, tensor<16x8xi8>, tensor<16x8xi32>
  %e = nv_tileaa.dot %one, %zf, %accf : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  "test.op"(%d, %e) : (tensor<16x8xi32>, tensor<8x8xf32>) -> ()
  func.return
}

// -----

// Blocked: a zero times a non-constant float (it may hold inf or NaN, and 0 * inf is
// NaN), zero times inf, and a non-constant accumulator.
// CHECK-LABEL: func.func @dot_blocked
// CHECK: %d = nv_tileaa.dot %a, %zf, %acc
// CHECK-NEXT: %e = nv_tileaa.dot %inf, %zf, %acc
// CHECK-NEXT: %f = nv_tileaa.dot %one, %one, %acc
func.func @dot_blocked(%a: tensor<8x8xf32>, %acc: tensor<8x8xf32>) {
  %zf = cuda_tile.constant <f32: 0.0> : tensor<8x8xf32>
  %inf = cuda_tile.constant <f32: 0x7F800000> : tensor<8x8xf32>
  %one = cuda_tile.constant <f32: 1.0> : tensor<8x8xf32>
  %d = nv_tileaa.dot %a, %zf, %acc : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  %e = nv_tileaa.dot %inf, %zf, %acc : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  %f = nv_tileaa.dot %one, %one, %acc : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  "test.op"(%d, %e, %f) : (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> ()
  func.return
}
