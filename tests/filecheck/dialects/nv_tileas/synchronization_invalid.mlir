// Synchronization verifier rules (valid cases in synchronization.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// Only the warps of one agent run an agent body: a CTA-wide barrier there never completes.
// RULE: cta-barrier-placement
func.func @in_agent() {
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 232, 232>, isolated = false} {
    // expected-error@+1 {{'nv_tileas.cta_barrier' op must not sit inside 'nv_tileas.async.pipeline.agent_switch': only some warps run its region, and the barrier waits for every thread of the CTA}}
    nv_tileas.cta_barrier
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: cta-barrier-placement
func.func @in_producer_region(%p: !nv_tileas.async.pipeline.producer_token, %it: !nv_tileas.async.pipeline.iterator<tile<64xf32>>, %v: !cuda_tile.tile<64xf32>) {
  %written, %val = nv_tileas.async.pipeline.producer_write %p, %it : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>>) -> (!nv_tileas.async.pipeline.producer_token, tile<64xf32>) {
    // expected-error@+1 {{'nv_tileas.cta_barrier' op must not sit inside 'nv_tileas.async.pipeline.producer_write': only some warps run its region, and the barrier waits for every thread of the CTA}}
    nv_tileas.cta_barrier
    nv_tileas.async.pipeline.yield %v : tile<64xf32>
  }
  func.return
}

// -----

// RULE: cta-barrier-placement
func.func @in_consumer_region(%c: !nv_tileas.async.pipeline.consumer_token, %it: !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>, %v: !cuda_tile.tile<64xf32>) {
  %read, %got = nv_tileas.async.pipeline.consumer_read %c, %it {consumer_idx = 0 : i32} : (!nv_tileas.async.pipeline.consumer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>, kind = consumer>) -> (!nv_tileas.async.pipeline.consumer_token, tile<64xf32>) {
    // expected-error@+1 {{'nv_tileas.cta_barrier' op must not sit inside 'nv_tileas.async.pipeline.consumer_read': only some warps run its region, and the barrier waits for every thread of the CTA}}
    nv_tileas.cta_barrier
    nv_tileas.async.pipeline.yield %v : tile<64xf32>
  }
  func.return
}

// -----

// A generate region may be moved, duplicated or erased by pure rewrites.
// RULE: cta-barrier-placement
func.func @in_generate() {
  %t = nv_tileas.generate : tensor<4xf32> {
  ^bb0(%i: index):
    // expected-error@+1 {{'nv_tileas.cta_barrier' op must not sit inside 'nv_tileas.generate', whose region pure rewrites may move, duplicate or erase}}
    nv_tileas.cta_barrier
    %x = arith.constant 0.0 : f32
    nv_tileas.yield %x : f32
  }
  func.return
}

// -----

// RULE: gdc-placement
func.func @gdc_in_generate() {
  %t = nv_tileas.generate : tensor<4xf32> {
  ^bb0(%i: index):
    // expected-error@+1 {{'nv_tileas.gdc_wait' op must not sit inside 'nv_tileas.generate', whose region pure rewrites may move, duplicate or erase}}
    nv_tileas.gdc_wait
    %x = arith.constant 0.0 : f32
    nv_tileas.yield %x : f32
  }
  func.return
}

// -----

// Outside an agent every warp runs the code: the CTA barrier is the one to use there.
// RULE: agent-barrier-placement
func.func @agent_barrier_outside_agents() {
  // expected-error@+1 {{'nv_tileas.agent_barrier' op must sit inside an agent of an 'agent_switch': it waits for one agent's threads}}
  nv_tileas.agent_barrier
  func.return
}

// -----

// RULE: agent-barrier-placement
func.func @agent_barrier_in_producer_region(%p: !nv_tileas.async.pipeline.producer_token, %it: !nv_tileas.async.pipeline.iterator<tile<64xf32>>, %v: !cuda_tile.tile<64xf32>) {
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, 232>, isolated = false} {
    %written, %val = nv_tileas.async.pipeline.producer_write %p, %it : (!nv_tileas.async.pipeline.producer_token, !nv_tileas.async.pipeline.iterator<tile<64xf32>>) -> (!nv_tileas.async.pipeline.producer_token, tile<64xf32>) {
      // expected-error@+1 {{'nv_tileas.agent_barrier' op must not sit inside 'nv_tileas.async.pipeline.producer_write': an agent barrier is for the agent's code, not a pipeline stage's region}}
      nv_tileas.agent_barrier
      nv_tileas.async.pipeline.yield %v : tile<64xf32>
    }
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}

// -----

// RULE: agent-barrier-placement
func.func @agent_barrier_in_generate() {
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, 232>, isolated = false} {
    %t = nv_tileas.generate : tensor<4xf32> {
    ^bb0(%i: index):
      // expected-error@+1 {{'nv_tileas.agent_barrier' op must not sit inside 'nv_tileas.generate', whose region pure rewrites may move, duplicate or erase}}
      nv_tileas.agent_barrier
      %x = arith.constant 0.0 : f32
      nv_tileas.yield %x : f32
    }
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.async.pipeline.yield
  }
  func.return
}
