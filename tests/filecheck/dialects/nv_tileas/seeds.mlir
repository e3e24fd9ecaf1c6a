// Every IR example of the nv_tileas seeds, as written, parses, verifies and prints back.
// Fill-ins (the seeds' own text otherwise): free values are function arguments, `...`
// elisions are written out, unknown producers stay in generic form ("produce_tile").
// Adaptations, recorded in docs/dialects/nv_tileas.md "Seed disagreements":
//   * xDSL's scf.for and scf.if want result types in parentheses: `-> (tensor<...>)`;
//   * the decompose-loop output's `%out = ... iter_args()` binds no result, so it is
//     written as a loop without iter_args and without `%out =`;
//   * the worked example's TMA load gets its barrier operand and a second coordinate
//     (its table: one coordinate per box dimension, then the barrier), and lists the
//     destination's type as the tile it is;
//   * the worked example's consumer side (consume_one, consumer_wait) takes its own
//     iterator, made from the consumer token (`kind = consumer`): seed 002 keeps the
//     producer-side and consumer-side iterators distinct.  As written, with the producer
//     iterator on both sides, it parses and is rejected by the verifier (rule
//     iterator-side, pipeline_invalid.mlir).
// RUN: tileir-opt %s --split-input-file --allow-unregistered-dialect | tileir-opt --split-input-file --allow-unregistered-dialect | filecheck %s
// RUN: tileir-opt %s --split-input-file --allow-unregistered-dialect --print-op-generic | tileir-opt --split-input-file --allow-unregistered-dialect | filecheck %s

// Seed 000, "Simplify Extract Slice", input.
// CHECK-LABEL: func.func @simplify_extract_slice_input
// CHECK: nv_tileas.extract_slice %{{.*}}[%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}] : tensor<128x128xf32> to tensor<?x?xf32>
func.func @simplify_extract_slice_input(%src: tensor<128x128xf32>) -> tensor<?x?xf32> {
%c0 = arith.constant 0 : index
%c64 = arith.constant 64 : index
%c1 = arith.constant 1 : index
%slice = nv_tileas.extract_slice %src[%c0, %c0][%c64, %c64][%c1, %c1]
: tensor<128x128xf32> to tensor<?x?xf32>
  func.return %slice : tensor<?x?xf32>
}

// -----

// Seed 000, "Simplify Extract Slice", output.
// CHECK-LABEL: func.func @simplify_extract_slice_output
// CHECK: nv_tileas.extract_slice %{{.*}}[0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
func.func @simplify_extract_slice_output(%src: tensor<128x128xf32>) -> tensor<64x64xf32> {
%slice = nv_tileas.extract_slice %src[0, 0][64, 64][1, 1]
: tensor<128x128xf32> to tensor<64x64xf32>
  func.return %slice : tensor<64x64xf32>
}

// -----

// Seed 000, "Decompose Loop Iter Args", input.
// CHECK-LABEL: func.func @decompose_loop_input
// CHECK: %[[INIT:.*]] = nv_tileas.alloc_tensor : tensor<128x128xf32>
// CHECK: nv_tileas.insert_slice %{{.*}} into %[[INIT]][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][1, 1] : tensor<?x?xf32> into tensor<128x128xf32>
// CHECK: scf.for
// CHECK: "produce_tile"
// CHECK: nv_tileas.insert_slice
// CHECK: scf.yield
func.func @decompose_loop_input(%seed: tensor<?x?xf32>, %i0: index, %j0: index, %m: index, %n: index,
    %k0: index, %k1: index, %k_step: index, %i_k: index, %j_k: index) -> tensor<128x128xf32> {
%init = nv_tileas.alloc_tensor : tensor<128x128xf32>
%init_v = nv_tileas.insert_slice %seed into %init[%i0, %j0][%m, %n][1, 1]
: tensor<?x?xf32> into tensor<128x128xf32>
%out = scf.for %k = %k0 to %k1 step %k_step
iter_args(%buf = %init_v) -> (tensor<128x128xf32>) {
%step_v = "produce_tile"(%buf, %k) : (tensor<128x128xf32>, index) -> tensor<?x?xf32>
%next = nv_tileas.insert_slice %step_v into %buf[%i_k, %j_k][%m, %n][1, 1]
: tensor<?x?xf32> into tensor<128x128xf32>
scf.yield %next : tensor<128x128xf32>
}
  func.return %out : tensor<128x128xf32>
}

// -----

// Seed 000, "Decompose Loop Iter Args", output (the insert_slice's result goes unnamed).
// CHECK-LABEL: func.func @decompose_loop_output
// CHECK: scf.for
// CHECK-NEXT: %[[BUF:.*]] = nv_tileas.alloc_tensor : tensor<128x128xf32>
// CHECK-NEXT: "produce_tile"(%[[BUF]]
// CHECK-NEXT: nv_tileas.insert_slice %{{.*}} into %[[BUF]][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][1, 1] : tensor<?x?xf32> into tensor<128x128xf32>
func.func @decompose_loop_output(%k0: index, %k1: index, %k_step: index, %i_k: index, %j_k: index, %m: index, %n: index) {
scf.for %k = %k0 to %k1 step %k_step {
%buf = nv_tileas.alloc_tensor : tensor<128x128xf32>
%step_v = "produce_tile"(%buf, %k) : (tensor<128x128xf32>, index) -> tensor<?x?xf32>
nv_tileas.insert_slice %step_v into %buf[%i_k, %j_k][%m, %n][1, 1]
: tensor<?x?xf32> into tensor<128x128xf32>
scf.yield
}
  func.return
}

