// tileas-canonicalize: the seven nv_tileas patterns of seed 000 ("Canonicalization
// Patterns"), each with its seed example and a case for every legality condition that
// blocks it (BLOCKED: ...).  Functions use func/scf/arith, builtin tensors and test.op as
// an opaque producer / consumer, as independent tests will.
// RUN: tileir-opt %s --split-input-file -p tileas-canonicalize | filecheck %s
// The decomposed branches keep one allocation each, even through CSE (alloc_tensor has an
// allocation effect on its result); DCE then removes what the rewrites left unused.
// RUN: tileir-opt %s --split-input-file -p tileas-canonicalize,cse,dce | filecheck %s --check-prefix=CLEAN

// ===== Simplify Extract Slice =====

// Seed 000 example.  The users of the old `?x?` result get a tensor.cast; the folded
// constants are gone.
// CHECK-LABEL: func.func @simplify_extract_slice
// CHECK-NOT: arith.constant
// CHECK: %[[S:.*]] = nv_tileas.extract_slice %{{.*}}[0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.cast %[[S]] : tensor<64x64xf32> to tensor<?x?xf32>
// CHECK-NEXT: "test.op"(%[[C]]) : (tensor<?x?xf32>) -> ()
func.func @simplify_extract_slice(%src: tensor<128x128xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %slice = nv_tileas.extract_slice %src[%c0, %c0][%c64, %c64][%c1, %c1]
      : tensor<128x128xf32> to tensor<?x?xf32>
  "test.op"(%slice) : (tensor<?x?xf32>) -> ()
  func.return
}

// -----

// Mixed static/dynamic lists; a constant still used elsewhere stays.
// CHECK-LABEL: func.func @simplify_mixed
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: nv_tileas.extract_slice %{{.*}}[8, 4][16, 32][1, 2] : tensor<64x128xf32> to tensor<16x32xf32>
// CHECK: "test.op"(%{{.*}}, %[[C8]])
func.func @simplify_mixed(%src: tensor<64x128xf32>) {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c2 = arith.constant 2 : index
  %s = nv_tileas.extract_slice %src[%c8, 4][%c16, 32][1, %c2] : tensor<64x128xf32> to tensor<?x32xf32>
  "test.op"(%s, %c8) : (tensor<?x32xf32>, index) -> ()
  func.return
}

// -----

// A slice of a tiled view folds its operands; the sub-view keeps its type (a view has
// no cast).
// CHECK-LABEL: func.func @simplify_view_slice
// CHECK: nv_tileas.extract_slice %{{.*}}[0, 32][32, 32][1, 1] : !nv_tileas.tiled_view<64x64xf32, smem> to !nv_tileas.tiled_view<?x32xf32, smem>
func.func @simplify_view_slice(%v: !nv_tileas.tiled_view<64x64xf32, smem>) {
  %c32 = arith.constant 32 : index
  %s = nv_tileas.extract_slice %v[0, %c32][%c32, 32][1, 1] : !nv_tileas.tiled_view<64x64xf32, smem> to !nv_tileas.tiled_view<?x32xf32, smem>
  "test.op"(%s) : (!nv_tileas.tiled_view<?x32xf32, smem>) -> ()
  func.return
}

// -----

// BLOCKED: an offset that is not a constant.
// CHECK-LABEL: func.func @simplify_blocked_dynamic
// CHECK: nv_tileas.extract_slice %{{.*}}[%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}] : tensor<128x128xf32> to tensor<?x?xf32>
func.func @simplify_blocked_dynamic(%src: tensor<128x128xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %s = nv_tileas.extract_slice %src[%i, %c0][%c64, %c64][%c1, %c1] : tensor<128x128xf32> to tensor<?x?xf32>
  "test.op"(%s) : (tensor<?x?xf32>) -> ()
  func.return
}

// -----

