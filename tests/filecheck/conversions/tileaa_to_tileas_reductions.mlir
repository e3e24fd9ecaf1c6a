// convert-tileaa-to-tileas: cuda_tile.reduce / scan become nv_tileas.reduce / scan
// (tileir/conversions/tileaa_reductions.py; seed 003 compute family, with tileir's
// `identities`).  The dimension becomes `axis`, a scan keeps `reverse`, the identities are
// kept (typed as their operand's element), and the body moves over with its arguments in
// nv_tileas' order (running values first, then the next elements; cuda_tile interleaves
// element and running value per operand) and an `nv_tileas.yield`.
// RUN: tileir-opt %s --split-input-file -p convert-tileaa-to-tileas | filecheck %s

// A sum whose body captures a value from outside (cuTile's `lambda a, b: (a + b) % m`):
// the capture stays.
// CHECK-LABEL: func.func @capturing_sum
// CHECK: %[[R:.*]] = nv_tileas.reduce %{{.*}} {axis = 1 : i32, identities = [0 : i32]} : tensor<4x8xi32> -> tensor<4xi32> {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: i32, %[[X:.*]]: i32):
// CHECK-NEXT: %[[S:.*]] = cuda_tile.addi %[[X]], %[[ACC]] : i32
// CHECK-NEXT: %[[Q:.*]] = cuda_tile.remi %[[S]], %m signed : i32
// CHECK-NEXT: nv_tileas.yield %[[Q]] : i32
// CHECK-NEXT: }
// CHECK-NOT: cuda_tile.reduce
// CHECK-NOT: cuda_tile.yield
func.func @capturing_sum(%x: tensor<4x8xi32>, %m: i32) -> tensor<4xi32> {
  %r = cuda_tile.reduce %x dim=1 identities=[0 : i32] : tensor<4x8xi32> -> tensor<4xi32>
  (%a: i32, %b: i32) {
    %s = cuda_tile.addi %a, %b : i32
    %q = cuda_tile.remi %s, %m signed : i32
    cuda_tile.yield %q : i32
  }
  func.return %r : tensor<4xi32>
}

// -----

// An argmax: two operands, two results, two identities; the four arguments are
// reordered from (value, running value, index, running index) to (running value,
// running index, value, index).
// CHECK-LABEL: func.func @argmax
// CHECK: %{{.*}}, %{{.*}} = nv_tileas.reduce %{{.*}}, %{{.*}} {axis = 0 : i32, identities = [0xff800000 : f32, 0 : i32]} : tensor<16xf32>, tensor<16xi32> -> f32, i32 {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[ACC_I:.*]]: i32, %[[X:.*]]: f32, %[[X_I:.*]]: i32):
// CHECK-NEXT: %[[GT:.*]] = cuda_tile.cmpf greater_than ordered %[[X]], %[[ACC]] : f32 -> i1
// CHECK-NEXT: %[[V:.*]] = cuda_tile.select %[[GT]], %[[X]], %[[ACC]] : i1, f32
// CHECK-NEXT: %[[I:.*]] = cuda_tile.select %[[GT]], %[[X_I]], %[[ACC_I]] : i1, i32
// CHECK-NEXT: nv_tileas.yield %[[V]], %[[I]] : f32, i32
func.func @argmax(%x: tensor<16xf32>, %i: tensor<16xi32>) -> (f32, i32) {
  %v, %at = cuda_tile.reduce %x, %i dim=0 identities=[0xFF800000 : f32, 0 : i32] : tensor<16xf32>, tensor<16xi32> -> f32, i32
  (%a: f32, %b: f32, %ai: i32, %bi: i32) {
    %gt = cuda_tile.cmpf greater_than ordered %a, %b : f32 -> i1
    %best = cuda_tile.select %gt, %a, %b : i1, f32
    %best_i = cuda_tile.select %gt, %ai, %bi : i1, i32
    cuda_tile.yield %best, %best_i : f32, i32
  }
  func.return %v, %at : f32, i32
}

// -----

// Scans keep their direction; a reduce or scan inside a loop is converted too.
// CHECK-LABEL: func.func @scans
// CHECK: nv_tileas.scan %{{.*}} {axis = 0 : i32, identities = [0 : i32], reverse = true} : tensor<64xi32> -> tensor<64xi32> {
// CHECK: nv_tileas.yield
// CHECK: scf.for
// CHECK: nv_tileas.scan %{{.*}} {axis = 1 : i32, identities = [1.000000e+00 : f32], reverse = false} : tensor<2x64xf32> -> tensor<2x64xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %[[X:.*]]: f32):
// CHECK-NEXT: cuda_tile.mulf %[[X]], %[[ACC]]
// CHECK-NOT: cuda_tile.scan
func.func @scans(%x: tensor<64xi32>, %y: tensor<2x64xf32>, %n: index) -> (tensor<64xi32>, tensor<2x64xf32>) {
  %r = cuda_tile.scan %x dim=0 reverse=true identities=[0 : i32] : tensor<64xi32> -> tensor<64xi32>
  (%a: i32, %b: i32) {
    %s = cuda_tile.addi %a, %b : i32
    cuda_tile.yield %s : i32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %out = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %y) -> (tensor<2x64xf32>) {
    %p = cuda_tile.scan %acc dim=1 reverse=false identities=[1.000000e+00 : f32] : tensor<2x64xf32> -> tensor<2x64xf32>
    (%a: f32, %b: f32) {
      %m = cuda_tile.mulf %a, %b rounding<nearest_even> : f32
      cuda_tile.yield %m : f32
    }
    scf.yield %p : tensor<2x64xf32>
  }
  func.return %r, %out : tensor<64xi32>, tensor<2x64xf32>
}

// -----

// cuda_tile accepts an f16 identity for a bf16 operand; nv_tileas types it as the element.
// CHECK-LABEL: func.func @bf16_sum
// CHECK: nv_tileas.reduce %{{.*}} {axis = 0 : i32, identities = [0.000000e+00 : bf16]} : tensor<32xbf16> -> bf16 {
func.func @bf16_sum(%x: tensor<32xbf16>) -> bf16 {
  %r = cuda_tile.reduce %x dim=0 identities=[0.000000e+00 : f16] : tensor<32xbf16> -> bf16
  (%a: bf16, %b: bf16) {
    %s = cuda_tile.addf %a, %b : bf16
    cuda_tile.yield %s : bf16
  }
  func.return %r : bf16
}