// -----

// Seed 000, "Decompose If by Insert / Extract Slice", input.
// CHECK-LABEL: func.func @decompose_if_input
// CHECK: nv_tileas.insert_slice %{{.*}} into %{{.*}}[0, 0][%{{.*}}, %{{.*}}][1, 1]
// CHECK: scf.if
// CHECK-COUNT-2: nv_tileas.insert_slice
func.func @decompose_if_input(%seed: tensor<?x?xf32>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %cond: i1,
    %i: index, %j: index, %m: index, %n: index) -> tensor<64x64xf32> {
%init = nv_tileas.alloc_tensor : tensor<64x64xf32>
%init_v = nv_tileas.insert_slice %seed into %init[0, 0][%m, %n][1, 1]
: tensor<?x?xf32> into tensor<64x64xf32>
%r = scf.if %cond -> (tensor<64x64xf32>) {
%v = nv_tileas.insert_slice %a into %init_v[%i, %j][%m, %n][1, 1]
: tensor<?x?xf32> into tensor<64x64xf32>
scf.yield %v : tensor<64x64xf32>
} else {
%v = nv_tileas.insert_slice %b into %init_v[%i, %j][%m, %n][1, 1]
: tensor<?x?xf32> into tensor<64x64xf32>
scf.yield %v : tensor<64x64xf32>
}
  func.return %r : tensor<64x64xf32>
}

// -----

