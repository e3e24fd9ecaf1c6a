// tileas-propagate-iterators (seed 001 "Iterator Propagation", seed 002 "Iterator
// Propagation"): create_iterator takes count from numStages and its space from the stage
// buffer; scf.for carries the type unchanged (iter-arg, result, yield), scf.if results take
// the type both branches agree on, inc_iter keeps it, reduce / scan divide count by their
// reduction factor.  Rejections are in propagate_iterators_invalid.mlir.
// RUN: tileir-opt %s --split-input-file -p tileas-propagate-iterators | filecheck %s

// Through a loop: iter-arg, inc_iter, yield and result all become count = 3.
// CHECK-LABEL: func.func @loop
// CHECK: %[[IT:.*]] = nv_tileas.async.pipeline.create_iterator %{{.*}} : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<64x64xf16>, count = 3>
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[X:.*]] = %[[IT]]) -> (!nv_tileas.async.pipeline.iterator<tensor<64x64xf16>, count = 3>) {
// CHECK-NEXT: %[[N:.*]] = nv_tileas.async.pipeline.inc_iter %[[X]] : !nv_tileas.async.pipeline.iterator<tensor<64x64xf16>, count = 3>
// CHECK-NEXT: scf.yield %[[N]] : !nv_tileas.async.pipeline.iterator<tensor<64x64xf16>, count = 3>
// CHECK: "test.op"(%[[R]]) : (!nv_tileas.async.pipeline.iterator<tensor<64x64xf16>, count = 3>) -> ()
func.func @loop(%buf: !nv_tileas.tiled_view<3x64x64xf16, smem>, %lb: index, %ub: index, %st: index) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 3 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<3x64x64xf16, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<64x64xf16>>
  %r = scf.for %k = %lb to %ub step %st iter_args(%x = %it) -> (!nv_tileas.async.pipeline.iterator<tensor<64x64xf16>>) {
    %n = nv_tileas.async.pipeline.inc_iter %x : !nv_tileas.async.pipeline.iterator<tensor<64x64xf16>>
    scf.yield %n : !nv_tileas.async.pipeline.iterator<tensor<64x64xf16>>
  }
  "test.op"(%r) : (!nv_tileas.async.pipeline.iterator<tensor<64x64xf16>>) -> ()
  func.return
}

// -----

// Through an scf.if whose result was declared with the payload type: both branches yield
// the same iterator type, so the result is wrapped into it.  Nested in a loop that
// carries the iterator too.
// CHECK-LABEL: func.func @branch_in_loop
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}) -> (!nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2, kind = consumer>)
// CHECK: %[[B:.*]] = scf.if %{{.*}} -> (!nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2, kind = consumer>) {
// CHECK-NEXT: %[[N:.*]] = nv_tileas.async.pipeline.inc_iter %[[X]] : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2, kind = consumer>
// CHECK-NEXT: scf.yield %[[N]] : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2, kind = consumer>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[X]] : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2, kind = consumer>
// CHECK: "test.op"(%[[B]]) : (!nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2, kind = consumer>) -> ()
// CHECK: scf.yield %[[X]] : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2, kind = consumer>
func.func @branch_in_loop(%buf: !nv_tileas.tiled_view<2x16xf32, smem>, %lb: index, %ub: index, %st: index, %cond: i1) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<2x16xf32, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %it = nv_tileas.async.pipeline.create_iterator %c : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<tensor<16xf32>, kind = consumer>
  %r = scf.for %k = %lb to %ub step %st iter_args(%x = %it) -> (!nv_tileas.async.pipeline.iterator<tensor<16xf32>, kind = consumer>) {
    %b = scf.if %cond -> (tensor<16xf32>) {
      %n = nv_tileas.async.pipeline.inc_iter %x : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, kind = consumer>
      scf.yield %n : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, kind = consumer>
    } else {
      scf.yield %x : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, kind = consumer>
    }
    "test.op"(%b) : (tensor<16xf32>) -> ()
    scf.yield %x : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, kind = consumer>
  }
  func.return
}

// -----

