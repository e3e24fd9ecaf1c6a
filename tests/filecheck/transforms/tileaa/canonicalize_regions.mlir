// tileaa-canonicalize, result pruning (seed 004 rows "Queue result pruning", "Pragma
// result pruning", "Queue and Pragma Pruning"): unused results are dropped, the
// terminator yields the survivors, and their relative order is kept.
// RUN: tileir-opt %s --split-input-file -p tileaa-canonicalize | filecheck %s

// Results 0 and 3 are unused: the get keeps results 1 and 2, in that order (their
// users see them swapped, as before), and its yield gives %v, %b.
// CHECK-LABEL: func.func @prune_queue_get
// CHECK-NEXT: %[[R1:.*]], %[[R2:.*]] = nv_tileaa.queue.get %q {consumer_idx = 1 : i32} : !nv_tileaa.queue<tensor<64xf16>, tensor<64xf16>> -> (tensor<64xf32>, tensor<64xf16>) {
// CHECK-NEXT: ^bb0(%a: tensor<64xf16>, %b: tensor<64xf16>):
// CHECK-NEXT: nv_tileaa.queue.yield %v, %b : tensor<64xf32>, tensor<64xf16>
// CHECK-NEXT: }
// CHECK-NEXT: "test.op"(%[[R2]], %[[R1]])
func.func @prune_queue_get(%q: !nv_tileaa.queue<tensor<64xf16>, tensor<64xf16>>, %v: tensor<64xf32>) {
  %r:4 = nv_tileaa.queue.get %q {consumer_idx = 1 : i32} : !nv_tileaa.queue<tensor<64xf16>, tensor<64xf16>> -> (tensor<64xf16>, tensor<64xf32>, tensor<64xf16>, tensor<64xf32>) {
  ^bb0(%a: tensor<64xf16>, %b: tensor<64xf16>):
    nv_tileaa.queue.yield %a, %v, %b, %v : tensor<64xf16>, tensor<64xf32>, tensor<64xf16>, tensor<64xf32>
  }
  "test.op"(%r#2, %r#1) : (tensor<64xf16>, tensor<64xf32>) -> ()
  func.return
}

// -----

// With no result used the get stays (it still consumes a stage) and yields nothing.
// CHECK-LABEL: func.func @prune_queue_get_all
// CHECK-NEXT: nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<64xf16>> -> () {
// CHECK-NEXT: ^bb0(%a: tensor<64xf16>):
// CHECK-NEXT: nv_tileaa.queue.yield
// CHECK-NEXT: }
func.func @prune_queue_get_all(%q: !nv_tileaa.queue<tensor<64xf16>>) {
  %r = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<64xf16>> -> (tensor<64xf16>) {
  ^bb0(%a: tensor<64xf16>):
    nv_tileaa.queue.yield %a : tensor<64xf16>
  }
  func.return
}

// -----

// Nothing to prune when every result is used, whatever order the users take them in.
// CHECK-LABEL: func.func @prune_queue_get_blocked
// CHECK-NEXT: %[[R0:.*]], %[[R1:.*]] = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<64xf16>> -> (tensor<64xf16>, tensor<64xf16>) {
// CHECK: nv_tileaa.queue.yield %a, %a : tensor<64xf16>, tensor<64xf16>
// CHECK: "test.op"(%[[R1]], %[[R0]])
func.func @prune_queue_get_blocked(%q: !nv_tileaa.queue<tensor<64xf16>>) {
  %r:2 = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<64xf16>> -> (tensor<64xf16>, tensor<64xf16>) {
  ^bb0(%a: tensor<64xf16>):
    nv_tileaa.queue.yield %a, %a : tensor<64xf16>, tensor<64xf16>
  }
  "test.op"(%r#1, %r#0) : (tensor<64xf16>, tensor<64xf16>) -> ()
  func.return
}

// -----

// Result 0 is unused and dropped; result 2 has no user but a directive names it
// ($2), so the payload depends on it and it stays, renumbered to $1.
// CHECK-LABEL: func.func @prune_pragma
// CHECK-NEXT: %[[P:.*]], %{{.*}} = nv_tileaa.pragma -> (f32, f32) attributes {ocgEnterDirectives = ["keep_in_registers=$1"], ocgLeaveDirectives = ["maxnreg=default"]} {
// CHECK-NEXT: %s = "test.op"(%x) : (f32) -> f32
// CHECK-NEXT: nv_tileaa.yield %s, %z : f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: "test.op"(%[[P]])
func.func @prune_pragma(%x: f32, %y: f32, %z: f32) {
  %p:3 = nv_tileaa.pragma -> (f32, f32, f32) attributes {ocgEnterDirectives = ["keep_in_registers=$2"], ocgLeaveDirectives = ["maxnreg=default"]} {
    %s = "test.op"(%x) : (f32) -> f32
    nv_tileaa.yield %x, %s, %z : f32, f32, f32
  }
  "test.op"(%p#1) : (f32) -> ()
  func.return
}

// -----

// Blocked: the unused result 0 is named by a directive, and result 1 is used.
// CHECK-LABEL: func.func @prune_pragma_blocked
// CHECK-NEXT: %{{.*}}, %[[P1:.*]] = nv_tileaa.pragma -> (f32, f32) attributes {ocgEnterDirectives = ["keep_in_registers=$0"]} {
// CHECK-NEXT: nv_tileaa.yield %x, %y : f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: "test.op"(%[[P1]])
func.func @prune_pragma_blocked(%x: f32, %y: f32) {
  %p:2 = nv_tileaa.pragma -> (f32, f32) attributes {ocgEnterDirectives = ["keep_in_registers=$0"]} {
    nv_tileaa.yield %x, %y : f32, f32
  }
  "test.op"(%p#1) : (f32) -> ()
  func.return
}
