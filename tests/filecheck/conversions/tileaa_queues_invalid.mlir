// Queue lowering fails loudly (seed 004 "Plugin and Queue Contract"): resources the CTA
// does not have, and puts/gets that cannot map to a pipeline slot.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics -p convert-tileaa-to-tileas

func.func @register_file(%buf: !nv_tileaa.tiled_view<2x16xf16>) {
  // expected-error@+1 {{'nv_tileaa.execute' op the agents' register budgets [240, 240, 232] need 91136 registers (128 threads each); the register file has 65536}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1, 2>, max_registers = array<i32: 240, 240, 232>} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @setmaxnreg_step() {
  // expected-error@+1 {{agent 0 asks for 100 registers per thread; setmaxnreg grants 24 to 256 in steps of 8}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 100, 232>} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @shared_memory() {
  // expected-error@+1 {{shared_memory_bytes = 300000 exceeds the 232448 bytes of shared memory a CTA has on sm_90a}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>, shared_memory_bytes = 300000 : i64} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @tensor_memory_on_hopper() {
  // expected-error@+1 {{tensor_memory_bytes = 1024 exceeds the 0 bytes of tensor memory a CTA has on sm_90a}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>, tensor_memory_bytes = 1024 : i64} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @named_barriers() {
  // expected-error@+1 {{named_barriers = 16 exceeds the 15 named barriers a CTA has on sm_90a}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>, named_barriers = 16 : i32} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @put_in_consumer_group(%buf: !nv_tileaa.tiled_view<2x16xf16>) {
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x16xf16> -> !nv_tileaa.queue<tensor<16xf16>>
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>} {
    nv_tileaa.yield
  }, {
    // expected-error@+1 {{runs in agent 1 of group 1, but the queue's producer group is 0; it cannot map to a pipeline slot}}
    nv_tileaa.queue.put %q : !nv_tileaa.queue<tensor<16xf16>> {
    ^bb0(%slot: tensor<16xf16>):
      nv_tileaa.queue.yield %slot : tensor<16xf16>
    }
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @consumer_idx(%buf: !nv_tileaa.tiled_view<2x16xf16>) {
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x16xf16> -> !nv_tileaa.queue<tensor<16xf16>>
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>} {
    nv_tileaa.yield
  }, {
    // expected-error@+1 {{consumer_idx 1 is not a consumer of group 1, which has 1 agents}}
    nv_tileaa.queue.get %q {consumer_idx = 1 : i32} : !nv_tileaa.queue<tensor<16xf16>> -> () {
    ^bb0(%slot: tensor<16xf16>):
      nv_tileaa.queue.yield
    }
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @get_in_while(%buf: !nv_tileaa.tiled_view<2x16xf16>, %c: i1) {
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x16xf16> -> !nv_tileaa.queue<tensor<16xf16>>
  // expected-error@+1 {{holds a queue put/get that cannot map to a pipeline slot: the pipeline state can only be threaded through scf.for, scf.if and execute}}
  scf.while () : () -> () {
    scf.condition(%c)
  } do {
    nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<16xf16>> -> () {
    ^bb0(%slot: tensor<16xf16>):
      nv_tileaa.queue.yield
    }
    scf.yield
  }
  func.return
}
