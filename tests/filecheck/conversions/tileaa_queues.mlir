// Queue-to-pipeline lowering in convert-tileaa-to-tileas (seed 001 "Queue-to-Pipeline
// Lowering"): execute -> agent_switch, queue -> create_pipeline + iterators, put ->
// produce_one (acquire / write / commit), get -> consume_one (wait / read / release)
// or, when its results live on, the same handshake written out; pipeline tokens and
// iterators are threaded through scf.for and scf.if with their pipeline types.
// RUN: tileir-opt %s --split-input-file -p convert-tileaa-to-tileas | filecheck %s
// RUN: tileir-opt %s --split-input-file -p convert-tileaa-to-tileas | tileir-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @loop_pipeline
// CHECK: %[[P:.*]], %[[C:.*]] = nv_tileas.async.pipeline.create_pipeline %{{.*}} {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true, dynamic = false} : !nv_tileaa.tiled_view<2x64xf32>
// CHECK: %[[PIT:.*]] = nv_tileas.async.pipeline.create_iterator %[[P]] : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 2>
// CHECK: %[[CIT:.*]] = nv_tileas.async.pipeline.create_iterator %[[C]] : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 2, kind = consumer>
// CHECK: nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, 232>, isolated = false, nv_tileas.agent_groups = array<i32: 0, 1>} {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:.*]] = %[[P]], %[[IT:.*]] = %[[PIT]]) -> (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 2>)
// CHECK: %[[NT:.*]] = nv_tileas.async.pipeline.produce_one %[[T]], %[[IT]] {producer_types = [tensor<64xf32>]}
// CHECK-NEXT: ^{{.*}}(%[[SLOT:.*]]: tensor<64xf32>):
// CHECK-NEXT: %[[ACQ:.*]] = nv_tileas.async.pipeline.producer_acquire %[[T]], %[[IT]]
// CHECK-NEXT: %[[W:.*]], %[[V:.*]] = nv_tileas.async.pipeline.producer_write %[[ACQ]], %[[IT]]
// CHECK-NEXT: cuda_tile.negf %[[SLOT]]
// CHECK: nv_tileas.async.pipeline.producer_commit %[[W]]
// CHECK-NEXT: nv_tileas.async.pipeline.yield %[[V]] : tensor<64xf32>
// CHECK: %[[NIT:.*]] = nv_tileas.async.pipeline.inc_iter %[[IT]]
// CHECK-NEXT: scf.yield %[[NT]], %[[NIT]]
// CHECK: nv_tileas.async.pipeline.yield
// CHECK-NEXT: }, {
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %{{.*}}, %[[CT:.*]] = %[[C]], %[[CI:.*]] = %[[CIT]]) -> (tensor<64xf32>, !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 2, kind = consumer>)
// CHECK-NEXT: %[[WAIT:.*]] = nv_tileas.async.pipeline.consumer_wait %[[CT]], %[[CI]] {consumer_idx = 0 : i32}
// CHECK-NEXT: %[[RT:.*]], %[[R:.*]] = nv_tileas.async.pipeline.consumer_read %[[WAIT]], %[[CI]] {consumer_idx = 0 : i32}
// CHECK: cuda_tile.addf %[[A]]
// CHECK: %[[REL:.*]] = nv_tileas.async.pipeline.consumer_release %[[RT]]
// CHECK-NEXT: %[[NCI:.*]] = nv_tileas.async.pipeline.inc_iter %[[CI]]
// CHECK-NEXT: scf.yield %[[R]], %[[REL]], %[[NCI]]
// CHECK-NOT: nv_tileaa.queue
// CHECK-NOT: nv_tileaa.execute
func.func @loop_pipeline(%buf: !nv_tileaa.tiled_view<2x64xf32>, %n: index) {
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x64xf32> -> !nv_tileaa.queue<tensor<64xf32>>
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      nv_tileaa.queue.put %q : !nv_tileaa.queue<tensor<64xf32>> {
      ^bb0(%slot: tensor<64xf32>):
        %v = cuda_tile.negf %slot : tensor<64xf32>
        nv_tileaa.queue.yield %v : tensor<64xf32>
      }
    }
    nv_tileaa.yield
  }, {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = cuda_tile.constant <f32: 0.0> : tensor<64xf32>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<64xf32>) {
      %r = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<64xf32>> -> (tensor<64xf32>) {
      ^bb0(%slot: tensor<64xf32>):
        %s = cuda_tile.addf %a, %slot : tensor<64xf32>
        nv_tileaa.queue.yield %s : tensor<64xf32>
      }
      scf.yield %r : tensor<64xf32>
    }
    nv_tileaa.yield
  }
  func.return
}

// -----

// Two consumers of one group, a get whose results nobody reads (consume_one with the
// handshake inside), and a put under scf.if: both arms yield the pipeline state.
// CHECK-LABEL: func.func @two_consumers
// CHECK: agent_switch attributes {num_agents_per_group = 2 : i32, max_regs = array<i32: 24, 24, 232, 232>, isolated = false, nv_tileas.agent_groups = array<i32: 0, 0, 1, 1>}
// CHECK: %{{.*}}, %[[IFIT:.*]] = scf.if %{{.*}} -> (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tensor<16xf16>, count = 3>) {
// CHECK: nv_tileas.async.pipeline.produce_one
// CHECK: scf.yield %{{.*}}, %{{.*}} : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tensor<16xf16>, count = 3>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}} : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tensor<16xf16>, count = 3>
// CHECK: nv_tileas.async.pipeline.consume_one %{{.*}}, %{{.*}} {consumer_idx = 0 : i32, consumer_types = [tensor<16xf16>]}
// CHECK-NEXT: ^{{.*}}(%[[S0:.*]]: tensor<16xf16>):
// CHECK-NEXT: consumer_wait {{.*}} {consumer_idx = 0 : i32}
// CHECK-NEXT: consumer_read {{.*}} {consumer_idx = 0 : i32}
// CHECK: consumer_release
// CHECK-NEXT: nv_tileas.async.pipeline.yield %[[S0]] : tensor<16xf16>
// CHECK: nv_tileas.async.pipeline.consume_one %{{.*}}, %{{.*}} {consumer_idx = 1 : i32, consumer_types = [tensor<16xf16>]}
func.func @two_consumers(%buf: !nv_tileaa.tiled_view<3x16xf16>, %c: i1, %out: tensor<16x!cuda_tile.ptr<f16>>) {
  %q = nv_tileaa.queue.create %buf {num_stages = 3 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<3x16xf16> -> !nv_tileaa.queue<tensor<16xf16>>
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 0, 1, 1>, max_registers = array<i32: 24, 24, 232, 232>} {
    scf.if %c {
      nv_tileaa.queue.put %q : !nv_tileaa.queue<tensor<16xf16>> {
      ^bb0(%slot: tensor<16xf16>):
        nv_tileaa.queue.yield %slot : tensor<16xf16>
      }
    }
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }, {
    nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<16xf16>> -> () {
    ^bb0(%slot: tensor<16xf16>):
      %t = nv_tileaa.store weak %out, %slot : tensor<16x!cuda_tile.ptr<f16>>, tensor<16xf16>
      nv_tileaa.queue.yield
    }
    nv_tileaa.yield
  }, {
    nv_tileaa.queue.get %q {consumer_idx = 1 : i32} : !nv_tileaa.queue<tensor<16xf16>> -> () {
    ^bb0(%slot: tensor<16xf16>):
      nv_tileaa.queue.yield
    }
    nv_tileaa.yield
  }
  func.return
}
