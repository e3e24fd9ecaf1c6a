// The compute family: dot / async.dot with MMA atoms, reduce and scan with regions
// (over tiles and over stage iterators).
// RUN: tileir-opt %s --split-input-file | tileir-opt --split-input-file | filecheck %s
// RUN: tileir-opt %s --split-input-file --print-op-generic | tileir-opt --split-input-file | filecheck %s

// RULE: dot-atom
// RULE: dot-shapes
// CHECK-LABEL: func.func @dots
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %{{.*}} {atom = #nv_tileas<atom mma_bf16_bf16_f32>} : tensor<64x32xbf16>, tensor<32x16xbf16>, tensor<64x16xf32> -> tensor<64x16xf32>
// CHECK: nv_tileas.async.dot %{{.*}}, %{{.*}}, %{{.*}} {atom = #nv_tileas<atom wgmma_f16_f16_f32>} : tile<64x16xf16>, tile<16x128xf16>, tile<64x128xf32> -> !async.value<tile<64x128xf32>>
func.func @dots(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<64x16xf32>,
                %ha: !cuda_tile.tile<64x16xf16>, %hb: !cuda_tile.tile<16x128xf16>, %hc: !cuda_tile.tile<64x128xf32>) {
  %d = nv_tileas.dot %a, %b, %c {atom = #nv_tileas<atom mma_bf16_bf16_f32>} : tensor<64x32xbf16>, tensor<32x16xbf16>, tensor<64x16xf32> -> tensor<64x16xf32>
  %f = nv_tileas.async.dot %ha, %hb, %hc {atom = #nv_tileas<atom wgmma_f16_f16_f32>} : tile<64x16xf16>, tile<16x128xf16>, tile<64x128xf32> -> !async.value<tile<64x128xf32>>
  func.return
}

// -----

// RULE: reduce-region
// RULE: reduce-axis
// CHECK-LABEL: func.func @reductions
// CHECK: nv_tileas.reduce %{{.*}} {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32):
// CHECK: nv_tileas.yield %{{.*}} : f32
// CHECK: nv_tileas.reduce %{{.*}}, %{{.*}} {axis = 0 : i32} : tensor<8xf32>, tensor<8xi32> -> f32, i32 {
// CHECK: nv_tileas.scan %{{.*}} {axis = 0 : i32, reverse = true} : tensor<8xf32> -> tensor<8xf32> {
func.func @reductions(%x: tensor<4x8xf32>, %v: tensor<8xf32>, %i: tensor<8xi32>) {
  %r = nv_tileas.reduce %x {axis = 1 : i32} : tensor<4x8xf32> -> tensor<4xf32> {
  ^bb0(%acc: f32, %e: f32):
    %s = arith.addf %acc, %e : f32
    nv_tileas.yield %s : f32
  }
  // An argmax: two operands, two running values.
  %m, %at = nv_tileas.reduce %v, %i {axis = 0 : i32} : tensor<8xf32>, tensor<8xi32> -> f32, i32 {
  ^bb0(%acc: f32, %acc_i: i32, %e: f32, %e_i: i32):
    %gt = arith.cmpf ogt, %e, %acc : f32
    %best = arith.select %gt, %e, %acc : f32
    %best_i = arith.select %gt, %e_i, %acc_i : i32
    nv_tileas.yield %best, %best_i : f32, i32
  }
  %p = nv_tileas.scan %v {axis = 0 : i32, reverse = true} : tensor<8xf32> -> tensor<8xf32> {
  ^bb0(%acc: f32, %e: f32):
    %s = arith.addf %acc, %e : f32
    nv_tileas.yield %s : f32
  }
  func.return
}

// -----

// cuda_tile's identities, carried by tileir's `identities` property (not in seed 003):
// one typed value per operand.
// RULE: reduce-identities
// CHECK-LABEL: func.func @identities
// CHECK: nv_tileas.reduce %{{.*}}, %{{.*}} {axis = 0 : i32, identities = [0xff800000 : f32, 0 : i32]} : tensor<8xf32>, tensor<8xi32> -> f32, i32 {
// CHECK: nv_tileas.scan %{{.*}} {axis = 0 : i32, identities = [0 : i32], reverse = false} : tensor<8xi32> -> tensor<8xi32> {
func.func @identities(%v: tensor<8xf32>, %i: tensor<8xi32>) {
  %m, %at = nv_tileas.reduce %v, %i {axis = 0 : i32, identities = [0xFF800000 : f32, 0 : i32]} : tensor<8xf32>, tensor<8xi32> -> f32, i32 {
  ^bb0(%acc: f32, %acc_i: i32, %e: f32, %e_i: i32):
    %gt = arith.cmpf ogt, %e, %acc : f32
    %best = arith.select %gt, %e, %acc : f32
    %best_i = arith.select %gt, %e_i, %acc_i : i32
    nv_tileas.yield %best, %best_i : f32, i32
  }
  %p = nv_tileas.scan %i {axis = 0 : i32, identities = [0 : i32], reverse = false} : tensor<8xi32> -> tensor<8xi32> {
  ^bb0(%acc: i32, %e: i32):
    %s = arith.addi %acc, %e : i32
    nv_tileas.yield %s : i32
  }
  func.return
}

// -----

// A reduction that collapses pairs of stages: count 4 / factor 2 = 2.
// RULE: iterator-reduction-factor
// CHECK-LABEL: func.func @iterator_reduce
// CHECK: nv_tileas.reduce %{{.*}} {axis = 0 : i32, reduction_factor = 2 : i32} : !nv_tileas.async.pipeline.iterator<tensor<4x8xf32>, count = 4> -> !nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 2>
func.func @iterator_reduce(%it: !nv_tileas.async.pipeline.iterator<tensor<4x8xf32>, count = 4>) {
  %r = nv_tileas.reduce %it {axis = 0 : i32, reduction_factor = 2 : i32} : !nv_tileas.async.pipeline.iterator<tensor<4x8xf32>, count = 4> -> !nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 2> {
  ^bb0(%acc: f32, %e: f32):
    %s = arith.maximumf %acc, %e : f32
    nv_tileas.yield %s : f32
  }
  func.return
}
