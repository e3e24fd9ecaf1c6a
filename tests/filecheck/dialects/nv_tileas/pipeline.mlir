// The async pipeline family (seed 003 PipelineOp entries 0-14): every op round-trips,
// and each pipeline / agent / iterator rule has its valid case here (tagged RULE; the
// invalid cases are in pipeline_invalid.mlir).
// RUN: tileir-opt %s --split-input-file | tileir-opt --split-input-file | filecheck %s
// RUN: tileir-opt %s --split-input-file --print-op-generic | tileir-opt --split-input-file | filecheck %s

// RULE: pipeline-stages
// RULE: pipeline-group-ids
// RULE: pipeline-shared-mem
// RULE: iterator-count
// RULE: iterator-side
// CHECK-LABEL: func.func @create
// CHECK: nv_tileas.async.pipeline.create_pipeline %{{.*}} {numStages = 3 : i32, producerGroupId = 0 : ui8, consumerGroupId = 200 : ui8, sharedMem = true} : !nv_tileas.tiled_view<3x64x64xf16, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
// CHECK: nv_tileas.async.pipeline.create_iterator %{{.*}} : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>, count = 3, kind = consumer>
// CHECK: nv_tileas.async.pipeline.inc_iter %{{.*}} : !nv_tileas.async.pipeline.iterator<tile<64x64xf16>, count = 3, kind = consumer>
// CHECK: nv_tileas.async.pipeline.create_iterator %{{.*}} : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>, count = 3>
// CHECK: nv_tileas.async.pipeline.create_iterator %{{.*}} : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
// CHECK: nv_tileas.async.pipeline.create_pipeline %{{.*}} {numStages = 1 : i32, producerGroupId = 0 : i8, consumerGroupId = 0 : i8, dynamic = true} : !nv_tileaa.tiled_view<64xf32>
func.func @create(%buf: !nv_tileas.tiled_view<3x64x64xf16, smem>, %flat: !nv_tileaa.tiled_view<64xf32>) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 3 : i32, producerGroupId = 0 : ui8, consumerGroupId = 200 : ui8, sharedMem = true} : !nv_tileas.tiled_view<3x64x64xf16, smem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  %it = nv_tileas.async.pipeline.create_iterator %c : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>, count = 3, kind = consumer>
  %next = nv_tileas.async.pipeline.inc_iter %it : !nv_tileas.async.pipeline.iterator<tile<64x64xf16>, count = 3, kind = consumer>
  // The producer side: the default kind, written or not.
  %pit = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>, count = 3, kind = producer>
  %pit2 = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<tile<64x64xf16>>
  // A one-stage pipeline between the agents of one group (an unspecialized pipeline).
  %p1, %c1 = nv_tileas.async.pipeline.create_pipeline %flat {numStages = 1 : i32, producerGroupId = 0 : i8, consumerGroupId = 0 : i8, dynamic = true} : !nv_tileaa.tiled_view<64xf32> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  func.return
}

// -----

