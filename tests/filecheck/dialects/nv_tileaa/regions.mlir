// nv_tileaa round trip: execute (agents and their resources), queues, pragma (seeds 001, 004).
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// CHECK-LABEL: func.func @queues(%buf: !nv_tileaa.tiled_view<2x128x64xf16>, %v: tensor<128x64xf16>) {
// CHECK-NEXT: nv_tileaa.execute (%buf, %v : !nv_tileaa.tiled_view<2x128x64xf16>, tensor<128x64xf16>) attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>, shared_memory_bytes = 1024 : i64, named_barriers = 2 : i32} {
// CHECK-NEXT: ^bb0(%b0: !nv_tileaa.tiled_view<2x128x64xf16>, %v0: tensor<128x64xf16>):
// CHECK-NEXT: nv_tileaa.yield
// CHECK-NEXT: }, {
// CHECK-NEXT: ^bb0(%b1: !nv_tileaa.tiled_view<2x128x64xf16>, %v1: tensor<128x64xf16>):
// CHECK-NEXT: nv_tileaa.yield
// CHECK-NEXT: }
// CHECK-NEXT: %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x128x64xf16> -> !nv_tileaa.queue<tensor<128x64xf16>>
// CHECK-NEXT: nv_tileaa.queue.put %q : !nv_tileaa.queue<tensor<128x64xf16>> {
// CHECK-NEXT: ^bb0(%slot: tensor<128x64xf16>):
// CHECK-NEXT: nv_tileaa.queue.yield %v : tensor<128x64xf16>
// CHECK-NEXT: }
// CHECK-NEXT: %r, %r_1 = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<128x64xf16>> -> (tensor<128x64xf16>, tensor<128x64xf16>) {
// CHECK-NEXT: ^bb0(%slot_1: tensor<128x64xf16>):
// CHECK-NEXT: nv_tileaa.queue.yield %slot_1, %v : tensor<128x64xf16>, tensor<128x64xf16>
// CHECK-NEXT: }
// CHECK-NEXT: %p = nv_tileaa.pragma -> (tensor<128x64xf16>) attributes {ocgEnterDirectives = ["keep_in_registers=$0"], ocgLeaveDirectives = ["maxnreg=default"]} {
// CHECK-NEXT: nv_tileaa.yield %v : tensor<128x64xf16>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CHECK-NEXT: }

func.func @queues(%buf: !nv_tileaa.tiled_view<2x128x64xf16>, %v: tensor<128x64xf16>) {
  nv_tileaa.execute (%buf, %v : !nv_tileaa.tiled_view<2x128x64xf16>, tensor<128x64xf16>) attributes {agent_groups = array<i32: 0, 1>, max_registers = array<i32: 40, 232>, shared_memory_bytes = 1024 : i64, named_barriers = 2 : i32} {
  ^bb0(%b0: !nv_tileaa.tiled_view<2x128x64xf16>, %v0: tensor<128x64xf16>):
    nv_tileaa.yield
  }, {
  ^bb0(%b1: !nv_tileaa.tiled_view<2x128x64xf16>, %v1: tensor<128x64xf16>):
    nv_tileaa.yield
  }
  %q = nv_tileaa.queue.create %buf {num_stages = 2 : i32, producer_group = 0 : i32, consumer_group = 1 : i32} : !nv_tileaa.tiled_view<2x128x64xf16> -> !nv_tileaa.queue<tensor<128x64xf16>>
  nv_tileaa.queue.put %q : !nv_tileaa.queue<tensor<128x64xf16>> {
  ^bb0(%slot: tensor<128x64xf16>):
    nv_tileaa.queue.yield %v : tensor<128x64xf16>
  }
  %r:2 = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<128x64xf16>> -> (tensor<128x64xf16>, tensor<128x64xf16>) {
  ^bb0(%slot: tensor<128x64xf16>):
    nv_tileaa.queue.yield %slot, %v : tensor<128x64xf16>, tensor<128x64xf16>
  }
  %p = nv_tileaa.pragma -> (tensor<128x64xf16>) attributes {ocgEnterDirectives = ["keep_in_registers=$0"], ocgLeaveDirectives = ["maxnreg=default"]} {
    nv_tileaa.yield %v : tensor<128x64xf16>
  }
  func.return
}
