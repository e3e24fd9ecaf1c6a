// tileas-materialize-schedule (seed 003 "Schedule Infrastructure Builders"): the schedule
// analysis partitions each loop's loads, stores and async roots into resident and pending
// ones (recorded as nv_tileas.schedule); resident loads are hoisted, pending tiled loads
// are stage-expanded (prologue replicas for stages 0 .. S-2, one replica S-1 iterations
// ahead in the body, carried through iter-args).  BLOCKED cases: a legality condition
// keeps the load where it is (it is still counted).
// RUN: tileir-opt %s --split-input-file -p 'tileas-materialize-schedule{num-stages=3}' | filecheck %s
// RUN: tileir-opt %s --split-input-file -p tileas-materialize-schedule | filecheck %s --check-prefix=TWO

// Three stages: loads of iterations 0 and 1 before the loop, the load of iteration k+2
// in the body; the loop-invariant load is hoisted (resident).
// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[V:[^:]*]]: !nv_tileas.tiled_view<1024x64xf32, gmem>, %[[W:[^:]*]]: !nv_tileas.tiled_view<64x64xf32, gmem>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[B:.*]] = nv_tileas.tiled_load %[[W]][%[[C0]], %[[C0]]] {atom = #nv_tileas<atom ldg_128b>} :
// CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[R0:.*]] = arith.muli %[[C0]], %[[C64]] : index
// CHECK-NEXT: %[[A0:.*]] = nv_tileas.tiled_load %[[V]][%[[R0]], %[[C0]]] {atom = #nv_tileas<atom ldg_128b>, padding_value = 0.000000e+00 : f32, nv_tileas.stage = 0 : i32}
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[I1:.*]] = arith.addi %[[C0]], %[[ONE]] : index
// CHECK-NEXT: %[[C64B:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[R1:.*]] = arith.muli %[[I1]], %[[C64B]] : index
// CHECK-NEXT: %[[A1:.*]] = nv_tileas.tiled_load %[[V]][%[[R1]], %[[C0]]] {{{.*}}nv_tileas.stage = 1 : i32}
// CHECK-NEXT: %[[RES:[^,]*]], %{{.*}}, %{{.*}} = scf.for %[[K:.*]] = %[[C0]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[S0:.*]] = %[[A0]], %[[S1:.*]] = %[[A1]]) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[S0]], %[[B]]
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[ACC]], %[[SUM]]
// CHECK-NEXT: %[[CK2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[K2:.*]] = arith.addi %[[K]], %[[CK2]] : index
// CHECK-NEXT: %[[C64C:.*]] = arith.constant 64 : index
// CHECK-NEXT: %[[R2:.*]] = arith.muli %[[K2]], %[[C64C]] : index
// CHECK-NEXT: %[[A2:.*]] = nv_tileas.tiled_load %[[V]][%[[R2]], %[[C0]]] {{{.*}}nv_tileas.stage = 2 : i32}
// CHECK-NEXT: scf.yield %[[N]], %[[S1]], %[[A2]] : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
// CHECK-NEXT: } {nv_tileas.schedule = {num_stages = 3 : i32, resident_loads = 1 : i32, pending_loads = 1 : i32, resident_stores = 0 : i32, pending_stores = 0 : i32, async_roots = 0 : i32, resident_async = 1 : i32, pending_async = 1 : i32}}
// CHECK-NEXT: func.return %[[RES]] :
// Two stages (the option's default): one prologue load, the next iteration's in the body.
// TWO-LABEL: func.func @expand
// TWO: nv_tileas.stage = 0 : i32
// TWO: scf.for %[[K:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[S0:.*]] = %{{.*}}) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
// TWO: arith.addi %[[K]], %{{.*}} : index
// TWO: nv_tileas.stage = 1 : i32
// TWO: num_stages = 2 : i32
func.func @expand(%v: !nv_tileas.tiled_view<1024x64xf32, gmem>, %w: !nv_tileas.tiled_view<64x64xf32, gmem>, %acc0: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %acc0) -> (tensor<64x64xf32>) {
    %c64 = arith.constant 64 : index
    %row = arith.muli %k, %c64 : index
    %a = nv_tileas.tiled_load %v[%row, %c0] {atom = #nv_tileas<atom ldg_128b>, padding_value = 0.0 : f32} : !nv_tileas.tiled_view<1024x64xf32, gmem> -> tensor<64x64xf32>
    %b = nv_tileas.tiled_load %w[%c0, %c0] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<64x64xf32>
    %s = arith.addf %a, %b : tensor<64x64xf32>
    %n = arith.addf %acc, %s : tensor<64x64xf32>
    scf.yield %n : tensor<64x64xf32>
  }
  func.return %r : tensor<64x64xf32>
}

