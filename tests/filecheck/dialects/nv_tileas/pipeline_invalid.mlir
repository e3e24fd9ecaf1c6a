// Pipeline, agent and iterator verifier rules (seeds 001-003): one broken case per rule
// (tagged RULE; the valid cases are in pipeline.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: pipeline-region-yield
func.func @region_without_yield(%p: !nv_tileas.async.pipeline.producer_token, %it: !nv_tileas.async.pipeline.iterator<i32>, %v: i32) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.produce_one' op region must end with nv_tileas.async.pipeline.yield, found 'func.return'}}
  %p1 = nv_tileas.async.pipeline.produce_one %p, %it {producer_types = []} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<i32>) -> !nv_tileas.async.pipeline.producer_token {
    func.return
  }
  func.return
}

// -----

// RULE: producer-region-args
func.func @producer_args(%p: !nv_tileas.async.pipeline.producer_token, %it: !nv_tileas.async.pipeline.iterator<i32>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.produce_one' op region arguments (f32) do not match producer_types [i32]}}
  %p1 = nv_tileas.async.pipeline.produce_one %p, %it {producer_types = [i32]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<i32>) -> !nv_tileas.async.pipeline.producer_token {
  ^bb0(%x: f32):
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: consumer-region-args
func.func @consumer_args(%c: !nv_tileas.async.pipeline.consumer_token, %it: !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.consume_one' op region arguments () do not match consumer_types [i32]}}
  %c1 = nv_tileas.async.pipeline.consume_one %c, %it {consumer_idx = 0 : i32, consumer_types = [i32]} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) -> !nv_tileas.async.pipeline.consumer_token {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: region-yield-types
func.func @yield_types(%p: !nv_tileas.async.pipeline.producer_token, %it: !nv_tileas.async.pipeline.iterator<i32>, %f: f32) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.produce_one' op region yields (f32) but producer_types are (i32)}}
  %p1 = nv_tileas.async.pipeline.produce_one %p, %it {producer_types = [i32]} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<i32>) -> !nv_tileas.async.pipeline.producer_token {
  ^bb0(%x: i32):
    nv_tileas.async.pipeline.yield %f : f32
  }
  func.return
}

// -----

// RULE: consumer-idx
func.func @consumer_idx(%c: !nv_tileas.async.pipeline.consumer_token, %it: !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.consumer_wait' op consumer_idx 1 is not a valid consumer of the group (outside an agent_switch the consumer group has one consumer)}}
  %w = nv_tileas.async.pipeline.consumer_wait %c, %it {consumer_idx = 1 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<i32, kind = consumer> -> !nv_tileas.async.pipeline.consumer_token
  func.return
}

// -----

// RULE: iterator-branch-agreement (the scf.if itself is rejected, before any user)
func.func @iterator_branches(%cond: i1, %a: !nv_tileas.async.pipeline.iterator<i32, count = 2>, %b: !nv_tileas.async.pipeline.iterator<i32, count = 3>) {
  // expected-error@+1 {{'scf.if' op result #0 is the pipeline iterator !nv_tileas.async.pipeline.iterator<i32, count = 2>, but the else arm yields !nv_tileas.async.pipeline.iterator<i32, count = 3>; both arms must yield the result's iterator type}}
  %it = scf.if %cond -> (!nv_tileas.async.pipeline.iterator<i32, count = 2>) {
    scf.yield %a : !nv_tileas.async.pipeline.iterator<i32, count = 2>
  } else {
    scf.yield %b : !nv_tileas.async.pipeline.iterator<i32, count = 3>
  }
  %next = nv_tileas.async.pipeline.inc_iter %it : !nv_tileas.async.pipeline.iterator<i32, count = 2>
  func.return
}

// -----

// RULE: iterator-branch-agreement (seed 001 invariant 6: also when no pipeline op uses the
// merged iterator; the arms differ in their space)
func.func @iterator_branches_unused(%cond: i1, %a: !nv_tileas.async.pipeline.iterator<i32, count = 2>, %b: !nv_tileas.async.pipeline.iterator<i32, count = 2, space = rmem>) {
  // expected-error@+1 {{'scf.if' op result #0 is the pipeline iterator !nv_tileas.async.pipeline.iterator<i32, count = 2>, but the then arm yields !nv_tileas.async.pipeline.iterator<i32, count = 2, space = rmem>}}
  %it = scf.if %cond -> (!nv_tileas.async.pipeline.iterator<i32, count = 2>) {
    scf.yield %b : !nv_tileas.async.pipeline.iterator<i32, count = 2, space = rmem>
  } else {
    scf.yield %a : !nv_tileas.async.pipeline.iterator<i32, count = 2>
  }
  func.return
}

// -----

// RULE: iterator-count
func.func @iterator_count(%buf: !nv_tileaa.tiled_view<2x64xf32>) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64xf32> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  // expected-error@+1 {{'nv_tileas.async.pipeline.create_iterator' op iterator count 4 differs from the pipeline's numStages 2}}
  %it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<i32, count = 4>
  func.return
}

// -----

// RULE: iterator-side (the consumer token makes the consumer-side iterator)
func.func @side_create(%buf: !nv_tileaa.tiled_view<2x64xf32>) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64xf32> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  // expected-error@+1 {{'nv_tileas.async.pipeline.create_iterator' op result !nv_tileas.async.pipeline.iterator<i32> is a producer-side iterator, but the consumer token makes the consumer-side one (kind = consumer): producer and consumer iterators are distinct types}}
  %it = nv_tileas.async.pipeline.create_iterator %c : !nv_tileas.async.pipeline.consumer_token -> !nv_tileas.async.pipeline.iterator<i32>
  func.return
}

