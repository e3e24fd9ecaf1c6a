// tileas-insert-barriers: where a memory token orders accesses that different threads
// may make to the same element, or an acquire/release must hold for the whole CTA, an
// nv_tileas.cta_barrier is placed (seed 004 "Mem-Token Lifecycle": synchronous tokens
// have no runtime form, so program order and CTA barriers carry what they said); then
// the synchronous tokens are dropped.
// RUN: tileir-opt %s -p tileas-insert-barriers | filecheck %s
// RUN: tileir-opt %s -p tileas-insert-barriers,tileas-insert-barriers | filecheck %s

// A load whose token follows a store waits: the element may be another thread's.
// CHECK-LABEL: func.func @store_then_load
// CHECK-NOT: mem_token
// CHECK: nv_tileas.tiled_store %{{.*}}, %{{.*}}[%{{.*}}] {atom
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: %{{.*}} = nv_tileas.tiled_load %{{.*}}[%{{.*}}] {atom
// CHECK-NOT: mem_token
// CHECK: func.return
func.func @store_then_load(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>) {
  %i = arith.constant 0 : index
  %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %t1 = nv_tileas.tiled_store %x, %v[%i] token %t0 {atom = #nv_tileas<atom stg_32b>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  %y, %t2 = nv_tileas.tiled_load %v[%i] token %t1 {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// Reads after reads need nothing; a store after a read waits; a store on a fresh
// token follows nothing.
// CHECK-LABEL: func.func @reads_and_writes
// CHECK: nv_tileas.tiled_load
// CHECK-NEXT: nv_tileas.tiled_load
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: nv_tileas.tiled_store
// CHECK-NEXT: nv_tileas.tiled_store
// CHECK-NEXT: func.return
func.func @reads_and_writes(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>) {
  %i = arith.constant 0 : index
  %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %a, %t1 = nv_tileas.tiled_load %v[%i] token %t0 {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  %fresh = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %b, %t2 = nv_tileas.tiled_load %v[%i] token %t1 {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  %t3 = nv_tileas.tiled_store %x, %v[%i] token %t2 {atom = #nv_tileas<atom stg_32b>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  %t4 = nv_tileas.tiled_store %x, %v[%i] token %fresh {atom = #nv_tileas<atom stg_32b>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  func.return
}

// A join has the accesses of all its inputs.
// CHECK-LABEL: func.func @join
// CHECK-NOT: join_mem_token
// CHECK: nv_tileas.tiled_store
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: nv_tileas.tiled_load
func.func @join(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>) {
  %i = arith.constant 0 : index
  %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %t1 = nv_tileas.tiled_store %x, %v[%i] token %t0 {atom = #nv_tileas<atom stg_32b>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  %j = nv_tileaa.join_mem_token %t0, %t1 : !nv_tileaa.mem_token
  %y, %t2 = nv_tileas.tiled_load %v[%i] token %j {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// An acquire load is followed by a barrier, a release store preceded by one, whatever
// their tokens: the whole tile observes the order.  Between the two, one barrier
// serves both (and a second run of the pass, second RUN line, adds none).
// CHECK-LABEL: func.func @acquire_release
// CHECK: nv_tileas.tiled_load {{.*}}mem_semantic = #nv_tileas<mem_semantic acquire>
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: nv_tileas.tiled_store {{.*}}mem_semantic = #nv_tileas<mem_semantic release>
// CHECK-NEXT: nv_tileas.tiled_load {{.*}}mem_semantic = #nv_tileas<mem_semantic acquire>
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: func.return
func.func @acquire_release(%v: !nv_tileas.tiled_view<128xf32, gmem>) {
  %i = arith.constant 0 : index
  %y = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  nv_tileas.tiled_store %y, %v[%i] {atom = #nv_tileas<atom stg_32b>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  %z = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// Atomics (tileir's nv_tileas.atomic_rmw/atomic_cas): acq_rel waits on both sides; a
// relaxed atomic waits only when its token follows an access; an atomic is a read and
// a write for what follows it.  Its token operand and result go, as a tiled access's do.
// CHECK-LABEL: func.func @atomics
// CHECK-NEXT: nv_tileas.atomic_rmw add %x, %p {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xi32>, tensor<128x!cuda_tile.ptr<i32>> -> tensor<128xi32>
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: nv_tileas.atomic_rmw max %x, %p {mem_semantic = #nv_tileas<mem_semantic acquire_release>, {{.*}}} :
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: nv_tileas.atomic_cas %{{[^ ]*}}, %x, %p {{{.*}}} : tensor<128xi32>, tensor<128xi32>, tensor<128x!cuda_tile.ptr<i32>> -> tensor<128xi32>
// CHECK-NEXT: func.return
func.func @atomics(%p: tensor<128x!cuda_tile.ptr<i32>>, %x: tensor<128xi32>) {
  %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %r0, %t1 = nv_tileas.atomic_rmw add %x, %p token %t0 {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xi32>, tensor<128x!cuda_tile.ptr<i32>> -> tensor<128xi32>
  %r1, %t2 = nv_tileas.atomic_rmw max %x, %p token %t0 {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xi32>, tensor<128x!cuda_tile.ptr<i32>> -> tensor<128xi32>
  %r2, %t3 = nv_tileas.atomic_cas %r0, %x, %p token %t1 {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xi32>, tensor<128xi32>, tensor<128x!cuda_tile.ptr<i32>> -> tensor<128xi32>
  func.return
}

// Tokens carried by scf go too: loop iter-args, branch results and their yields.  A
// loop's token argument and a branch's token result follow nothing the pass can see
// (the history starts empty there), so the load in the loop does not wait.
// CHECK-LABEL: func.func @through_scf
// CHECK-NOT: mem_token
// CHECK: %{{.*}} = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<128xf32>) {
// CHECK-NEXT: %{{.*}} = nv_tileas.tiled_load
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: nv_tileas.tiled_store
// CHECK-NEXT: scf.yield %{{.*}} : tensor<128xf32>
// CHECK: %{{.*}} = scf.if %{{.*}} -> (i1) {
// CHECK-NEXT: nv_tileas.tiled_store
// CHECK-NEXT: scf.yield %{{.*}} : i1
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %{{.*}} : i1
// CHECK: %{{.*}} = scf.while (%{{.*}} = %{{.*}}) : (i32) -> i32 {
// CHECK: scf.condition(%{{.*}}) %{{.*}} : i32
// CHECK: ^bb0(%{{.*}}: i32):
// CHECK-NEXT: scf.yield %{{.*}} : i32
// CHECK-NOT: mem_token
// CHECK: func.return
func.func @through_scf(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>, %n: index, %c: i1) {
  %i = arith.constant 0 : index
  %one = arith.constant 1 : index
  %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %acc, %tl = scf.for %k = %i to %n step %one iter_args(%a = %x, %t = %t0) -> (tensor<128xf32>, !nv_tileaa.mem_token) {
    %y, %t1 = nv_tileas.tiled_load %v[%i] token %t {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
    %t2 = nv_tileas.tiled_store %a, %v[%i] token %t1 {atom = #nv_tileas<atom stg_32b>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
    scf.yield %y, %t2 : tensor<128xf32>, !nv_tileaa.mem_token
  }
  %done, %tb = scf.if %c -> (i1, !nv_tileaa.mem_token) {
    %t3 = nv_tileas.tiled_store %acc, %v[%i] token %tl {atom = #nv_tileas<atom stg_32b>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
    scf.yield %c, %t3 : i1, !nv_tileaa.mem_token
  } else {
    scf.yield %c, %tl : i1, !nv_tileaa.mem_token
  }
  %z = arith.constant 0 : i32
  %w, %tw = scf.while (%s = %z, %u = %tb) : (i32, !nv_tileaa.mem_token) -> (i32, !nv_tileaa.mem_token) {
    scf.condition(%done) %s, %u : i32, !nv_tileaa.mem_token
  } do {
  ^bb0(%s2: i32, %u2: !nv_tileaa.mem_token):
    scf.yield %s2, %u2 : i32, !nv_tileaa.mem_token
  }
  func.return
}

// A token something else reads (here it becomes an async token) keeps the function's
// tokens; the barrier is placed all the same.
// CHECK-LABEL: func.func @kept_tokens
// CHECK: %[[T0:.*]] = nv_tileaa.create_mem_token
// CHECK: %[[T1:.*]] = nv_tileas.tiled_store %{{.*}}, %{{.*}}[%{{.*}}] token %[[T0]]
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK-NEXT: %{{.*}}, %[[T2:.*]] = nv_tileas.tiled_load %{{.*}}[%{{.*}}] token %[[T1]]
// CHECK-NEXT: nv_tileas.async.token_to_async %[[T2]]
func.func @kept_tokens(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>) {
  %i = arith.constant 0 : index
  %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %t1 = nv_tileas.tiled_store %x, %v[%i] token %t0 {atom = #nv_tileas<atom stg_32b>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  %y, %t2 = nv_tileas.tiled_load %v[%i] token %t1 {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  %a = nv_tileas.async.token_to_async %t2 : !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}