// -----

// A dynamic step: stage k's induction variable is lb + step * k.
// CHECK-LABEL: func.func @dynamic_step
// CHECK-SAME: %[[LB:[^:]*]]: index, %[[UB:[^:]*]]: index, %[[ST:[^:]*]]: index
// CHECK: nv_tileas.tiled_load %{{.*}}[%[[LB]]] {{{.*}}nv_tileas.stage = 0 : i32}
// CHECK-NEXT: %[[F:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[O:.*]] = arith.muli %[[F]], %[[ST]] : index
// CHECK-NEXT: %[[I1:.*]] = arith.addi %[[LB]], %[[O]] : index
// CHECK-NEXT: nv_tileas.tiled_load %{{.*}}[%[[I1]]] {{{.*}}nv_tileas.stage = 1 : i32}
// CHECK: scf.for %[[K:.*]] = %[[LB]] to %[[UB]] step %[[ST]]
// CHECK: %[[F2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[O2:.*]] = arith.muli %[[F2]], %[[ST]] : index
// CHECK-NEXT: %[[K2:.*]] = arith.addi %[[K]], %[[O2]] : index
// CHECK-NEXT: nv_tileas.tiled_load %{{.*}}[%[[K2]]] {{{.*}}nv_tileas.stage = 2 : i32}
func.func @dynamic_step(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %lb: index, %ub: index, %st: index, %acc0: tensor<128xf32>) -> tensor<128xf32> {
  %r = scf.for %k = %lb to %ub step %st iter_args(%acc = %acc0) -> (tensor<128xf32>) {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %n = arith.addf %acc, %a : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  }
  func.return %r : tensor<128xf32>
}

// -----

// A loop hint (nv_tileas.num_stages) overrides the option.
// CHECK-LABEL: func.func @hint
// CHECK: nv_tileas.stage = 0 : i32
// CHECK-NOT: nv_tileas.stage = 1 : i32
// CHECK: scf.for
// CHECK: nv_tileas.stage = 1 : i32
// CHECK-NOT: nv_tileas.stage = 2
// CHECK: num_stages = 2 : i32
func.func @hint(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %acc0: tensor<128xf32>) -> tensor<128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %acc0) -> (tensor<128xf32>) {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %n = arith.addf %acc, %a : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  } {nv_tileas.num_stages = 2 : i32}
  func.return %r : tensor<128xf32>
}

// -----

// BLOCKED: the loop body stores (pending store): no load moves, the partition is still
// recorded.
// CHECK-LABEL: func.func @blocked_store_in_loop
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.tiled_load
// CHECK-NEXT: nv_tileas.tiled_load
// CHECK-NEXT: nv_tileas.tiled_store
// CHECK-NEXT: } {nv_tileas.schedule = {num_stages = 3 : i32, resident_loads = 1 : i32, pending_loads = 1 : i32, resident_stores = 0 : i32, pending_stores = 1 : i32
// CHECK-NOT: nv_tileas.stage
func.func @blocked_store_in_loop(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %o: !nv_tileas.tiled_view<4096xf32, gmem>, %c0: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %k = %c0 to %c32 step %c1 {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %b = nv_tileas.tiled_load %v[%c0] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    nv_tileas.tiled_store %a, %o[%k] {atom = #nv_tileas<atom stg_128b>} : tensor<128xf32>, !nv_tileas.tiled_view<4096xf32, gmem>
  }
  func.return
}

// -----

// BLOCKED: an opaque op in the body (unknown effects: it may write what the load reads).
// CHECK-LABEL: func.func @blocked_opaque_op
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.tiled_load
// CHECK-NOT: nv_tileas.stage
func.func @blocked_opaque_op(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %c0: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %k = %c0 to %c32 step %c1 {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    "test.op"(%a) : (tensor<128xf32>) -> ()
  }
  func.return
}

// -----

// BLOCKED: an acquire load must not move; an in-bounds dimension (no bounds check, a
// speculative access could fault); a token-ordered load.  All three stay.
// CHECK-LABEL: func.func @blocked_load_attributes
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.tiled_load %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>}
// CHECK-NEXT: nv_tileas.tiled_load %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom ldg_128b>, in_bounds = array<i1: true>}
// CHECK-NEXT: nv_tileas.tiled_load %{{.*}}[%{{.*}}] token
// CHECK-NOT: nv_tileas.stage
// CHECK: pending_loads = 3 : i32
func.func @blocked_load_attributes(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %t0: !nv_tileaa.mem_token, %acc0: tensor<128xf32>) -> tensor<128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %acc0) -> (tensor<128xf32>) {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %b = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>, in_bounds = array<i1: true>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %c, %t1 = nv_tileas.tiled_load %v[%k] token %t0 {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem>, !nv_tileaa.mem_token -> tensor<128xf32>
    %s = arith.addf %a, %b : tensor<128xf32>
    %s2 = arith.addf %s, %c : tensor<128xf32>
    %n = arith.addf %acc, %s2 : tensor<128xf32>
    scf.yield %n : tensor<128xf32>
  }
  func.return %r : tensor<128xf32>
}