// -----

// RULE: iterator-side (the producer token makes the producer-side iterator)
func.func @side_create_producer(%buf: !nv_tileaa.tiled_view<2x64xf32>) {
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64xf32> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  // expected-error@+1 {{'nv_tileas.async.pipeline.create_iterator' op result !nv_tileas.async.pipeline.iterator<i32, kind = consumer> is a consumer-side iterator, but the producer token makes the producer-side one (kind = producer)}}
  %it = nv_tileas.async.pipeline.create_iterator %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.iterator<i32, kind = consumer>
  func.return
}

// -----

// RULE: iterator-side
// Seed 003's worked example as the seed writes it (with seeds.mlir's fill-ins for its
// free values and TMA operands): one iterator, made from the producer token, on both
// sides.  It parses; the verifier rejects the consumer side's use of it.
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
// Consumer region — wait for stage, dot, release
// expected-error@+1 {{'nv_tileas.async.pipeline.consume_one' op takes a producer-side pipeline iterator !nv_tileas.async.pipeline.iterator<tile<128x128xf16>> where its consumer token needs a consumer-side one: producer and consumer iterators are distinct types (create_iterator of the consumer token makes it)}}
%cons_tok2 = nv_tileas.async.pipeline.consume_one %cons_tok, %iter
{ consumer_idx = 0 : i32,
consumer_types = [tile<128x128xf16>] } : (
!nv_tileas.async.pipeline.consumer_token,
!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
) -> !nv_tileas.async.pipeline.consumer_token {
^bb0(%a_tile : tile<128x128xf16>):
%waited = nv_tileas.async.pipeline.consumer_wait %cons_tok, %iter
{ consumer_idx = 0 : i32 }
: !nv_tileas.async.pipeline.consumer_token,
!nv_tileas.async.pipeline.iterator<tile<128x128xf16>>
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

// -----

// RULE: iterator-side
func.func @side_produce_one_async(%p: !nv_tileas.async.pipeline.producer_token, %it: !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.produce_one_async' op takes a consumer-side pipeline iterator !nv_tileas.async.pipeline.iterator<i32, kind = consumer> where its producer token needs a producer-side one}}
  %p1, %done = nv_tileas.async.pipeline.produce_one_async %p, %it {producer_types = []} : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) -> (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.token) {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: iterator-side
func.func @side_producer_acquire(%p: !nv_tileas.async.pipeline.producer_token, %it: !nv_tileas.async.pipeline.iterator<i32, count = 2, kind = consumer>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.producer_acquire' op takes a consumer-side pipeline iterator !nv_tileas.async.pipeline.iterator<i32, count = 2, kind = consumer> where its producer token needs a producer-side one}}
  %a = nv_tileas.async.pipeline.producer_acquire %p, %it : !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<i32, count = 2, kind = consumer> -> !nv_tileas.async.pipeline.producer_token
  func.return
}

// -----

// RULE: iterator-side
func.func @side_producer_write(%p: !nv_tileas.async.pipeline.producer_token, %it: !nv_tileas.async.pipeline.iterator<i32, kind = consumer>, %v: i32) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.producer_write' op takes a consumer-side pipeline iterator}}
  %w, %x = nv_tileas.async.pipeline.producer_write %p, %it : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) -> (!nv_tileas.async.pipeline.producer_token, i32) {
    nv_tileas.async.pipeline.yield %v : i32
  }
  func.return
}

// -----

// RULE: iterator-side
func.func @side_consumer_wait(%c: !nv_tileas.async.pipeline.consumer_token, %it: !nv_tileas.async.pipeline.iterator<i32, space = rmem>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.consumer_wait' op takes a producer-side pipeline iterator !nv_tileas.async.pipeline.iterator<i32, space = rmem> where its consumer token needs a consumer-side one}}
  %w = nv_tileas.async.pipeline.consumer_wait %c, %it {consumer_idx = 0 : i32} : !nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<i32, space = rmem> -> !nv_tileas.async.pipeline.consumer_token
  func.return
}

// -----

