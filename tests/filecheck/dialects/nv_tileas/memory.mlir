// The tiled memory family (seed 003 "Tiled Memop Operand/Result Tables"): every op
// round-trips, and each memory rule has its valid case here (tagged RULE; the invalid
// cases are in memory_invalid.mlir).
// RUN: tileir-opt %s --split-input-file | tileir-opt --split-input-file | filecheck %s
// RUN: tileir-opt %s --split-input-file --print-op-generic | tileir-opt --split-input-file | filecheck %s

// RULE: operand-segments
// RULE: index-coords
// RULE: memop-atom-kind
// RULE: memory-space-pair
// RULE: pow2-tile
// RULE: element-type-match
// RULE: memop-semantics
// RULE: scope-iff-ordered
// RULE: padding-in-bounds
// RULE: padding-type
// RULE: token-result
// RULE: ordered-placement
// CHECK-LABEL: func.func @tiled_load_store
// CHECK: %{{.*}}, %{{.*}} = nv_tileas.tiled_load %{{.*}}[%{{.*}}, %{{.*}}] offsets [%{{.*}}, %{{.*}}] mask %{{.*}} token %{{.*}} {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>, in_bounds = array<i1: true, false>, padding_value = #nv_tileas<padding nan>} : !nv_tileas.tiled_view<64x64xf32, gmem>, tensor<64x64xi1> -> tensor<64x64xf32>
// CHECK: nv_tileas.tiled_load %{{.*}}[%{{.*}}, %{{.*}}] token %{{.*}} {atom = #nv_tileas<atom ldg_32b>, padding_value = 0 : i32} : !nv_tileas.tiled_view<64x64xi32, gmem>, !nv_tileas.async.token -> tensor<64x64xi32>
// CHECK: nv_tileas.tiled_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] token %{{.*}} {atom = #nv_tileas<atom stg_128b>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope sys>} : tensor<64x64xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>
func.func @tiled_load_store(%v: !nv_tileas.tiled_view<64x64xf32, gmem>, %vi: !nv_tileas.tiled_view<64x64xi32, gmem>,
    %i: index, %j: index, %m: tensor<64x64xi1>, %t: !nv_tileaa.mem_token, %at: !nv_tileas.async.token) {
  %x, %t1 = nv_tileas.tiled_load %v[%i, %j] offsets [%j, %i] mask %m token %t {atom = #nv_tileas<atom ldg_128b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>, in_bounds = array<i1: true, false>, padding_value = #nv_tileas<padding nan>} : !nv_tileas.tiled_view<64x64xf32, gmem>, tensor<64x64xi1> -> tensor<64x64xf32>
  %y, %at1 = nv_tileas.tiled_load %vi[%i, %j] token %at {atom = #nv_tileas<atom ldg_32b>, padding_value = 0 : i32} : !nv_tileas.tiled_view<64x64xi32, gmem>, !nv_tileas.async.token -> tensor<64x64xi32>
  %t2 = nv_tileas.tiled_store %x, %v[%i, %j] token %t1 {atom = #nv_tileas<atom stg_128b>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope sys>} : tensor<64x64xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>
  func.return
}

// -----

// An ldmatrix atom moves a fixed 16x16 box of 16-bit elements out of shared memory;
// views of nv_tileaa (no residency yet) are accepted; scf regions may hold ordered ops.
// RULE: atom-box
// CHECK-LABEL: func.func @atom_box
// CHECK: nv_tileas.tiled_load %{{.*}}[%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom ldmatrix_x4>} : !nv_tileas.tiled_view<16x16xf16, smem> -> tensor<16x16xf16>
// CHECK: nv_tileas.tiled_load %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom lds_128b>, mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope tl_blk>} : !nv_tileaa.tiled_view<128xf32> -> tensor<128xf32>
func.func @atom_box(%s: !nv_tileas.tiled_view<16x16xf16, smem>, %aa: !nv_tileaa.tiled_view<128xf32>, %i: index, %cond: i1) {
  %x = nv_tileas.tiled_load %s[%i, %i] {atom = #nv_tileas<atom ldmatrix_x4>} : !nv_tileas.tiled_view<16x16xf16, smem> -> tensor<16x16xf16>
  scf.if %cond {
    %y = nv_tileas.tiled_load %aa[%i] {atom = #nv_tileas<atom lds_128b>, mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope tl_blk>} : !nv_tileaa.tiled_view<128xf32> -> tensor<128xf32>
    scf.yield
  }
  func.return
}

// -----

// RULE: atomic-8bit
// RULE: atomic-16bit-int
// RULE: atomic-16bit-float
// RULE: atomic-mode-type
// CHECK-LABEL: func.func @atomics
// CHECK: %{{.*}} = nv_tileas.tiled_atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom atom_global>} : tensor<128xf16>, !nv_tileas.tiled_view<128xf16, gmem> -> tensor<128xf16>
// CHECK: nv_tileas.tiled_atomic_rmw max %{{.*}}, %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom atom_global>} : tensor<128xf16>
// CHECK: %{{.*}}, %{{.*}} = nv_tileas.tiled_atomic_rmw umax %{{.*}}, %{{.*}}[%{{.*}}] token %{{.*}} {atom = #nv_tileas<atom atom_shared>, mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope cluster>} : tensor<128xi32>, !nv_tileas.tiled_view<128xi32, smem> -> tensor<128xi32>
// CHECK: nv_tileas.tiled_atomic_rmw xchg {{.*}} : tensor<128xi64>
func.func @atomics(%h: !nv_tileas.tiled_view<128xf16, gmem>, %s: !nv_tileas.tiled_view<128xi32, smem>, %l: !nv_tileas.tiled_view<128xi64, gmem>,
    %hv: tensor<128xf16>, %sv: tensor<128xi32>, %lv: tensor<128xi64>, %i: index, %t: !nv_tileaa.mem_token) {
  %a = nv_tileas.tiled_atomic_rmw addf %hv, %h[%i] {atom = #nv_tileas<atom atom_global>} : tensor<128xf16>, !nv_tileas.tiled_view<128xf16, gmem> -> tensor<128xf16>
  %b = nv_tileas.tiled_atomic_rmw max %hv, %h[%i] {atom = #nv_tileas<atom atom_global>} : tensor<128xf16>, !nv_tileas.tiled_view<128xf16, gmem> -> tensor<128xf16>
  %c, %t1 = nv_tileas.tiled_atomic_rmw umax %sv, %s[%i] token %t {atom = #nv_tileas<atom atom_shared>, mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope cluster>} : tensor<128xi32>, !nv_tileas.tiled_view<128xi32, smem> -> tensor<128xi32>
  %d = nv_tileas.tiled_atomic_rmw xchg %lv, %l[%i] {atom = #nv_tileas<atom atom_global>} : tensor<128xi64>, !nv_tileas.tiled_view<128xi64, gmem> -> tensor<128xi64>
  func.return
}

// -----

// CHECK-LABEL: func.func @async_tiled
// CHECK: nv_tileas.async.tiled_load %{{.*}}[%{{.*}}] {atom = #nv_tileas<atom cp_async_128b>} : !nv_tileas.tiled_view<128xf32, gmem> -> !async.value<tensor<128xf32>>
// CHECK: nv_tileas.async.copy %{{.*}}, %{{.*}} {atom = #nv_tileas<atom cp_async_128b>} : !nv_tileas.tiled_view<128xf32, gmem>, !nv_tileas.tiled_view<128xf32, smem> -> !nv_tileas.async.token
// CHECK: nv_tileas.copy %{{.*}}, %{{.*}} token %{{.*}} {atom = #nv_tileas<atom sts_128b>} : !nv_tileas.tiled_view<128xf32, rmem>, !nv_tileas.tiled_view<128xf32, smem>
func.func @async_tiled(%g: !nv_tileas.tiled_view<128xf32, gmem>, %s: !nv_tileas.tiled_view<128xf32, smem>, %r: !nv_tileas.tiled_view<128xf32, rmem>,
    %i: index, %t: !nv_tileaa.mem_token) {
  %f = nv_tileas.async.tiled_load %g[%i] {atom = #nv_tileas<atom cp_async_128b>} : !nv_tileas.tiled_view<128xf32, gmem> -> !async.value<tensor<128xf32>>
  %done = nv_tileas.async.copy %g, %s {atom = #nv_tileas<atom cp_async_128b>} : !nv_tileas.tiled_view<128xf32, gmem>, !nv_tileas.tiled_view<128xf32, smem> -> !nv_tileas.async.token
  %t1 = nv_tileas.copy %r, %s token %t {atom = #nv_tileas<atom sts_128b>} : !nv_tileas.tiled_view<128xf32, rmem>, !nv_tileas.tiled_view<128xf32, smem>
  func.return
}

// -----

// CHECK-LABEL: func.func @pointers
// CHECK: nv_tileas.load %{{.*}} mask %{{.*}} {padding_value = 0.000000e+00 : f32} : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
// CHECK: nv_tileas.store %{{.*}}, %{{.*}} token %{{.*}} {mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>>
// CHECK: nv_tileas.async.load %{{.*}} : tensor<128x!cuda_tile.ptr<f32>> -> !async.value<tensor<128xf32>>
// CHECK: nv_tileas.async.store %{{.*}}, %{{.*}} mask %{{.*}} : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi1> -> !nv_tileas.async.token
func.func @pointers(%p: tensor<128x!cuda_tile.ptr<f32>>, %m: tensor<128xi1>, %t: !nv_tileaa.mem_token) {
  %x = nv_tileas.load %p mask %m {padding_value = 0.0 : f32} : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
  %t1 = nv_tileas.store %x, %p token %t {mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>>
  %f = nv_tileas.async.load %p : tensor<128x!cuda_tile.ptr<f32>> -> !async.value<tensor<128xf32>>
  %done = nv_tileas.async.store %x, %p mask %m : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi1> -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: gather-offsets
// CHECK-LABEL: func.func @gather_scatter
// CHECK: nv_tileas.gather_load %{{.*}}[%{{.*}}] mask %{{.*}} {atom = #nv_tileas<atom ldg_32b>, padding_value = 0.000000e+00 : f32} : !nv_tileas.tiled_view<1024xf32, gmem>, tensor<64xi32>, tensor<64xi1> -> tensor<64xf32>
// CHECK: nv_tileas.scatter_store %{{.*}}, %{{.*}}[%{{.*}}] token %{{.*}} {atom = #nv_tileas<atom stg_32b>} : tensor<64xf32>, !nv_tileas.tiled_view<1024xf32, gmem>, tensor<64xi32>
func.func @gather_scatter(%v: !nv_tileas.tiled_view<1024xf32, gmem>, %off: tensor<64xi32>, %m: tensor<64xi1>, %t: !nv_tileaa.mem_token) {
  %x = nv_tileas.gather_load %v[%off] mask %m {atom = #nv_tileas<atom ldg_32b>, padding_value = 0.0 : f32} : !nv_tileas.tiled_view<1024xf32, gmem>, tensor<64xi32>, tensor<64xi1> -> tensor<64xf32>
  %t1 = nv_tileas.scatter_store %x, %v[%off] token %t {atom = #nv_tileas<atom stg_32b>} : tensor<64xf32>, !nv_tileas.tiled_view<1024xf32, gmem>, tensor<64xi32>
  func.return
}

// -----

// tileir's pointer atomics (not in the seed): a masked tile of pointers, the token
// optional (tileas-insert-barriers drops it), compare before value for atomic_cas.
// CHECK-LABEL: func.func @pointer_atomics
// CHECK: nv_tileas.atomic_rmw addf %{{.*}}, %{{.*}} mask %{{.*}} {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
// CHECK: nv_tileas.atomic_rmw add %{{.*}}, %{{.*}} token %{{.*}} {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
// CHECK: nv_tileas.atomic_cas %{{.*}}, %{{.*}}, %{{.*}} {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope tl_blk>} : tensor<16xi32>, tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
// CHECK: nv_tileas.atomic_rmw xchg %{{.*}}, %{{.*}} mask %{{.*}} {mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope sys>} : i32, !cuda_tile.ptr<i32>, i1 -> i32
func.func @pointer_atomics(%p: tensor<128x!cuda_tile.ptr<f32>>, %v: tensor<128xf32>, %m: tensor<128xi1>, %t: !nv_tileaa.mem_token, %q: tensor<16x!cuda_tile.ptr<i32>>, %c: tensor<16xi32>, %s: !cuda_tile.ptr<i32>, %x: i32, %b: i1) {
  %a = nv_tileas.atomic_rmw addf %v, %p mask %m {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xf32>, tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
  %r, %t1 = nv_tileas.atomic_rmw add %c, %q token %t {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
  %d = nv_tileas.atomic_cas %c, %r, %q {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope tl_blk>} : tensor<16xi32>, tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
  %e = nv_tileas.atomic_rmw xchg %x, %s mask %b {mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope sys>} : i32, !cuda_tile.ptr<i32>, i1 -> i32
  func.return
}
