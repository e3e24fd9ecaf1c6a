// Seed 000 "Ordering Invariants": rewrites must not alter memory semantic, memory scope,
// in-bounds, padding or RMW attributes.  Each pattern fires next to (or around) tiled
// memory ops carrying all of them; every attribute survives, verbatim, and every memory
// op is still there exactly once per original (none moved out of its block, duplicated
// or erased).
// RUN: tileir-opt %s --split-input-file -p tileas-canonicalize | filecheck %s

// Decompose loop iter args: the loop body's load, store and atomic keep their attributes.
// CHECK-LABEL: func.func @decompose_loop_keeps_attributes
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.alloc_tensor : tensor<64x64xf32>
// CHECK-NEXT: nv_tileas.tiled_load %{{.*}}[%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>, in_bounds = array<i1: true, false>, padding_value = #nv_tileas<padding nan>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<8x8xf32>
// CHECK-NEXT: nv_tileas.insert_slice
// CHECK-NEXT: nv_tileas.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom stg_128b>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope sys>, in_bounds = array<i1: false, false>, padding_value = 0.000000e+00 : f32} : tensor<8x8xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>
// CHECK-NEXT: nv_tileas.tiled_atomic_rmw umax %{{.*}}, %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom atom_shared>, mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope cluster>} : tensor<128xi32>, !nv_tileas.tiled_view<128xi32, smem> -> tensor<128xi32>
// CHECK-NEXT: }
// CHECK-NOT: nv_tileas.tiled_load
func.func @decompose_loop_keeps_attributes(%v: !nv_tileas.tiled_view<64x64xf32, gmem>, %a: !nv_tileas.tiled_view<128xi32, smem>,
    %ai: tensor<128xi32>, %lb: index, %ub: index, %st: index) {
  %init = nv_tileas.alloc_tensor : tensor<64x64xf32>
  %out = scf.for %k = %lb to %ub step %st iter_args(%buf = %init) -> (tensor<64x64xf32>) {
    %x = nv_tileas.tiled_load %v[%k, %k] {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>, in_bounds = array<i1: true, false>, padding_value = #nv_tileas<padding nan>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<8x8xf32>
    %next = nv_tileas.insert_slice %x into %buf[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
    nv_tileas.tiled_store %x, %v[%k, %k] {atom = #nv_tileas<atom stg_128b>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope sys>, in_bounds = array<i1: false, false>, padding_value = 0.0 : f32} : tensor<8x8xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>
    %old = nv_tileas.tiled_atomic_rmw umax %ai, %a[%k] {atom = #nv_tileas<atom atom_shared>, mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope cluster>} : tensor<128xi32>, !nv_tileas.tiled_view<128xi32, smem> -> tensor<128xi32>
    scf.yield %next : tensor<64x64xf32>
  }
  func.return
}

// -----

// Decompose if by insert slice: the allocation chain is duplicated into each branch; the
// memory ops already in each branch stay there, once, with their attributes.
// CHECK-LABEL: func.func @decompose_if_keeps_attributes
// CHECK: scf.if
// CHECK-NEXT: nv_tileas.alloc_tensor
// CHECK-NEXT: nv_tileas.tiled_load %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope tl_blk>, in_bounds = array<i1: false>, padding_value = #nv_tileas<padding neg_inf>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<4xf32>
// CHECK-NEXT: nv_tileas.insert_slice
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: nv_tileas.alloc_tensor
// CHECK-NEXT: nv_tileas.tiled_atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom atom_global>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<4xf32>, !nv_tileas.tiled_view<128xf32, gmem> -> tensor<4xf32>
// CHECK-NEXT: nv_tileas.insert_slice
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
func.func @decompose_if_keeps_attributes(%cond: i1, %v: !nv_tileas.tiled_view<128xf32, gmem>, %b: tensor<4xf32>, %i: index) -> tensor<16xf32> {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %r = scf.if %cond -> (tensor<16xf32>) {
    %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope tl_blk>, in_bounds = array<i1: false>, padding_value = #nv_tileas<padding neg_inf>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<4xf32>
    %w = nv_tileas.insert_slice %x into %init[0][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %w : tensor<16xf32>
  } else {
    %o = nv_tileas.tiled_atomic_rmw addf %b, %v[%i] {atom = #nv_tileas<atom atom_global>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<4xf32>, !nv_tileas.tiled_view<128xf32, gmem> -> tensor<4xf32>
    %w = nv_tileas.insert_slice %o into %init[4][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %w : tensor<16xf32>
  }
  func.return %r : tensor<16xf32>
}

// -----

// Simplify extract slice / extract from insert feeding a store: the store is untouched.
// CHECK-LABEL: func.func @slice_folds_keep_store_attributes
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x8xf32>
// CHECK-NOT: nv_tileas.extract_slice
// CHECK: nv_tileas.tiled_store %[[X]], %{{.*}}[%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom stg_128b>, mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope cluster>, in_bounds = array<i1: true, true>} : tensor<8x8xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>
func.func @slice_folds_keep_store_attributes(%x: tensor<8x8xf32>, %dst: tensor<64x64xf32>, %v: !nv_tileas.tiled_view<64x64xf32, gmem>, %i: index) {
  %c0 = arith.constant 0 : index
  %t = nv_tileas.insert_slice %x into %dst[0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<64x64xf32>
  %y = nv_tileas.extract_slice %t[%c0, %c0][8, 8][1, 1] : tensor<64x64xf32> to tensor<8x8xf32>
  nv_tileas.tiled_store %y, %v[%i, %i] {atom = #nv_tileas<atom stg_128b>, mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope cluster>, in_bounds = array<i1: true, true>} : tensor<8x8xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>
  func.return
}

// -----

// Coalesce: an atomic with its RMW mode, semantic and scope, once per merged iteration.
// CHECK-LABEL: func.func @coalesce_keeps_rmw
// CHECK: scf.for
// CHECK: nv_tileas.tiled_atomic_rmw xchg %{{.*}}, %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom atom_global>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope sys>} : tensor<128xi64>, !nv_tileas.tiled_view<128xi64, gmem> -> tensor<128xi64>
// CHECK-NOT: scf.for
// CHECK-NOT: nv_tileas.tiled_atomic_rmw
func.func @coalesce_keeps_rmw(%v: !nv_tileas.tiled_view<128xi64, gmem>, %x: tensor<128xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %o = nv_tileas.tiled_atomic_rmw xchg %x, %v[%j] {atom = #nv_tileas<atom atom_global>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope sys>} : tensor<128xi64>, !nv_tileas.tiled_view<128xi64, gmem> -> tensor<128xi64>
    }
  }
  func.return
}