// Region arguments may be the iterator itself: it is unwrapped to its payload.  Each side
// takes its own iterator (the producer one, the consumer one: distinct types).
// RULE: pipeline-region-yield
// RULE: producer-region-args
// RULE: consumer-region-args
// RULE: region-yield-types
// CHECK-LABEL: func.func @regions
// CHECK: nv_tileas.async.pipeline.produce_one %{{.*}}, %{{.*}} {producer_types = [tile<64xf32>, i32]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>>) -> !nv_tileas.async.pipeline.producer_token {
// CHECK-NEXT: ^bb0(%{{.*}}: !nv_tileas.async.pipeline.iterator<tile<64xf32>>, %{{.*}}: i32):
// CHECK: nv_tileas.async.pipeline.produce_one_async {{.*}} -> (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.token)
// CHECK: nv_tileas.async.pipeline.consume_one {{.*}} {consumer_idx = 0 : i32, consumer_types = [tile<64xf32>]} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>) -> !nv_tileas.async.pipeline.consumer_token {
// CHECK-NEXT: ^bb0(%{{.*}}: !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>):
// CHECK: nv_tileas.async.pipeline.consume_one_async {{.*}} -> (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.token)
func.func @regions(%p: !nv_tileas.async.pipeline.producer_token, %c: !nv_tileas.async.pipeline.consumer_token,
                   %it: !nv_tileas.async.pipeline.iterator<tile<64xf32>>, %cit: !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>,
                   %v: !cuda_tile.tile<64xf32>, %n: i32) {
  %p1 = nv_tileas.async.pipeline.produce_one %p, %it {producer_types = [tile<64xf32>, i32]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>>) -> !nv_tileas.async.pipeline.producer_token {
  ^bb0(%stage: !nv_tileas.async.pipeline.iterator<tile<64xf32>>, %count: i32):
    nv_tileas.async.pipeline.yield %v, %count : tile<64xf32>, i32
  }
  %p2, %done = nv_tileas.async.pipeline.produce_one_async %p1, %it {producer_types = [tile<64xf32>]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>>) -> (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.token) {
  ^bb0(%stage: tile<64xf32>):
    nv_tileas.async.pipeline.yield %stage : tile<64xf32>
  }
  %c1 = nv_tileas.async.pipeline.consume_one %c, %cit {consumer_idx = 0 : i32, consumer_types = [tile<64xf32>]} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>) -> !nv_tileas.async.pipeline.consumer_token {
  ^bb0(%x: !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>):
    nv_tileas.async.pipeline.yield %v : tile<64xf32>
  }
  %c2, %cdone = nv_tileas.async.pipeline.consume_one_async %c1, %cit {consumer_idx = 0 : i32, consumer_types = []} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>) -> (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.token) {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// The explicit handshake of seed 001's lifecycle.
// CHECK-LABEL: func.func @handshake
// CHECK: %[[A:.*]] = nv_tileas.async.pipeline.producer_acquire %{{.*}}, %{{.*}} : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>> -> !nv_tileas.async.pipeline.producer_token
// CHECK: %[[W:.*]], %{{.*}} = nv_tileas.async.pipeline.producer_write %[[A]], %{{.*}} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>>) -> (!nv_tileas.async.pipeline.producer_token, tile<64xf32>) {
// CHECK: nv_tileas.async.pipeline.producer_commit %[[W]] : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.producer_token
// CHECK: %[[CW:.*]] = nv_tileas.async.pipeline.consumer_wait %{{.*}}, %{{.*}} {consumer_idx = 0 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer> -> !nv_tileas.async.pipeline.consumer_token
// CHECK: %[[R:.*]], %{{.*}} = nv_tileas.async.pipeline.consumer_read %[[CW]], %{{.*}} {consumer_idx = 0 : i32} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>) -> (!nv_tileas.async.pipeline.consumer_token, tile<64xf32>) {
// CHECK: nv_tileas.async.pipeline.consumer_release %[[R]] : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.consumer_token
func.func @handshake(%p: !nv_tileas.async.pipeline.producer_token, %c: !nv_tileas.async.pipeline.consumer_token,
                     %it: !nv_tileas.async.pipeline.iterator<tile<64xf32>>, %cit: !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>,
                     %v: !cuda_tile.tile<64xf32>) {
  %ready = nv_tileas.async.pipeline.producer_acquire %p, %it : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>> -> !nv_tileas.async.pipeline.producer_token
  %written, %val = nv_tileas.async.pipeline.producer_write %ready, %it : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>>) -> (!nv_tileas.async.pipeline.producer_token, tile<64xf32>) {
    nv_tileas.async.pipeline.yield %v : tile<64xf32>
  }
  %committed = nv_tileas.async.pipeline.producer_commit %written : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.producer_token
  %waited = nv_tileas.async.pipeline.consumer_wait %c, %cit {consumer_idx = 0 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer> -> !nv_tileas.async.pipeline.consumer_token
  %read, %got = nv_tileas.async.pipeline.consumer_read %waited, %cit {consumer_idx = 0 : i32} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>) -> (!nv_tileas.async.pipeline.consumer_token, tile<64xf32>) {
    nv_tileas.async.pipeline.yield %v : tile<64xf32>
  }
  %released = nv_tileas.async.pipeline.consumer_release %read : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.consumer_token
  func.return
}