// BLOCKED: a negative constant (not a non-negative integer constant).
// CHECK-LABEL: func.func @simplify_blocked_negative
// CHECK: nv_tileas.extract_slice %{{.*}}[%{{.*}}, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
func.func @simplify_blocked_negative(%src: tensor<128x128xf32>) {
  %cm1 = arith.constant -1 : index
  %s = nv_tileas.extract_slice %src[%cm1, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
  "test.op"(%s) : (tensor<64x64xf32>) -> ()
  func.return
}

// -----

// BLOCKED: constants that would make the static slice run past the extent.
// CHECK-LABEL: func.func @simplify_blocked_out_of_bounds
// CHECK: nv_tileas.extract_slice %{{.*}}[%{{.*}}, 0][64, 64][1, 1]
func.func @simplify_blocked_out_of_bounds(%src: tensor<128x128xf32>) {
  %c100 = arith.constant 100 : index
  %s = nv_tileas.extract_slice %src[%c100, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
  "test.op"(%s) : (tensor<64x64xf32>) -> ()
  func.return
}

// -----

// ===== Decompose Loop Iter Args =====

// Seed 000 example: the allocation sinks into the body, the iter-arg disappears; the
// body's insert_slice stays, as in the seed's output (dce removes it later).
// CHECK-LABEL: func.func @decompose_loop
// CHECK-NOT: nv_tileas.alloc_tensor
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[BUF:.*]] = nv_tileas.alloc_tensor : tensor<128x128xf32>
// CHECK-NEXT: %[[STEP:.*]] = "test.op"(%[[BUF]], %[[K]]) : (tensor<128x128xf32>, index) -> tensor<?x?xf32>
// CHECK-NEXT: nv_tileas.insert_slice %[[STEP]] into %[[BUF]][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][1, 1] : tensor<?x?xf32> into tensor<128x128xf32>
// CHECK-NEXT: }
// CHECK-NEXT: func.return
// CLEAN-LABEL: func.func @decompose_loop
// CLEAN: scf.for
// CLEAN-NEXT: nv_tileas.alloc_tensor
// CLEAN-NEXT: "test.op"
// CLEAN-NEXT: }
func.func @decompose_loop(%seed: tensor<?x?xf32>, %i0: index, %j0: index, %m: index, %n: index,
    %k0: index, %k1: index, %k_step: index, %i_k: index, %j_k: index) {
  %init = nv_tileas.alloc_tensor : tensor<128x128xf32>
  %init_v = nv_tileas.insert_slice %seed into %init[%i0, %j0][%m, %n][1, 1]
      : tensor<?x?xf32> into tensor<128x128xf32>
  %out = scf.for %k = %k0 to %k1 step %k_step iter_args(%buf = %init_v) -> (tensor<128x128xf32>) {
    %step_v = "test.op"(%buf, %k) : (tensor<128x128xf32>, index) -> tensor<?x?xf32>
    %next = nv_tileas.insert_slice %step_v into %buf[%i_k, %j_k][%m, %n][1, 1]
        : tensor<?x?xf32> into tensor<128x128xf32>
    scf.yield %next : tensor<128x128xf32>
  }
  func.return
}

// -----

// Only the decomposable iter-arg goes; the other one (an accumulator) stays, and so does
// a dynamically sized allocation's size.
// CHECK-LABEL: func.func @decompose_loop_keeps_others
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[BUF:.*]] = nv_tileas.alloc_tensor(%{{.*}}) : tensor<?x64xf32>
// CHECK: scf.yield %{{.*}} : f32
// CHECK: "test.op"(%[[R]]) : (f32) -> ()
func.func @decompose_loop_keeps_others(%x: tensor<8x8xf32>, %rows: index, %lb: index, %ub: index, %st: index, %a0: f32) {
  %init = nv_tileas.alloc_tensor(%rows) : tensor<?x64xf32>
  %r:2 = scf.for %k = %lb to %ub step %st iter_args(%acc = %a0, %buf = %init) -> (f32, tensor<?x64xf32>) {
    %v = "test.op"(%buf, %acc) : (tensor<?x64xf32>, f32) -> f32
    %next = nv_tileas.insert_slice %x into %buf[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<?x64xf32>
    scf.yield %v, %next : f32, tensor<?x64xf32>
  }
  "test.op"(%r#0) : (f32) -> ()
  func.return
}

// -----

// BLOCKED: the loop result of the iter-arg is used after the loop.
// CHECK-LABEL: func.func @decompose_loop_blocked_result_used
// CHECK: nv_tileas.alloc_tensor
// CHECK: scf.for {{.*}} iter_args
func.func @decompose_loop_blocked_result_used(%x: tensor<8x8xf32>, %lb: index, %ub: index, %st: index) -> tensor<64x64xf32> {
  %init = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %out = scf.for %k = %lb to %ub step %st iter_args(%buf = %init) -> (tensor<64x64xf32>) {
    %next = nv_tileas.insert_slice %x into %buf[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  func.return %out : tensor<64x64xf32>
}

// -----

// BLOCKED: the yielded chain crosses a memory-consistency op (nv_tileas.scan).
// CHECK-LABEL: func.func @decompose_loop_blocked_consistency_in_yield_chain
// CHECK: scf.for {{.*}} iter_args
// CHECK: nv_tileas.scan
func.func @decompose_loop_blocked_consistency_in_yield_chain(%x: tensor<8x8xf32>, %lb: index, %ub: index, %st: index) {
  %init = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %out = scf.for %k = %lb to %ub step %st iter_args(%buf = %init) -> (tensor<64x64xf32>) {
    %scanned = nv_tileas.scan %buf {axis = 0 : i32} : tensor<64x64xf32> -> tensor<64x64xf32> {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      nv_tileas.yield %s : f32
    }
    %next = nv_tileas.insert_slice %x into %scanned[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  func.return
}

// -----

// BLOCKED: the init chain crosses a memory-consistency op before reaching the allocation.
// CHECK-LABEL: func.func @decompose_loop_blocked_consistency_in_init_chain
// CHECK: scf.for {{.*}} iter_args
func.func @decompose_loop_blocked_consistency_in_init_chain(%x: tensor<8x8xf32>, %lb: index, %ub: index, %st: index) {
  %alloc = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %scanned = nv_tileas.scan %alloc {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64x64xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    nv_tileas.yield %s : f32
  }
  %init = nv_tileas.insert_slice %x into %scanned[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %out = scf.for %k = %lb to %ub step %st iter_args(%buf = %init) -> (tensor<64x64xf32>) {
    %next = nv_tileas.insert_slice %x into %buf[8, 8][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  func.return
}

// -----

// BLOCKED: the init chain reaches an opaque producer (neither pure tile structure nor a
// constant), not an allocation.
// CHECK-LABEL: func.func @decompose_loop_blocked_opaque_init
// CHECK: scf.for {{.*}} iter_args
func.func @decompose_loop_blocked_opaque_init(%x: tensor<8x8xf32>, %lb: index, %ub: index, %st: index) {
  %t = "test.op"() : () -> tensor<64x64xf32>
  %init = nv_tileas.insert_slice %x into %t[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %out = scf.for %k = %lb to %ub step %st iter_args(%buf = %init) -> (tensor<64x64xf32>) {
    %next = nv_tileas.insert_slice %x into %buf[8, 8][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  func.return
}

// -----

// BLOCKED: the init is a function argument (no allocation to sink).
// CHECK-LABEL: func.func @decompose_loop_blocked_argument_init
// CHECK: scf.for {{.*}} iter_args
func.func @decompose_loop_blocked_argument_init(%t: tensor<64x64xf32>, %x: tensor<8x8xf32>, %lb: index, %ub: index, %st: index) {
  %out = scf.for %k = %lb to %ub step %st iter_args(%buf = %t) -> (tensor<64x64xf32>) {
    %next = nv_tileas.insert_slice %x into %buf[8, 8][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  func.return
}

// -----

// BLOCKED: the yielded value traces to another allocation, not through the iter-arg.
// CHECK-LABEL: func.func @decompose_loop_blocked_other_allocation
// CHECK: scf.for {{.*}} iter_args
func.func @decompose_loop_blocked_other_allocation(%x: tensor<8x8xf32>, %lb: index, %ub: index, %st: index) {
  %init = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %out = scf.for %k = %lb to %ub step %st iter_args(%buf = %init) -> (tensor<64x64xf32>) {
    "test.op"(%buf) : (tensor<64x64xf32>) -> ()
    %other = nv_tileas.alloc_tensor : tensor<64x64xf32>
    %next = nv_tileas.insert_slice %x into %other[8, 8][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  func.return
}

// -----

// ===== Decompose If by Insert Slice =====

// Seed 000 example: each branch gets its own allocation and insertion chain.
// CHECK-LABEL: func.func @decompose_if_insert
// CHECK-NOT: nv_tileas.alloc_tensor
// CHECK: scf.if %{{.*}} -> (tensor<64x64xf32>) {
// CHECK-NEXT: %[[TA:.*]] = nv_tileas.alloc_tensor : tensor<64x64xf32>
// CHECK-NEXT: %[[TAV:.*]] = nv_tileas.insert_slice %{{.*}} into %[[TA]][0, 0][%{{.*}}, %{{.*}}][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
// CHECK-NEXT: %[[VA:.*]] = nv_tileas.insert_slice %{{.*}} into %[[TAV]][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
// CHECK-NEXT: scf.yield %[[VA]] : tensor<64x64xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[TB:.*]] = nv_tileas.alloc_tensor : tensor<64x64xf32>
// CHECK-NEXT: %[[TBV:.*]] = nv_tileas.insert_slice %{{.*}} into %[[TB]][0, 0][%{{.*}}, %{{.*}}][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
// CHECK-NEXT: %[[VB:.*]] = nv_tileas.insert_slice %{{.*}} into %[[TBV]][%{{.*}}, %{{.*}}][%{{.*}}, %{{.*}}][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
// CHECK-NEXT: scf.yield %[[VB]] : tensor<64x64xf32>
// CHECK-NEXT: }
// CLEAN-LABEL: func.func @decompose_if_insert
// CLEAN: scf.if
// CLEAN-NEXT: nv_tileas.alloc_tensor
// CLEAN: } else {
// CLEAN-NEXT: nv_tileas.alloc_tensor
func.func @decompose_if_insert(%seed: tensor<?x?xf32>, %a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %cond: i1,
    %i: index, %j: index, %m: index, %n: index) -> tensor<64x64xf32> {
  %init = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %init_v = nv_tileas.insert_slice %seed into %init[0, 0][%m, %n][1, 1]
      : tensor<?x?xf32> into tensor<64x64xf32>
  %r = scf.if %cond -> (tensor<64x64xf32>) {
    %v = nv_tileas.insert_slice %a into %init_v[%i, %j][%m, %n][1, 1]
        : tensor<?x?xf32> into tensor<64x64xf32>
    scf.yield %v : tensor<64x64xf32>
  } else {
    %v = nv_tileas.insert_slice %b into %init_v[%i, %j][%m, %n][1, 1]
        : tensor<?x?xf32> into tensor<64x64xf32>
    scf.yield %v : tensor<64x64xf32>
  }
  func.return %r : tensor<64x64xf32>
}

// -----

// One branch yields the shared tile unchanged: it still gets its own copy.
// CHECK-LABEL: func.func @decompose_if_insert_passthrough
// CHECK: scf.if
// CHECK-NEXT: %[[T:.*]] = nv_tileas.alloc_tensor : tensor<16xf32>
// CHECK-NEXT: scf.yield %[[T]] : tensor<16xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: nv_tileas.alloc_tensor : tensor<16xf32>
// CHECK-NEXT: nv_tileas.insert_slice
func.func @decompose_if_insert_passthrough(%cond: i1, %x: tensor<4xf32>) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %r = scf.if %cond -> (tensor<16xf32>) {
    scf.yield %init : tensor<16xf32>
  } else {
    %v = nv_tileas.insert_slice %x into %init[4][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  }
  "test.op"(%r) : (tensor<16xf32>) -> ()
  func.return
}

// -----

// BLOCKED: the allocation has a live use outside the scf.if.
// CHECK-LABEL: func.func @decompose_if_blocked_alloc_used_outside
// CHECK: %[[INIT:.*]] = nv_tileas.alloc_tensor
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
// CHECK: "test.op"(%{{.*}}, %[[INIT]])
func.func @decompose_if_blocked_alloc_used_outside(%cond: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %r = scf.if %cond -> (tensor<16xf32>) {
    %v = nv_tileas.insert_slice %a into %init[0][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  } else {
    %v = nv_tileas.insert_slice %b into %init[4][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  }
  "test.op"(%r, %init) : (tensor<16xf32>, tensor<16xf32>) -> ()
  func.return
}

// -----

// BLOCKED: an intermediate value of the shared chain is used after the scf.if.
// CHECK-LABEL: func.func @decompose_if_blocked_chain_used_outside
// CHECK: nv_tileas.alloc_tensor
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
func.func @decompose_if_blocked_chain_used_outside(%cond: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %init_v = nv_tileas.insert_slice %a into %init[0][4][1] : tensor<4xf32> into tensor<16xf32>
  %r = scf.if %cond -> (tensor<16xf32>) {
    %v = nv_tileas.insert_slice %a into %init_v[8][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  } else {
    %v = nv_tileas.insert_slice %b into %init_v[8][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  }
  "test.op"(%r, %init_v) : (tensor<16xf32>, tensor<16xf32>) -> ()
  func.return
}

// -----

// BLOCKED: one branch's chain crosses a memory-consistency op (nv_tileas.scan).
// CHECK-LABEL: func.func @decompose_if_blocked_consistency
// CHECK: nv_tileas.alloc_tensor
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
func.func @decompose_if_blocked_consistency(%cond: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %r = scf.if %cond -> (tensor<16xf32>) {
    %s = nv_tileas.scan %init {axis = 0 : i32} : tensor<16xf32> -> tensor<16xf32> {
    ^bb0(%x: f32, %y: f32):
      %z = arith.addf %x, %y : f32
      nv_tileas.yield %z : f32
    }
    %v = nv_tileas.insert_slice %a into %s[0][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  } else {
    %v = nv_tileas.insert_slice %b into %init[4][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  }
  "test.op"(%r) : (tensor<16xf32>) -> ()
  func.return
}

// -----

// BLOCKED: a memory-consistency op (async.wait) lies between the shared chain and the
// scf.if; the copies would move across it.
// CHECK-LABEL: func.func @decompose_if_blocked_wait_between
// CHECK: nv_tileas.alloc_tensor
// CHECK: nv_tileas.async.wait
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
func.func @decompose_if_blocked_wait_between(%cond: i1, %a: tensor<4xf32>, %b: tensor<4xf32>, %t: !nv_tileas.async.token) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  nv_tileas.async.wait %t : !nv_tileas.async.token
  %r = scf.if %cond -> (tensor<16xf32>) {
    %v = nv_tileas.insert_slice %a into %init[0][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  } else {
    %v = nv_tileas.insert_slice %b into %init[4][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  }
  "test.op"(%r) : (tensor<16xf32>) -> ()
  func.return
}

// -----

// BLOCKED: the branches yield tiles of two different allocations (nothing is shared).
// CHECK-LABEL: func.func @decompose_if_blocked_two_allocations
// CHECK: nv_tileas.alloc_tensor
// CHECK: nv_tileas.alloc_tensor
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
func.func @decompose_if_blocked_two_allocations(%cond: i1, %a: tensor<4xf32>) {
  %p = nv_tileas.alloc_tensor : tensor<16xf32>
  %q = nv_tileas.alloc_tensor : tensor<16xf32>
  %r = scf.if %cond -> (tensor<16xf32>) {
    %v = nv_tileas.insert_slice %a into %p[0][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  } else {
    %v = nv_tileas.insert_slice %a into %q[0][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  }
  "test.op"(%r) : (tensor<16xf32>) -> ()
  func.return
}

// -----

// BLOCKED: one branch yields an opaque value (its chain reaches no allocation).
// CHECK-LABEL: func.func @decompose_if_blocked_opaque_branch
// CHECK: nv_tileas.alloc_tensor
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
func.func @decompose_if_blocked_opaque_branch(%cond: i1, %a: tensor<4xf32>) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %r = scf.if %cond -> (tensor<16xf32>) {
    %v = nv_tileas.insert_slice %a into %init[0][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  } else {
    %o = "test.op"(%init) : (tensor<16xf32>) -> tensor<16xf32>
    scf.yield %o : tensor<16xf32>
  }
  "test.op"(%r) : (tensor<16xf32>) -> ()
  func.return
}

// -----

// ===== Decompose If by Extract Slice =====

// A shared extraction (and the allocation chain it reads) is sunk into each branch.
// CHECK-LABEL: func.func @decompose_if_extract
// CHECK-NOT: nv_tileas.alloc_tensor
// CHECK: scf.if %{{.*}} -> (tensor<8xf32>) {
// CHECK-NEXT: %[[A:.*]] = nv_tileas.alloc_tensor : tensor<16xf32>
// CHECK-NEXT: %[[AV:.*]] = nv_tileas.insert_slice %{{.*}} into %[[A]][0][4][1]
// CHECK-NEXT: %[[E:.*]] = nv_tileas.extract_slice %[[AV]][0][8][1] : tensor<16xf32> to tensor<8xf32>
// CHECK-NEXT: %[[V:.*]] = nv_tileas.insert_slice %{{.*}} into %[[E]][4][4][1]
// CHECK-NEXT: scf.yield %[[V]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[B:.*]] = nv_tileas.alloc_tensor : tensor<16xf32>
// CHECK-NEXT: %[[BV:.*]] = nv_tileas.insert_slice %{{.*}} into %[[B]][0][4][1]
// CHECK-NEXT: %[[F:.*]] = nv_tileas.extract_slice %[[BV]][0][8][1] : tensor<16xf32> to tensor<8xf32>
// CHECK-NEXT: scf.yield %[[F]]
// CHECK-NEXT: }
func.func @decompose_if_extract(%cond: i1, %seed: tensor<4xf32>, %a: tensor<4xf32>) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %init_v = nv_tileas.insert_slice %seed into %init[0][4][1] : tensor<4xf32> into tensor<16xf32>
  %e = nv_tileas.extract_slice %init_v[0][8][1] : tensor<16xf32> to tensor<8xf32>
  %r = scf.if %cond -> (tensor<8xf32>) {
    %v = nv_tileas.insert_slice %a into %e[4][4][1] : tensor<4xf32> into tensor<8xf32>
    scf.yield %v : tensor<8xf32>
  } else {
    scf.yield %e : tensor<8xf32>
  }
  "test.op"(%r) : (tensor<8xf32>) -> ()
  func.return
}

// -----

// BLOCKED: the extraction is also used after the scf.if.
// CHECK-LABEL: func.func @decompose_if_extract_blocked_used_outside
// CHECK: nv_tileas.extract_slice
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
func.func @decompose_if_extract_blocked_used_outside(%cond: i1, %a: tensor<4xf32>) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %e = nv_tileas.extract_slice %init[0][8][1] : tensor<16xf32> to tensor<8xf32>
  %r = scf.if %cond -> (tensor<8xf32>) {
    %v = nv_tileas.insert_slice %a into %e[4][4][1] : tensor<4xf32> into tensor<8xf32>
    scf.yield %v : tensor<8xf32>
  } else {
    scf.yield %e : tensor<8xf32>
  }
  "test.op"(%r, %e) : (tensor<8xf32>, tensor<8xf32>) -> ()
  func.return
}

// -----

// BLOCKED: the extraction reads through a memory-consistency op (nv_tileas.scan).
// CHECK-LABEL: func.func @decompose_if_extract_blocked_consistency
// CHECK: nv_tileas.scan
// CHECK: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
func.func @decompose_if_extract_blocked_consistency(%cond: i1, %a: tensor<4xf32>) {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %s = nv_tileas.scan %init {axis = 0 : i32} : tensor<16xf32> -> tensor<16xf32> {
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %y : f32
    nv_tileas.yield %z : f32
  }
  %e = nv_tileas.extract_slice %s[0][8][1] : tensor<16xf32> to tensor<8xf32>
  %r = scf.if %cond -> (tensor<8xf32>) {
    %v = nv_tileas.insert_slice %a into %e[4][4][1] : tensor<4xf32> into tensor<8xf32>
    scf.yield %v : tensor<8xf32>
  } else {
    scf.yield %e : tensor<8xf32>
  }
  "test.op"(%r) : (tensor<8xf32>) -> ()
  func.return
}

// -----

// ===== Swap View and Extract Slice =====

// extract_slice(view(ptrs)) becomes view(extract_slice(ptrs)).
// CHECK-LABEL: func.func @swap_view_and_extract_slice
// CHECK-NEXT: %[[P:.*]] = nv_tileas.extract_slice %{{.*}}[%{{.*}}, 0][32, 64][1, 1] : tensor<128x64x!cuda_tile.ptr<f32>> to tensor<32x64x!cuda_tile.ptr<f32>>
// CHECK-NEXT: %[[V:.*]] = nv_tileas.view %[[P]] : tensor<32x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<32x64xf32, gmem>
// CHECK-NEXT: "test.op"(%[[V]])
func.func @swap_view_and_extract_slice(%ptrs: tensor<128x64x!cuda_tile.ptr<f32>>, %i: index) {
  %v = nv_tileas.view %ptrs : tensor<128x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<128x64xf32, gmem>
  %s = nv_tileas.extract_slice %v[%i, 0][32, 64][1, 1] : !nv_tileas.tiled_view<128x64xf32, gmem> to !nv_tileas.tiled_view<32x64xf32, gmem>
  "test.op"(%s) : (!nv_tileas.tiled_view<32x64xf32, gmem>) -> ()
  func.return
}

// -----

// BLOCKED: a view with sub-view indices (of a view) does not commute with the slice.
// CHECK-LABEL: func.func @swap_blocked_indices
// CHECK: nv_tileas.view %{{.*}}[%{{.*}}]
// CHECK-NEXT: nv_tileas.extract_slice
func.func @swap_blocked_indices(%w: !nv_tileas.tiled_view<256x64xf32, gmem>, %i: index) {
  %v = nv_tileas.view %w[%i] : !nv_tileas.tiled_view<256x64xf32, gmem> -> !nv_tileas.tiled_view<128x64xf32, gmem>
  %s = nv_tileas.extract_slice %v[0, 0][32, 64][1, 1] : !nv_tileas.tiled_view<128x64xf32, gmem> to !nv_tileas.tiled_view<32x64xf32, gmem>
  "test.op"(%s) : (!nv_tileas.tiled_view<32x64xf32, gmem>) -> ()
  func.return
}

// -----

// BLOCKED: a view with explicit strides rearranges its source; the slice would not land
// at the same offsets.
// CHECK-LABEL: func.func @swap_blocked_strided_view
// CHECK: nv_tileas.view
// CHECK-NEXT: nv_tileas.extract_slice %{{.*}} : !nv_tileas.tiled_view
func.func @swap_blocked_strided_view(%ptrs: tensor<128x64x!cuda_tile.ptr<f32>>) {
  %v = nv_tileas.view %ptrs : tensor<128x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<128x64xf32, gmem, strides = [1, 128]>
  %s = nv_tileas.extract_slice %v[0, 0][32, 64][1, 1] : !nv_tileas.tiled_view<128x64xf32, gmem, strides = [1, 128]> to !nv_tileas.tiled_view<32x64xf32, gmem>
  "test.op"(%s) : (!nv_tileas.tiled_view<32x64xf32, gmem>) -> ()
  func.return
}

// -----

// ===== Coalesce Perfectly Nested Loops =====

// Constant bounds: one loop of 4 x 8 iterations; divsi / remsi recover the ivs.
// CHECK-LABEL: func.func @coalesce
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[N:.*]] = arith.constant 32 : index
// CHECK: scf.for %[[IV:.*]] = %[[C0]] to %[[N]] step %[[C1]] {
// CHECK-NEXT: %[[J:.*]] = arith.remsi %[[IV]], %[[C8]] : index
// CHECK-NEXT: %[[I:.*]] = arith.divsi %[[IV]], %[[C8]] : index
// CHECK-NEXT: "test.op"(%[[I]], %[[J]]) : (index, index) -> ()
// CHECK-NEXT: }
// CHECK-NOT: scf.for
func.func @coalesce() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      "test.op"(%i, %j) : (index, index) -> ()
    }
  }
  func.return
}

// -----

// A dynamic outer loop (its trip count is computed) and a strided, offset inner loop
// (2, 5, 8, 11: four iterations).
// CHECK-LABEL: func.func @coalesce_dynamic_outer
// CHECK: %[[SPAN:.*]] = arith.subi %[[UB:.*]], %[[LB:.*]] : index
// CHECK: %[[BIAS:.*]] = arith.subi %[[ST:.*]], %{{.*}} : index
// CHECK: %[[PAD:.*]] = arith.addi %[[SPAN]], %[[BIAS]] : index
// CHECK: %[[T0:.*]] = arith.divsi %[[PAD]], %[[ST]] : index
// CHECK: %[[TOTAL:.*]] = arith.muli %[[T0]], %{{.*}} : index
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %[[TOTAL]] step %{{.*}} {
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[JN:.*]] = arith.remsi %[[IV]], %[[C4]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.divsi %[[IV]], %[[C4]] : index
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[JS:.*]] = arith.muli %[[JN]], %[[C3]] : index
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[JS]], %[[C2]] : index
// CHECK-NEXT: %[[IS:.*]] = arith.muli %[[IN]], %[[ST]] : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[IS]], %[[LB]] : index
// CHECK-NEXT: "test.op"(%[[I]], %[[J]])
func.func @coalesce_dynamic_outer(%lb: index, %ub: index, %st: index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c12 = arith.constant 12 : index
  scf.for %i = %lb to %ub step %st {
    scf.for %j = %c2 to %c12 step %c3 {
      "test.op"(%i, %j) : (index, index) -> ()
    }
  }
  func.return
}

// -----

// A band of three loops is flattened at once.
// CHECK-LABEL: func.func @coalesce_band
// CHECK: %[[N:.*]] = arith.constant 64 : index
// CHECK: scf.for %[[IV:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK-NEXT: %[[K:.*]] = arith.remsi %[[IV]], %[[C8:.*]] : index
// CHECK-NEXT: %[[R:.*]] = arith.divsi %[[IV]], %[[C8]] : index
// CHECK-NEXT: %[[J:.*]] = arith.remsi %[[R]], %[[C4:.*]] : index
// CHECK-NEXT: %[[I:.*]] = arith.divsi %[[R]], %[[C4]] : index
// CHECK-NEXT: "test.op"(%[[I]], %[[J]], %[[K]])
// CHECK-NOT: scf.for
func.func @coalesce_band() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      scf.for %k = %c0 to %c8 step %c1 {
        "test.op"(%i, %j, %k) : (index, index, index) -> ()
      }
    }
  }
  func.return
}

// -----

// Memory-ordering attributes of the body's ops are untouched (seed 000 "Ordering
// Invariants"): the acquire load keeps semantic, scope, in-bounds and padding.
// CHECK-LABEL: func.func @coalesce_keeps_memory_attributes
// CHECK: scf.for
// CHECK: nv_tileas.tiled_load %{{.*}}[%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>, in_bounds = array<i1: true, false>, padding_value = #nv_tileas<padding nan>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<64x64xf32>
// CHECK-NOT: scf.for
func.func @coalesce_keeps_memory_attributes(%v: !nv_tileas.tiled_view<64x64xf32, gmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %x = nv_tileas.tiled_load %v[%i, %j] {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>, in_bounds = array<i1: true, false>, padding_value = #nv_tileas<padding nan>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<64x64xf32>
      "test.op"(%x) : (tensor<64x64xf32>) -> ()
    }
  }
  func.return
}

// -----

// BLOCKED: the outer body holds another operation besides the inner loop.
// CHECK-LABEL: func.func @coalesce_blocked_outer_body
// CHECK: scf.for
// CHECK: "test.op"
// CHECK: scf.for
func.func @coalesce_blocked_outer_body() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    "test.op"(%i) : (index) -> ()
    scf.for %j = %c0 to %c4 step %c1 {
      "test.op"(%i, %j) : (index, index) -> ()
    }
  }
  func.return
}

// -----

// BLOCKED: the inner loop's bound is not a constant.
// CHECK-LABEL: func.func @coalesce_blocked_dynamic_inner
// CHECK: scf.for
// CHECK-NEXT: scf.for
func.func @coalesce_blocked_dynamic_inner(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      "test.op"(%i, %j) : (index, index) -> ()
    }
  }
  func.return
}

// -----

// BLOCKED: the outer loop carries a pipeline iterator (seed 002: the merged loop's
// iteration count would no longer match the iterator's count).
// CHECK-LABEL: func.func @coalesce_blocked_iterator
// CHECK: scf.for {{.*}} iter_args
// CHECK-NEXT: scf.for
func.func @coalesce_blocked_iterator(%it: !nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 4>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %it) -> (!nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 4>) {
    scf.for %j = %c0 to %c4 step %c1 {
      "test.op"(%x, %j) : (!nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 4>, index) -> ()
    }
    scf.yield %x : !nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 4>
  }
  func.return
}

// -----

// BLOCKED: the inner loop carries an iter-arg.
// CHECK-LABEL: func.func @coalesce_blocked_inner_iter_arg
// CHECK: scf.for
// CHECK-NEXT: scf.for {{.*}} iter_args
func.func @coalesce_blocked_inner_iter_arg(%a: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %r = scf.for %j = %c0 to %c4 step %c1 iter_args(%acc = %a) -> (f32) {
      %s = arith.addf %acc, %acc : f32
      scf.yield %s : f32
    }
  }
  func.return
}

// -----

// ===== Simplify Extract from Insert =====

// Seed 000 example: %y is %x.
// CHECK-LABEL: func.func @extract_from_insert
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?xf32>
// CHECK-NEXT: "test.op"(%[[X]]) : (tensor<?x?xf32>) -> ()
func.func @extract_from_insert(%x: tensor<?x?xf32>, %dst: tensor<64x64xf32>, %i: index, %j: index, %m: index, %n: index) {
  %t = nv_tileas.insert_slice %x into %dst[%i, %j][%m, %n][1, 1]
      : tensor<?x?xf32> into tensor<64x64xf32>
  %y = nv_tileas.extract_slice %t[%i, %j][%m, %n][1, 1]
      : tensor<64x64xf32> to tensor<?x?xf32>
  "test.op"(%y) : (tensor<?x?xf32>) -> ()
  func.return
}

// -----

// Fold-aware comparison: %c0 equals a static 0; a cast bridges the static extents.
// CHECK-LABEL: func.func @extract_from_insert_constants
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x8xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[X]] : tensor<8x8xf32> to tensor<?x8xf32>
// CHECK-NEXT: "test.op"(%[[C]])
func.func @extract_from_insert_constants(%x: tensor<8x8xf32>, %dst: tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %t = nv_tileas.insert_slice %x into %dst[0, %c0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %y = nv_tileas.extract_slice %t[%c0, 0][%c8, 8][1, 1] : tensor<64x64xf32> to tensor<?x8xf32>
  "test.op"(%y) : (tensor<?x8xf32>) -> ()
  func.return
}

// -----

// An insert into another storage in between does not block.
// CHECK-LABEL: func.func @extract_from_insert_other_storage
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x8xf32>
// CHECK: "test.op"(%[[X]], %{{.*}})
func.func @extract_from_insert_other_storage(%x: tensor<8x8xf32>, %dst: tensor<64x64xf32>, %other: tensor<64x64xf32>) {
  %t = nv_tileas.insert_slice %x into %dst[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %u = nv_tileas.insert_slice %x into %other[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %y = nv_tileas.extract_slice %t[0, 0][8, 8][1, 1] : tensor<64x64xf32> to tensor<8x8xf32>
  "test.op"(%y, %u) : (tensor<8x8xf32>, tensor<64x64xf32>) -> ()
  func.return
}

// -----

// BLOCKED: different offsets (the extract reads another region).
// CHECK-LABEL: func.func @extract_from_insert_blocked_offsets
// CHECK: nv_tileas.insert_slice
// CHECK: nv_tileas.extract_slice
func.func @extract_from_insert_blocked_offsets(%x: tensor<8x8xf32>, %dst: tensor<64x64xf32>) {
  %t = nv_tileas.insert_slice %x into %dst[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %y = nv_tileas.extract_slice %t[0, 8][8, 8][1, 1] : tensor<64x64xf32> to tensor<8x8xf32>
  "test.op"(%y) : (tensor<8x8xf32>) -> ()
  func.return
}

// -----

// BLOCKED: another insert into the same storage between the matched pair.
// CHECK-LABEL: func.func @extract_from_insert_blocked_intervening_insert
// CHECK: nv_tileas.insert_slice
// CHECK: nv_tileas.insert_slice
// CHECK: nv_tileas.extract_slice
func.func @extract_from_insert_blocked_intervening_insert(%x: tensor<8x8xf32>, %z: tensor<8x8xf32>, %dst: tensor<64x64xf32>) {
  %t = nv_tileas.insert_slice %x into %dst[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %t2 = nv_tileas.insert_slice %z into %t[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %y = nv_tileas.extract_slice %t[0, 0][8, 8][1, 1] : tensor<64x64xf32> to tensor<8x8xf32>
  "test.op"(%y, %t2) : (tensor<8x8xf32>, tensor<64x64xf32>) -> ()
  func.return
}

// -----

// BLOCKED: another extract of the same storage between the matched pair (nested in a
// region too).
// CHECK-LABEL: func.func @extract_from_insert_blocked_intervening_extract
// CHECK: nv_tileas.insert_slice
// CHECK: scf.if
// CHECK: nv_tileas.extract_slice
// CHECK: nv_tileas.extract_slice
func.func @extract_from_insert_blocked_intervening_extract(%x: tensor<8x8xf32>, %dst: tensor<64x64xf32>, %c: i1) {
  %t = nv_tileas.insert_slice %x into %dst[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  scf.if %c {
    %w = nv_tileas.extract_slice %t[8, 8][8, 8][1, 1] : tensor<64x64xf32> to tensor<8x8xf32>
    "test.op"(%w) : (tensor<8x8xf32>) -> ()
  }
  %y = nv_tileas.extract_slice %t[0, 0][8, 8][1, 1] : tensor<64x64xf32> to tensor<8x8xf32>
  "test.op"(%y) : (tensor<8x8xf32>) -> ()
  func.return
}

// -----

// ===== Swap View and Extract Slice: more sources =====

// A view of a register tile (a tensor of values) and a view of a dense view of the same
// shape and residency commute with slicing too.
// CHECK-LABEL: func.func @swap_value_and_view_sources
// CHECK: %[[X:.*]] = "test.op"() : () -> tensor<128x128xf32>
// CHECK-NEXT: %[[S:.*]] = nv_tileas.extract_slice %[[X]][%{{.*}}, 0][32, 32][1, 1] : tensor<128x128xf32> to tensor<32x32xf32>
// CHECK-NEXT: %[[V:.*]] = nv_tileas.view %[[S]] : tensor<32x32xf32> -> !nv_tileas.tiled_view<32x32xf32, smem>
// CHECK-NEXT: %[[T:.*]] = nv_tileas.extract_slice %{{.*}}[0, %{{.*}}][32, 32][1, 1] : !nv_tileas.tiled_view<128x128xf32, smem> to !nv_tileas.tiled_view<32x32xf32, smem>
// CHECK-NEXT: %[[W:.*]] = nv_tileas.view %[[T]] : !nv_tileas.tiled_view<32x32xf32, smem> -> !nv_tileas.tiled_view<32x32xf32, smem>
// CHECK-NEXT: "test.op"(%[[V]], %[[W]])
func.func @swap_value_and_view_sources(%b: !nv_tileas.tiled_view<128x128xf32, smem>, %i: index) {
  %x = "test.op"() : () -> tensor<128x128xf32>
  %v = nv_tileas.view %x : tensor<128x128xf32> -> !nv_tileas.tiled_view<128x128xf32, smem>
  %s = nv_tileas.extract_slice %v[%i, 0][32, 32][1, 1] : !nv_tileas.tiled_view<128x128xf32, smem> to !nv_tileas.tiled_view<32x32xf32, smem>
  %w = nv_tileas.view %b : !nv_tileas.tiled_view<128x128xf32, smem> -> !nv_tileas.tiled_view<128x128xf32, smem>
  %t = nv_tileas.extract_slice %w[0, %i][32, 32][1, 1] : !nv_tileas.tiled_view<128x128xf32, smem> to !nv_tileas.tiled_view<32x32xf32, smem>
  "test.op"(%s, %t) : (!nv_tileas.tiled_view<32x32xf32, smem>, !nv_tileas.tiled_view<32x32xf32, smem>) -> ()
  func.return
}

// -----

// BLOCKED: the view imposes a shared layout (a swizzled arrangement of its source), and
// a view of a view with another residency re-homes its source: neither commutes.
// CHECK-LABEL: func.func @swap_blocked_layout_and_residency
// CHECK: nv_tileas.view
// CHECK-NEXT: nv_tileas.extract_slice %{{.*}} : !nv_tileas.tiled_view<128x64xf16, smem, layout
// CHECK-NEXT: nv_tileas.view
// CHECK-NEXT: nv_tileas.extract_slice %{{.*}} : !nv_tileas.tiled_view<128x64xf16, rmem>
func.func @swap_blocked_layout_and_residency(%b: !nv_tileas.tiled_view<128x64xf16, smem>) {
  %x = "test.op"() : () -> tensor<128x64xf16>
  %v = nv_tileas.view %x : tensor<128x64xf16> -> !nv_tileas.tiled_view<128x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>>
  %s = nv_tileas.extract_slice %v[0, 0][32, 64][1, 1] : !nv_tileas.tiled_view<128x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>> to !nv_tileas.tiled_view<32x64xf16, smem>
  %w = nv_tileas.view %b : !nv_tileas.tiled_view<128x64xf16, smem> -> !nv_tileas.tiled_view<128x64xf16, rmem>
  %t = nv_tileas.extract_slice %w[0, 0][32, 64][1, 1] : !nv_tileas.tiled_view<128x64xf16, rmem> to !nv_tileas.tiled_view<32x64xf16, rmem>
  "test.op"(%s, %t) : (!nv_tileas.tiled_view<32x64xf16, smem>, !nv_tileas.tiled_view<32x64xf16, rmem>) -> ()
  func.return
}

// -----

// ===== Simplify Extract from Insert: more blocked cases =====

// BLOCKED: same offsets, different sizes (the extract reads part of what was inserted and
// part of the destination); same offsets and sizes, different strides.
// CHECK-LABEL: func.func @extract_from_insert_blocked_sizes_strides
// CHECK: nv_tileas.insert_slice
// CHECK-NEXT: nv_tileas.extract_slice %{{.*}}[0, 0][8, 16][1, 1]
// CHECK-NEXT: nv_tileas.insert_slice
// CHECK-NEXT: nv_tileas.extract_slice %{{.*}}[0, 0][8, 8][2, 1]
func.func @extract_from_insert_blocked_sizes_strides(%x: tensor<8x8xf32>, %dst: tensor<64x64xf32>) {
  %t = nv_tileas.insert_slice %x into %dst[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %y = nv_tileas.extract_slice %t[0, 0][8, 16][1, 1] : tensor<64x64xf32> to tensor<8x16xf32>
  %u = nv_tileas.insert_slice %x into %dst[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %z = nv_tileas.extract_slice %u[0, 0][8, 8][2, 1] : tensor<64x64xf32> to tensor<8x8xf32>
  "test.op"(%y, %z) : (tensor<8x16xf32>, tensor<8x8xf32>) -> ()
  func.return
}

// -----

// ===== Swap View and Extract Slice: value views (builtin tensors only) =====

// A value view that keeps the shape (a relabeling of the same values) commutes with the
// slice; a reshaping value view does not (BLOCKED: the slice's offsets would address other
// elements of the source).
// CHECK-LABEL: func.func @swap_value_view
// CHECK: %[[X:.*]] = "test.op"() : () -> tensor<128x128xf32>
// CHECK-NEXT: %[[S:.*]] = nv_tileas.extract_slice %[[X]][%{{.*}}, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
// CHECK-NEXT: %[[V:.*]] = nv_tileas.view %[[S]] : tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK-NEXT: %[[W:.*]] = nv_tileas.view %[[X]] : tensor<128x128xf32> -> tensor<16384xf32>
// CHECK-NEXT: %[[T:.*]] = nv_tileas.extract_slice %[[W]][0][64][1] : tensor<16384xf32> to tensor<64xf32>
// CHECK-NEXT: "test.op"(%[[V]], %[[T]])
func.func @swap_value_view(%i: index) {
  %x = "test.op"() : () -> tensor<128x128xf32>
  %v = nv_tileas.view %x : tensor<128x128xf32> -> tensor<128x128xf32>
  %s = nv_tileas.extract_slice %v[%i, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
  %w = nv_tileas.view %x : tensor<128x128xf32> -> tensor<16384xf32>
  %t = nv_tileas.extract_slice %w[0][64][1] : tensor<16384xf32> to tensor<64xf32>
  "test.op"(%s, %t) : (tensor<64x64xf32>, tensor<64xf32>) -> ()
  func.return
}