// Seed 000, "Decompose If by Insert / Extract Slice", output (the `: ...` types filled in).
// CHECK-LABEL: func.func @decompose_if_output
// CHECK: scf.if
// CHECK-NEXT: nv_tileas.alloc_tensor : tensor<64x64xf32>
// CHECK-NEXT: nv_tileas.insert_slice %{{.*}} into %{{.*}}[0, 0][%{{.*}}, %{{.*}}][1, 1]
// CHECK-NEXT: nv_tileas.insert_slice
// CHECK: } else {
// CHECK-NEXT: nv_tileas.alloc_tensor : tensor<64x64xf32>
func.func @decompose_if_output(%seed: tensor<?x?xf32>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %cond: i1,
    %i: index, %j: index, %m: index, %n: index) -> tensor<64x64xf32> {
%r = scf.if %cond -> (tensor<64x64xf32>) {
%ta = nv_tileas.alloc_tensor : tensor<64x64xf32>
%ta_v = nv_tileas.insert_slice %seed into %ta[0, 0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
%v = nv_tileas.insert_slice %a into %ta_v[%i, %j][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
scf.yield %v : tensor<64x64xf32>
} else {
%tb = nv_tileas.alloc_tensor : tensor<64x64xf32>
%tb_v = nv_tileas.insert_slice %seed into %tb[0, 0][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
%v = nv_tileas.insert_slice %b into %tb_v[%i, %j][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
scf.yield %v : tensor<64x64xf32>
}
  func.return %r : tensor<64x64xf32>
}

// -----

// Seed 000, "Simplify Extract from Insert", input (its output, `%y = %x`, is not IR).
// CHECK-LABEL: func.func @extract_from_insert_input
// CHECK: %[[T:.*]] = nv_tileas.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
// CHECK: nv_tileas.extract_slice %[[T]][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][1, 1] : tensor<64x64xf32> to tensor<?x?xf32>
func.func @extract_from_insert_input(%x: tensor<?x?xf32>, %dst: tensor<64x64xf32>, %i: index, %j: index,
    %m: index, %n: index) -> tensor<?x?xf32> {
%t = nv_tileas.insert_slice %x into %dst[%i, %j][%m, %n][1, 1]
: tensor<?x?xf32> into tensor<64x64xf32>
%y = nv_tileas.extract_slice %t[%i, %j][%m, %n][1, 1]
: tensor<64x64xf32> to tensor<?x?xf32>
  func.return %y : tensor<?x?xf32>
}

// -----

// Seed 003, "Worked Example: Producer/Consumer Pipeline Region".
// CHECK-LABEL: func.func @worked_example
// CHECK: %[[P:.*]], %[[C:.*]] = nv_tileas.async.pipeline.create_pipeline %{{.*}} {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true, dynamic = false} : !nv_tileaa.tiled_view<2x128x128xf16> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
// CHECK: %[[IT:.*]] = nv_tileas.async.pipeline.create_iterator %[[P]] : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
// CHECK: nv_tileas.async.pipeline.produce_one %[[P]], %[[IT]] {producer_types = [tile<128x128xf16>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>) -> !nv_tileas.async.pipeline.producer_token {
// CHECK-NEXT: ^bb0(%[[BUF:.*]]: tile<128x128xf16>):
// CHECK-NEXT: nv_tileas.async.tiled_tma_load %{{.*}}, %[[BUF]][%{{.*}}, %{{.*}}], %{{.*}} {atom = #nv_tileas<atom tma_load_2d>} : !cute_nvgpu.tma_descriptor_tiled, tile<128x128xf16>, index, index, !nv_tileaa.mem_token -> !async.value<tile<128x128xf16>>
// CHECK-NEXT: nv_tileas.async.pipeline.yield %[[BUF]] : tile<128x128xf16>
// CHECK: %[[CIT:.*]] = nv_tileas.async.pipeline.create_iterator %[[C]] : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<tile<128x128xf16>, kind = consumer>
// CHECK: nv_tileas.async.pipeline.consume_one %[[C]], %[[CIT]] {consumer_idx = 0 : i32, consumer_types = [tile<128x128xf16>]}
// CHECK-NEXT: ^bb0(%[[A:.*]]: tile<128x128xf16>):
// CHECK-NEXT: %[[W:.*]] = nv_tileas.async.pipeline.consumer_wait %[[C]], %[[CIT]] {consumer_idx = 0 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<128x128xf16>, kind = consumer> -> !nv_tileas.async.pipeline.consumer_token
// CHECK-NEXT: nv_tileas.dot %[[A]], %{{.*}}, %{{.*}} {atom = #nv_tileas<atom mma_f16_f16_f32>} : tile<128x128xf16>, tile<128x128xf16>, tile<128x128xf32> -> tile<128x128xf32>
// CHECK-NEXT: nv_tileas.async.pipeline.consumer_release %[[W]] : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.consumer_token
// CHECK-NEXT: nv_tileas.async.pipeline.yield %[[A]] : tile<128x128xf16>
func.func @worked_example(%buf_view: !nv_tileaa.tiled_view<2x128x128xf16>, %tma_desc: !cute_nvgpu.tma_descriptor_tiled,
    %k_outer: index, %c0: index, %barrier: !nv_tileaa.mem_token,
    %b_tile: !cuda_tile.tile<128x128xf16>, %acc: !cuda_tile.tile<128x128xf32>) {
// Build the pipeline. numStages=2, one producer, one consumer.
%prod_tok, %cons_tok = nv_tileas.async.pipeline.create_pipeline %buf_view
{ numStages = 2 : i32,
producerGroupId = 0 : i8,
consumerGroupId = 1 : i8,
sharedMem = true,
dynamic = false }
: !nv_tileaa.tiled_view<2x128x128xf16>
-> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
// Stage iterator
%iter = nv_tileas.async.pipeline.create_iterator %prod_tok
: !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
// Producer region — TMA loads, one per stage
%prod_tok2 = nv_tileas.async.pipeline.produce_one %prod_tok, %iter
{ producer_types = [tile<128x128xf16>] } : (
!nv_tileas.async.pipeline.producer_token,
!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
) -> !nv_tileas.async.pipeline.producer_token {
^bb0(%stage_buf : tile<128x128xf16>):
%async_tok = nv_tileas.async.tiled_tma_load
%tma_desc, %stage_buf[%k_outer, %c0], %barrier
{ atom = #nv_tileas<atom tma_load_2d>,
operandSegmentSizes = array<i32: 1, 1, 2, 1> }
: !cute_nvgpu.tma_descriptor_tiled, tile<128x128xf16>,
index, index, !nv_tileaa.mem_token
-> !async.value<tile<128x128xf16>>
nv_tileas.async.pipeline.yield %stage_buf : tile<128x128xf16>
}
%cons_iter = nv_tileas.async.pipeline.create_iterator %cons_tok
: !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<tile<128x128xf16>, kind = consumer>
// Consumer region — wait for stage, dot, release
%cons_tok2 = nv_tileas.async.pipeline.consume_one %cons_tok, %cons_iter
{ consumer_idx = 0 : i32,
consumer_types = [tile<128x128xf16>] } : (
!nv_tileas.async.pipeline.consumer_token,
!nv_tileas.async.pipeline.iterator<tile<128x128xf16>, kind = consumer>
) -> !nv_tileas.async.pipeline.consumer_token {
^bb0(%a_tile : tile<128x128xf16>):
%waited = nv_tileas.async.pipeline.consumer_wait %cons_tok, %cons_iter
{ consumer_idx = 0 : i32 }
: !nv_tileas.async.pipeline.consumer_token,
!nv_tileas.async.pipeline.iterator<tile<128x128xf16>, kind = consumer>
-> !nv_tileas.async.pipeline.consumer_token
%d = nv_tileas.dot %a_tile, %b_tile, %acc
{ atom = #nv_tileas<atom mma_f16_f16_f32> }
: tile<128x128xf16>, tile<128x128xf16>, tile<128x128xf32>
-> tile<128x128xf32>
%released = nv_tileas.async.pipeline.consumer_release %waited
: !nv_tileas.async.pipeline.consumer_token
-> !nv_tileas.async.pipeline.consumer_token
nv_tileas.async.pipeline.yield %a_tile : tile<128x128xf16>
}
  func.return
}