// RULE: iterator-side
func.func @side_consumer_read(%c: !nv_tileas.async.pipeline.consumer_token, %it: !nv_tileas.async.pipeline.iterator<i32>, %v: i32) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.consumer_read' op takes a producer-side pipeline iterator}}
  %r, %x = nv_tileas.async.pipeline.consumer_read %c, %it {consumer_idx = 0 : i32} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<i32>) -> (!nv_tileas.async.pipeline.consumer_token, i32) {
    nv_tileas.async.pipeline.yield %v : i32
  }
  func.return
}

// -----

// RULE: iterator-side (an iterator-typed region argument is of the op's side too)
func.func @side_region_argument(%c: !nv_tileas.async.pipeline.consumer_token, %it: !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.consume_one' op takes a producer-side pipeline iterator !nv_tileas.async.pipeline.iterator<i32> where its consumer token needs a consumer-side one}}
  %c1 = nv_tileas.async.pipeline.consume_one %c, %it {consumer_idx = 0 : i32, consumer_types = [i32]} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<i32, kind = consumer>) -> !nv_tileas.async.pipeline.consumer_token {
  ^bb0(%stage: !nv_tileas.async.pipeline.iterator<i32>):
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: iterator-branch-agreement (the arms yield the two sides: distinct types)
func.func @side_branches(%cond: i1, %a: !nv_tileas.async.pipeline.iterator<i32, count = 2>, %b: !nv_tileas.async.pipeline.iterator<i32, count = 2, kind = consumer>) {
  // expected-error@+1 {{'scf.if' op result #0 is the pipeline iterator !nv_tileas.async.pipeline.iterator<i32, count = 2>, but the else arm yields !nv_tileas.async.pipeline.iterator<i32, count = 2, kind = consumer>}}
  %it = scf.if %cond -> (!nv_tileas.async.pipeline.iterator<i32, count = 2>) {
    scf.yield %a : !nv_tileas.async.pipeline.iterator<i32, count = 2>
  } else {
    scf.yield %b : !nv_tileas.async.pipeline.iterator<i32, count = 2, kind = consumer>
  }
  func.return
}

// -----

// RULE: pipeline-stages
func.func @stages(%buf: !nv_tileaa.tiled_view<2x64xf32>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.create_pipeline' op buffer view !nv_tileaa.tiled_view<2x64xf32> must have numStages (3) as its leading extent}}
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 3 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64xf32> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  func.return
}

// -----

// RULE: pipeline-group-ids
func.func @group_ids(%buf: !nv_tileaa.tiled_view<2x64xf32>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.create_pipeline' op producerGroupId must be an 8-bit group id in [0, 255], got 0 : i32}}
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i32, consumerGroupId = 1 : i8} : !nv_tileaa.tiled_view<2x64xf32> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  func.return
}

// -----

// RULE: pipeline-shared-mem
func.func @shared_mem(%buf: !nv_tileas.tiled_view<2x64xf32, gmem>) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.create_pipeline' op sharedMem = true requires the buffer view in smem, not gmem}}
  %p, %c = nv_tileas.async.pipeline.create_pipeline %buf {numStages = 2 : i32, producerGroupId = 0 : i8, consumerGroupId = 1 : i8, sharedMem = true} : !nv_tileas.tiled_view<2x64xf32, gmem> -> !nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.consumer_token
  func.return
}

// -----

// RULE: agent-max-regs
func.func @max_regs_count() {
  // expected-error@+1 {{'nv_tileas.async.pipeline.agent_switch' op max_regs has 3 entries for 2 agent regions}}
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, 232, 232>, isolated = false} {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: agent-group-size
func.func @group_size() {
  // expected-error@+1 {{'nv_tileas.async.pipeline.agent_switch' op num_agents_per_group (2) must be at least 1 and divide the 3 agent regions}}
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 2 : i32, max_regs = array<i32: 40, 232, 232>, isolated = false} {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// 228 and 232 quantize to 240 and 240; 225 quantizes to 232.
// RULE: agent-warps-agree
func.func @warps_agree() {
  // expected-error@+1 {{'nv_tileas.async.pipeline.agent_switch' op agents 0..1 of one group disagree on their warp count [232, 240] (quantized from max_regs [225, 232]); they must agree or inherit}}
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 2 : i32, max_regs = array<i32: 225, 232>, isolated = false} {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: agent-budget
func.func @budget() attributes {nv_tileas.launch_budget = 256 : i32} {
  // expected-error@+1 {{'nv_tileas.async.pipeline.agent_switch' op agent warp counts [48, 240] sum to 288, over the launch budget 256}}
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, 232>, isolated = false} {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: agent-region-args
func.func @isolated(%p: !nv_tileas.async.pipeline.producer_token) {
  // expected-error@+1 {{'nv_tileas.async.pipeline.agent_switch' op isolated agent region 0 uses a value defined outside it (pass it as an operand)}}
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40>, isolated = true} {
    %done = nv_tileas.async.pipeline.producer_commit %p : !nv_tileas.async.pipeline.producer_token -> !nv_tileas.async.pipeline.producer_token
    nv_tileas.async.pipeline.yield
  }
  func.return
}