// -----

// BLOCKED: the coordinate comes from an iter-arg, not from the induction variable: the
// load of another iteration cannot be computed ahead.
// CHECK-LABEL: func.func @blocked_iter_arg_coordinate
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.tiled_load
// CHECK-NOT: nv_tileas.stage
func.func @blocked_iter_arg_coordinate(%v: !nv_tileas.tiled_view<4096xf32, gmem>, %acc0: tensor<128xf32>) -> tensor<128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %r:2 = scf.for %k = %c0 to %c32 step %c1 iter_args(%acc = %acc0, %p = %c0) -> (tensor<128xf32>, index) {
    %a = nv_tileas.tiled_load %v[%p] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
    %n = arith.addf %acc, %a : tensor<128xf32>
    %q = arith.addi %p, %c1 : index
    scf.yield %n, %q : tensor<128xf32>, index
  }
  func.return %r#0 : tensor<128xf32>
}

// -----

// An async load is an async root (and async-eligible); as a memory-consistency op it
// orders the loop, so nothing moves.
// CHECK-LABEL: func.func @async_root
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.async.tiled_load
// CHECK-NEXT: } {nv_tileas.schedule = {num_stages = 3 : i32, resident_loads = 0 : i32, pending_loads = 1 : i32, resident_stores = 0 : i32, pending_stores = 0 : i32, async_roots = 1 : i32, resident_async = 0 : i32, pending_async = 1 : i32}}
func.func @async_root(%v: !nv_tileas.tiled_view<4096xf32, gmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  scf.for %k = %c0 to %c32 step %c1 {
    %a = nv_tileas.async.tiled_load %v[%k] {atom = #nv_tileas<atom cp_async_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> !async.value<tensor<128xf32>>
  }
  func.return
}

// -----

// Nested loops (two stages), innermost first: the inner loop's prologue load (iteration k = 0 of
// outer iteration i) is then itself a pending load of the outer loop, expanded there.
// TWO-LABEL: func.func @nested
// TWO: %[[J0:.*]] = arith.addi %[[C0:.*]], %[[C0]] : index
// TWO-NEXT: %[[P:.*]] = nv_tileas.tiled_load %{{.*}}[%[[J0]]] {{{.*}}nv_tileas.stage = 0 : i32}
// TWO-NEXT: scf.for %[[I:.*]] = {{.*}} iter_args(%[[OUTER:.*]] = %[[P]]) -> (tensor<128xf32>) {
// TWO-NEXT: scf.for %[[K:.*]] = {{.*}} iter_args(%[[INNER:.*]] = %[[OUTER]]) -> (tensor<128xf32>) {
// TWO-NEXT: arith.addf %[[INNER]], %[[INNER]]
// TWO: %[[K1:.*]] = arith.addi %[[K]], %{{.*}} : index
// TWO-NEXT: %[[J:.*]] = arith.addi %[[K1]], %[[I]] : index
// TWO-NEXT: %[[N:.*]] = nv_tileas.tiled_load %{{.*}}[%[[J]]] {{{.*}}nv_tileas.stage = 1 : i32}
// TWO-NEXT: scf.yield %[[N]]
// TWO: %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// TWO-NEXT: %[[J1:.*]] = arith.addi %[[C0]], %[[I1]] : index
// TWO-NEXT: %[[M:.*]] = nv_tileas.tiled_load %{{.*}}[%[[J1]]] {{{.*}}nv_tileas.stage = 1 : i32}
// TWO-NEXT: scf.yield %[[M]]
func.func @nested(%v: !nv_tileas.tiled_view<4096xf32, gmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c32 step %c1 {
      %j = arith.addi %k, %i : index
      %a = nv_tileas.tiled_load %v[%j] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
      %b = arith.addf %a, %a : tensor<128xf32>
    }
  }
  func.return
}