// -----

// Both arms of an scf.if yield the same iterator type (all four fields).
// RULE: iterator-branch-agreement
// CHECK-LABEL: func.func @iterator_branches
// CHECK: scf.if
// CHECK: nv_tileas.async.pipeline.inc_iter %{{.*}} : !nv_tileas.async.pipeline.iterator<tile<64xf32>, count = 2>
func.func @iterator_branches(%cond: i1, %a: !nv_tileas.async.pipeline.iterator<tile<64xf32>, count = 2>,
                             %b: !nv_tileas.async.pipeline.iterator<tile<64xf32>, count = 2>) {
  %it = scf.if %cond -> (!nv_tileas.async.pipeline.iterator<tile<64xf32>, count = 2>) {
    scf.yield %a : !nv_tileas.async.pipeline.iterator<tile<64xf32>, count = 2>
  } else {
    scf.yield %b : !nv_tileas.async.pipeline.iterator<tile<64xf32>, count = 2>
  }
  %next = nv_tileas.async.pipeline.inc_iter %it : !nv_tileas.async.pipeline.iterator<tile<64xf32>, count = 2>
  func.return
}

// -----

// A producer agent and a consumer group of two: consumer_idx 1 is the second consumer.
// max_regs 228 and 232 both quantize to 240 (seed 002: 8 * ceil_div(r + 7, 8)), so the
// group agrees; 32 + 240 + 240 = 512 fits the launch budget.
// RULE: consumer-idx
// RULE: agent-max-regs
// RULE: agent-group-size
// RULE: agent-warps-agree
// RULE: agent-budget
// CHECK-LABEL: func.func @agents
// CHECK: nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 24, 232, 228>, isolated = false} {
// CHECK: }, {
// CHECK: nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 2 : i32, max_regs = array<i32: 228, 232>, isolated = false}
// CHECK-NEXT: nv_tileas.async.pipeline.consumer_wait %{{.*}}, %{{.*}} {consumer_idx = 1 : i32}
// CHECK: nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 2 : i32, max_regs = array<i32: -1, 232>, isolated = false}
func.func @agents(%c: !nv_tileas.async.pipeline.consumer_token, %it: !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>) attributes {nv_tileas.launch_budget = 512 : i32} {
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 24, 232, 228>, isolated = false} {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 2 : i32, max_regs = array<i32: 228, 232>, isolated = false} {
    %w = nv_tileas.async.pipeline.consumer_wait %c, %it {consumer_idx = 1 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer> -> !nv_tileas.async.pipeline.consumer_token
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  // -1 inherits the enclosing budget and agrees with anything.
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 2 : i32, max_regs = array<i32: -1, 232>, isolated = false} {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// Isolated agents see the outside only through the operands (their region arguments).
// RULE: agent-region-args
// CHECK-LABEL: func.func @isolated_agents
// CHECK: nv_tileas.async.pipeline.agent_switch (%{{.*}}, %{{.*}} : !nv_tileas.async.pipeline.producer_token, tile<64xf32>) attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, 232>, isolated = true} {
// CHECK-NEXT: ^bb0(%{{.*}}: !nv_tileas.async.pipeline.producer_token, %{{.*}}: tile<64xf32>):
func.func @isolated_agents(%p: !nv_tileas.async.pipeline.producer_token, %v: !cuda_tile.tile<64xf32>) {
  nv_tileas.async.pipeline.agent_switch (%p, %v : !nv_tileas.async.pipeline.producer_token, !cuda_tile.tile<64xf32>) attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, 232>, isolated = true} {
  ^bb0(%ap: !nv_tileas.async.pipeline.producer_token, %av: tile<64xf32>):
    %done = nv_tileas.async.pipeline.producer_commit %ap : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.producer_token
    nv_tileas.async.pipeline.yield
  }, {
  ^bb0(%bp: !nv_tileas.async.pipeline.producer_token, %bv: tile<64xf32>):
    nv_tileas.async.pipeline.yield
  }
  func.return
}
