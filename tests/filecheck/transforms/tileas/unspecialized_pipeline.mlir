// tileas-unspecialized-pipeline{num-stages=N}: every loop of a function without warp
// specialization gets N stages, materialized as tileas-materialize-schedule does; a
// warp-specialized function (agent_switch / create_pipeline) is left to its pipelines.
// RUN: tileir-opt %s --split-input-file -p 'tileas-unspecialized-pipeline{num-stages=4}' | filecheck %s
// RUN: tileir-opt %s --split-input-file -p tileas-unspecialized-pipeline | filecheck %s --check-prefix=DEFAULT
// RUN: not tileir-opt %s -p 'tileas-unspecialized-pipeline{num-stages=0}' 2>&1 | filecheck %s --check-prefix=ZERO

// ZERO: error: tileas-unspecialized-pipeline: option num-stages must be at least 1, got 0

// Four stages: three prologue loads, the body loads three iterations ahead.  The
// option overrides the loop's hint.
// CHECK-LABEL: func.func @unspecialized
// CHECK: nv_tileas.stage = 0 : i32
// CHECK: nv_tileas.stage = 1 : i32
// CHECK: nv_tileas.stage = 2 : i32
// CHECK: scf.for %[[K:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[S0:.*]] = %{{.*}}, %[[S1:.*]] = %{{.*}}, %[[S2:.*]] = %{{.*}}) -> (tensor<128xf32>, tensor<128xf32>, tensor<128xf32>, tensor<128xf32>) {
// CHECK-NEXT: %[[N:.*]] = arith.addf %{{.*}}, %[[S0]]
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[K3:.*]] = arith.addi %[[K]], %[[C3]] : index
// CHECK-NEXT: %[[A:.*]] = nv_tileas.tiled_load %{{.*}}[%[[K3]]] {atom = #nv_tileas<atom ldg_128b>, nv_tileas.stage = 3 : i32}
// CHECK-NEXT: scf.yield %[[N]], %[[S1]], %[[S2]], %[[A]]
// CHECK-NEXT: } {nv_tileas.num_stages = 2 : i32, nv_tileas.schedule = {num_stages = 4 : i32
// DEFAULT-LABEL: func.func @unspecialized
// DEFAULT: nv_tileas.stage = 1 : i32
// DEFAULT: nv_tileas.stage = 2 : i32
// DEFAULT: num_stages = 3 : i32
func.func @unspecialized(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %acc0: tensor<128xf32>) -> tensor<128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %acc0) -> (tensor<128xf32>) {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %n = arith.addf %acc, %a : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  } {nv_tileas.num_stages = 2 : i32}
  func.return %r : tensor<128xf32>
}

// -----

// A warp-specialized function (it creates a pipeline) is left unchanged.
// CHECK-LABEL: func.func @specialized
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.tiled_load
// CHECK-NOT: nv_tileas.stage
// CHECK-NOT: nv_tileas.schedule
func.func @specialized(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %buf: !nv_tileas.tiled_view<2x16xf32, smem>, %acc0: tensor<128xf32>) -> tensor<128xf32> {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<2x16xf32, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %acc0) -> (tensor<128xf32>) {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %n = arith.addf %acc, %a : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  }
  func.return %r : tensor<128xf32>
}

// -----

// BLOCKED: a store in the loop keeps every load in place (the partition is recorded).
// CHECK-LABEL: func.func @blocked_store
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.tiled_load
// CHECK-NOT: nv_tileas.stage
// CHECK: pending_stores = 1 : i32
func.func @blocked_store(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %o: !nv_tileas.tiled_view<4096xf32, gmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %k = %c0 to %c32 step %c1 {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    nv_tileas.tiled_store %a, %o[%k] {atom = #nv_tileas<atom stg_128b>} : tensor<128xf32>, !nv_tileas.tiled_view<4096xf32, gmem>
  }
  func.return
}
