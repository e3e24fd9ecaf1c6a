// tileas-propagate-iterators rejections, each with a located diagnostic.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics -p tileas-propagate-iterators

// Seed 001 "Branch agreement": the two arms yield iterators of pipelines with different
// stage counts (both unfixed before the pass, so the module verified).
func.func @disagreeing_branches(%b2: !nv_tileas.tiled_view<2x16xf32, smem>, %b3: !nv_tileas.tiled_view<3x16xf32, smem>, %cond: i1) {
  %p2, %c2 = nv_tileas.async.pipeline.create_pipeline %b2 {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<2x16xf32, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %p3, %c3 = nv_tileas.async.pipeline.create_pipeline %b3 {numStages = 3 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<3x16xf32, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %i2 = nv_tileas.async.pipeline.create_iterator %p2 : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<16xf32>>
  %i3 = nv_tileas.async.pipeline.create_iterator %p3 : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<16xf32>>
  // expected-error@+1 {{'scf.if' op branches yield different pipeline iterator types for result #0: !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2> (then) vs !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 3> (else); both branches must yield the same iterator type}}
  %r = scf.if %cond -> (!nv_tileas.async.pipeline.iterator<tensor<16xf32>>) {
    scf.yield %i2 : !nv_tileas.async.pipeline.iterator<tensor<16xf32>>
  } else {
    scf.yield %i3 : !nv_tileas.async.pipeline.iterator<tensor<16xf32>>
  }
  "test.op"(%r) : (!nv_tileas.async.pipeline.iterator<tensor<16xf32>>) -> ()
  func.return
}

// -----

// One arm yields an iterator, the other the bare payload.
func.func @iterator_and_payload(%b2: !nv_tileas.tiled_view<2x16xf32, smem>, %v: tensor<16xf32>, %cond: i1) {
  %p2, %c2 = nv_tileas.async.pipeline.create_pipeline %b2 {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<2x16xf32, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %i2 = nv_tileas.async.pipeline.create_iterator %p2 : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<16xf32>>
  // expected-error@+1 {{'scf.if' op branches yield different pipeline iterator types for result #0: !nv_tileas.async.pipeline.iterator<tensor<16xf32>, count = 2> (then) vs tensor<16xf32> (else); both branches must yield the same iterator type}}
  %r = scf.if %cond -> (tensor<16xf32>) {
    scf.yield %i2 : !nv_tileas.async.pipeline.iterator<tensor<16xf32>>
  } else {
    scf.yield %v : tensor<16xf32>
  }
  "test.op"(%r) : (tensor<16xf32>) -> ()
  func.return
}

// -----

// Seed 002: a reduction whose factor does not divide the iterator's count.
func.func @reduction_factor(%buf: !nv_tileas.tiled_view<4x4x8xf32, smem>) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 4 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<4x4x8xf32, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<4x8xf32>>
  // expected-error@+1 {{'nv_tileas.reduce' op reduction factor 3 does not divide the iterator count 4}}
  %r = nv_tileas.reduce %it {axis = 0 : i32, reduction_factor = 3 : i32} : !nv_tileas.async.pipeline.iterator<tensor<4x8xf32>> -> !nv_tileas.async.pipeline.iterator<tensor<8xf32>> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    nv_tileas.yield %s : f32
  }
  func.return
}