// The address space comes from the stage buffer's residency (a global-memory buffer
// without sharedMem).
// CHECK-LABEL: func.func @space_from_buffer
// CHECK: create_iterator %{{.*}} -> !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 4, space = gmem>
func.func @space_from_buffer(%buf: !nv_tileas.tiled_view<4x16xf32, gmem>) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 4 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileas.tiled_view<4x16xf32, gmem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<16xf32>>
  "test.op"(%it) : (!nv_tileas.async.pipeline.iterator<tensor<16xf32>>) -> ()
  func.return
}

// -----

// A reduction that collapses the stage dimension divides count by its factor (seed 002
// `propagate_through_reduction`): 4 / 2 = 2, then carried by a loop.
// CHECK-LABEL: func.func @reduction
// CHECK: %[[R:.*]] = nv_tileas.reduce %{{.*}} {axis = 0 : i32, reduction_factor = 2 : i32} : !nv_tileas.async.pipeline.iterator<tensor<4x8xf32>, count = 4> -> !nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 2>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[R]]) -> (!nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 2>)
// CHECK: nv_tileas.scan %{{.*}} {axis = 0 : i32} : !nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 2> -> !nv_tileas.async.pipeline.iterator<tensor<8xf32>, count = 2>
func.func @reduction(%buf: !nv_tileas.tiled_view<4x4x8xf32, smem>, %lb: index, %ub: index, %st: index) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 4 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<4x4x8xf32, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<4x8xf32>>
  %r = nv_tileas.reduce %it {axis = 0 : i32, reduction_factor = 2 : i32} : !nv_tileas.async.pipeline.iterator<tensor<4x8xf32>> -> !nv_tileas.async.pipeline.iterator<tensor<8xf32>> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    nv_tileas.yield %s : f32
  }
  %l = scf.for %k = %lb to %ub step %st iter_args(%x = %r) -> (!nv_tileas.async.pipeline.iterator<tensor<8xf32>>) {
    %s = nv_tileas.scan %x {axis = 0 : i32} : !nv_tileas.async.pipeline.iterator<tensor<8xf32>> -> !nv_tileas.async.pipeline.iterator<tensor<8xf32>> {
    ^bb0(%a: f32, %b: f32):
      %t = arith.addf %a, %b : f32
      nv_tileas.yield %t : f32
    }
    scf.yield %s : !nv_tileas.async.pipeline.iterator<tensor<8xf32>>
  }
  func.return
}

// -----

// Pipeline region ops: iterator-typed region arguments take the operand's count, stride
// and space around their own payload.
// CHECK-LABEL: func.func @region_arguments
// CHECK: nv_tileas.async.pipeline.produce_one %{{.*}}, %{{.*}} {producer_types = [tensor<16xf32>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2>) -> !nv_tileas.async.pipeline.producer_token {
// CHECK-NEXT: ^bb0(%{{.*}}: !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2>):
func.func @region_arguments(%buf: !nv_tileas.tiled_view<2x16xf32, smem>, %v: tensor<16xf32>) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<2x16xf32, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<16xf32>>
  %t = nv_tileas.async.pipeline.produce_one %p, %it {producer_types = [tensor<16xf32>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tensor<16xf32>>) -> !nv_tileas.async.pipeline.producer_token {
  ^bb0(%stage: !nv_tileas.async.pipeline.iterator<tensor<16xf32>>):
    nv_tileas.async.pipeline.yield %v : tensor<16xf32>
  }
  func.return
}

// -----

// Iterators that are already complete (function arguments) are carried as they are.
// CHECK-LABEL: func.func @argument
// CHECK: %[[B:.*]] = scf.if %{{.*}} -> (!nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2>)
// CHECK: "test.op"(%[[B]]) : (!nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2>) -> ()
func.func @argument(%it: !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2>, %cond: i1) {
  %b = scf.if %cond -> (tensor<16xf32>) {
    %n = nv_tileas.async.pipeline.inc_iter %it : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2>
    scf.yield %n : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2>
  } else {
    scf.yield %it : !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2>
  }
  "test.op"(%b) : (tensor<16xf32>) -> ()
  func.return
}
