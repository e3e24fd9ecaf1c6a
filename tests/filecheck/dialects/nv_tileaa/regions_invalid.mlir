// nv_tileaa verifier rules: queues, execute, pragma (valid forms in regions.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

func.func @queue_stages(%buf: !nv_tileaa.tiled_view<3x128x64xf16>) {
  // expected-error@+1 {{'nv_tileaa.queue.create' op stage storage !nv_tileaa.tiled_view<3x128x64xf16> must have num_stages (2) as its leading extent}}
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<3x128x64xf16> -> !nv_tileaa.queue<tensor<128x64xf16>>
  func.return
}

// -----

func.func @queue_zero_stages(%buf: !nv_tileaa.tiled_view<0x128x64xf16>) {
  // expected-error@+1 {{'nv_tileaa.queue.create' op num_stages must be at least 1, got 0}}
  %q = nv_tileaa.queue.create %buf {num_stages = 0 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<0x128x64xf16> -> !nv_tileaa.queue<tensor<128x64xf16>>
  func.return
}

// -----

func.func @queue_group(%buf: !nv_tileaa.tiled_view<2x128x64xf16>) {
  // expected-error@+1 {{'nv_tileaa.queue.create' op producer_group must be an agent group id in [0, 255], got 256}}
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 256 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x128x64xf16> -> !nv_tileaa.queue<tensor<128x64xf16>>
  func.return
}

// -----

func.func @queue_element(%buf: !nv_tileaa.tiled_view<2x128x64xf16>) {
  // expected-error@+1 {{'nv_tileaa.queue.create' op payload tensor<128x64xf32> does not have the stage storage's element type f16}}
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x128x64xf16> -> !nv_tileaa.queue<tensor<128x64xf32>>
  func.return
}

// -----

func.func @queue_size(%buf: !nv_tileaa.tiled_view<2x128x64xf16>) {
  // expected-error@+1 {{'nv_tileaa.queue.create' op payload (tensor<128x64xf16>, tensor<64xf16>) needs 8256 elements per stage, the storage has 8192}}
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x128x64xf16> -> !nv_tileaa.queue<tensor<128x64xf16>, tensor<64xf16>>
  func.return
}

// -----

func.func @put_args(%q: !nv_tileaa.queue<tensor<128x64xf16>>, %v: tensor<128x64xf16>) {
  // expected-error@+1 {{'nv_tileaa.queue.put' op body arguments (tensor<64xf16>) must be the queue payload (tensor<128x64xf16>)}}
  nv_tileaa.queue.put %q : !nv_tileaa.queue<tensor<128x64xf16>> {
  ^bb0(%slot: tensor<64xf16>):
    nv_tileaa.queue.yield %v : tensor<128x64xf16>
  }
  func.return
}

// -----

func.func @put_yield(%q: !nv_tileaa.queue<tensor<128x64xf16>>) {
  // expected-error@+1 {{'nv_tileaa.queue.put' op body yields () but the queue payload types are (tensor<128x64xf16>)}}
  nv_tileaa.queue.put %q : !nv_tileaa.queue<tensor<128x64xf16>> {
  ^bb0(%slot: tensor<128x64xf16>):
    nv_tileaa.queue.yield
  }
  func.return
}

// -----

func.func @get_results(%q: !nv_tileaa.queue<tensor<128x64xf16>>) {
  // expected-error@+1 {{'nv_tileaa.queue.get' op body yields (tensor<128x64xf16>) but its results are (tensor<128x64xf32>)}}
  %r = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<128x64xf16>> -> (tensor<128x64xf32>) {
  ^bb0(%slot: tensor<128x64xf16>):
    nv_tileaa.queue.yield %slot : tensor<128x64xf16>
  }
  func.return
}

// -----

func.func @get_idx(%q: !nv_tileaa.queue<tensor<128x64xf16>>) {
  // expected-error@+1 {{'nv_tileaa.queue.get' op consumer_idx must be non-negative, got -1}}
  nv_tileaa.queue.get %q {consumer_idx = -1 : i32} : !nv_tileaa.queue<tensor<128x64xf16>> -> () {
  ^bb0(%slot: tensor<128x64xf16>):
    nv_tileaa.queue.yield
  }
  func.return
}

// -----

func.func @get_terminator(%q: !nv_tileaa.queue<tensor<128x64xf16>>) {
  // expected-error@+1 {{'nv_tileaa.queue.get' op body must end with nv_tileaa.queue.yield}}
  nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<128x64xf16>> -> () {
  ^bb0(%slot: tensor<128x64xf16>):
    "test.termop"() : () -> ()
  }
  func.return
}

// -----

func.func @queue_yield_parent(%v: f32) {
  // expected-error@+1 {{'nv_tileaa.queue.yield' expects parent op to be one of 'nv_tileaa.queue.put', 'nv_tileaa.queue.get'}}
  nv_tileaa.queue.yield %v : f32
}

// -----

func.func @execute_counts() {
  // expected-error@+1 {{'nv_tileaa.execute' op agent_groups (2) and max_registers (1) need one entry per agent region (2)}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40>} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_group_range() {
  // expected-error@+1 {{'nv_tileaa.execute' op agent group ids are in [0, 255], got 300}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 300>, max_registers = array<i32: 40>} {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_consecutive() {
  // expected-error@+1 {{'nv_tileaa.execute' op the regions of an agent group must be consecutive, got groups [0, 1, 0, 1]}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1, 0, 1>, max_registers = array<i32: 40, 232, 40, 232>} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_group_sizes() {
  // expected-error@+1 {{'nv_tileaa.execute' op every agent group needs as many agents, got groups [0, 1, 1]}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 1, 1>, max_registers = array<i32: 40, 232, 232>} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_budget() {
  // expected-error@+1 {{'nv_tileaa.execute' op max_registers entries are positive or -1 (inherit), got 0}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0>, max_registers = array<i32: 0>} {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_budget_disagree() {
  // expected-error@+1 {{'nv_tileaa.execute' op the agents of group 0 disagree on their register budget [40, 48]}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0, 0>, max_registers = array<i32: 40, 48>} {
    nv_tileaa.yield
  }, {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_smem() {
  // expected-error@+1 {{'nv_tileaa.execute' op shared_memory_bytes must be non-negative, got -4}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0>, max_registers = array<i32: -1>, shared_memory_bytes = -4 : i64} {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_input_layouts(%x: f32) {
  // expected-error@+1 {{'nv_tileaa.execute' op input_layouts has 0 entries for 1 inputs}}
  nv_tileaa.execute (%x : f32) attributes {agent_groups = array<i32: 0>, max_registers = array<i32: -1>, input_layouts = []} {
  ^bb0(%a: f32):
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_output_layouts() {
  // expected-error@+1 {{'nv_tileaa.execute' op output_layouts has 2 entries for 1 agents}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0>, max_registers = array<i32: -1>, output_layouts = ["a", "b"]} {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_args(%x: f32) {
  // expected-error@+1 {{'nv_tileaa.execute' op agent region 0 arguments must match the inputs (f32)}}
  nv_tileaa.execute (%x : f32) attributes {agent_groups = array<i32: 0>, max_registers = array<i32: -1>} {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @execute_yield(%x: f32) {
  // expected-error@+1 {{'nv_tileaa.execute' op agent region 0 must end with an empty nv_tileaa.yield}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0>, max_registers = array<i32: -1>} {
    nv_tileaa.yield %x : f32
  }
  func.return
}

// -----

func.func @execute_isolated(%x: f32) {
  // expected-error@+1 {{'nv_tileaa.execute' op isolated agent region 0 uses a value defined outside it (pass it as an input)}}
  nv_tileaa.execute attributes {agent_groups = array<i32: 0>, max_registers = array<i32: -1>, isolated = true} {
    "test.op"(%x) : (f32) -> ()
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @pragma_directives(%x: f32) {
  // expected-error@+1 {{'nv_tileaa.pragma' op needs ocgEnterDirectives or ocgLeaveDirectives}}
  %p = nv_tileaa.pragma -> (f32) {
    nv_tileaa.yield %x : f32
  }
  func.return
}

// -----

func.func @pragma_yield(%x: f32) {
  // expected-error@+1 {{'nv_tileaa.pragma' op region yields () but the results are (f32)}}
  %p = nv_tileaa.pragma -> (f32) attributes {ocgEnterDirectives = ["maxnreg=128"]} {
    nv_tileaa.yield
  }
  func.return
}

// -----

func.func @pragma_reference(%x: f32) {
  // expected-error@+1 {{'nv_tileaa.pragma' op a directive names result $1 of 1}}
  %p = nv_tileaa.pragma -> (f32) attributes {ocgEnterDirectives = ["keep_in_registers=$1"]} {
    nv_tileaa.yield %x : f32
  }
  func.return
}
