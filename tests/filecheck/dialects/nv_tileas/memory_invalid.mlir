// Tiled memory verifier rules (seed 003 tiled_load/tiled_store/tiled_atomic_rmw, seed
// 001 invariants 11-12): one broken case per rule (tagged RULE; valid cases in memory.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: operand-segments
func.func @coords(%v: !nv_tileas.tiled_view<64x64xf32, gmem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op expected 2 coordinates (the view's rank), got 1}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<64x64xf32>
  func.return
}

// -----

// RULE: index-coords
func.func @index_coords(%v: !nv_tileas.tiled_view<128xf32, gmem>, %i: i32) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op coordinates must be of index type, got i32}}
  %x = "nv_tileas.tiled_load"(%v, %i) <{atom = #nv_tileas<atom ldg_128b>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (!nv_tileas.tiled_view<128xf32, gmem>, i32) -> tensor<128xf32>
  func.return
}

// -----

// RULE: memop-atom-kind
func.func @atom_kind(%v: !nv_tileas.tiled_view<128xf32, gmem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op atom 'stg_128b' (copy) is not a load atom}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom stg_128b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// -----

// Both views print as tiled_view<128xf32, ...>; their residency tags disagree with the atom.
// RULE: memory-space-pair
func.func @memory_space_pair(%v: !nv_tileas.tiled_view<128xf32, smem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op the source view resides in smem but atom 'ldg_128b' expects gmem as its source}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<128xf32, smem> -> tensor<128xf32>
  func.return
}

// -----

// RULE: atom-box
func.func @atom_box(%s: !nv_tileas.tiled_view<32x16xf16, smem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op tile shape [32, 16] does not match the box [16, 16] of atom 'ldmatrix_x4'}}
  %x = nv_tileas.tiled_load %s[%i, %i] {atom = #nv_tileas<atom ldmatrix_x4>} : !nv_tileas.tiled_view<32x16xf16, smem> -> tensor<32x16xf16>
  func.return
}

// -----

// RULE: pow2-tile
func.func @pow2(%v: !nv_tileas.tiled_view<96xf32, gmem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op tile dimensions must be powers of two, got [96]}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<96xf32, gmem> -> tensor<96xf32>
  func.return
}

// -----

// RULE: element-type-match
func.func @element_type(%v: !nv_tileas.tiled_view<128xf32, gmem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op tile element type f16 must equal the view's element type f32}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf16>
  func.return
}

// -----

// RULE: memop-semantics
func.func @semantics(%v: !nv_tileas.tiled_view<128xf32, gmem>, %i: index) {
  // expected-error@+1 {{tiled_load rejects release semantic}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope gpu>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// -----

// RULE: memop-semantics (seed 003's own wording, verify_tiled_load)
func.func @acquire_release_load(%v: !nv_tileas.tiled_view<128xf32, gmem>, %i: index) {
  // expected-error@+1 {{tiled_load rejects acquire_release semantic}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope gpu>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// -----

// RULE: memop-semantics
func.func @store_semantics(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>, %i: index) {
  // expected-error@+1 {{tiled_store rejects acquire_release semantic}}
  nv_tileas.tiled_store %x, %v[%i] {atom = #nv_tileas<atom stg_32b>, mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  func.return
}

// -----

// RULE: scope-iff-ordered
func.func @scope_missing(%v: !nv_tileas.tiled_view<128xf32, gmem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op mem_scope is required with acquire semantic}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, mem_semantic = #nv_tileas<mem_semantic acquire>} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// -----

// RULE: scope-iff-ordered
func.func @scope_with_weak(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_store' op mem_scope must not be set with weak semantic}}
  nv_tileas.tiled_store %x, %v[%i] {atom = #nv_tileas<atom stg_32b>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem>
  func.return
}

// -----

// RULE: padding-in-bounds
func.func @padding_in_bounds(%v: !nv_tileas.tiled_view<128xf32, gmem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op padding_value is only allowed with in_bounds = false}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, in_bounds = array<i1: true>, padding_value = 0.0 : f32} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// -----

// RULE: padding-type
func.func @special_padding(%v: !nv_tileas.tiled_view<128xi32, gmem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op special padding value nan is only allowed for floating-point elements, not i32}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, padding_value = #nv_tileas<padding nan>} : !nv_tileas.tiled_view<128xi32, gmem> -> tensor<128xi32>
  func.return
}

// -----

// RULE: padding-type
func.func @padding_type(%v: !nv_tileas.tiled_view<128xf32, gmem>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_load' op padding_value of type f16 does not match the element type f32}}
  %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, padding_value = 0.0 : f16} : !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// -----

// RULE: token-result
func.func @token_result(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>, %i: index, %t: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileas.tiled_store' op a token result is produced exactly when a token is given}}
  "nv_tileas.tiled_store"(%v, %x, %i, %t) <{atom = #nv_tileas<atom stg_32b>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>}> : (!nv_tileas.tiled_view<128xf32, gmem>, tensor<128xf32>, index, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// RULE: atomic-8bit
func.func @atomic_i8(%v: !nv_tileas.tiled_view<128xi8, gmem>, %x: tensor<128xi8>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op 8-bit atomics are not supported (i8)}}
  %old = nv_tileas.tiled_atomic_rmw add %x, %v[%i] {atom = #nv_tileas<atom atom_global>} : tensor<128xi8>, !nv_tileas.tiled_view<128xi8, gmem> -> tensor<128xi8>
  func.return
}

// -----

// RULE: atomic-16bit-int
func.func @atomic_i16(%v: !nv_tileas.tiled_view<128xi16, gmem>, %x: tensor<128xi16>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op 16-bit integer atomics are not supported (i16)}}
  %old = nv_tileas.tiled_atomic_rmw add %x, %v[%i] {atom = #nv_tileas<atom atom_global>} : tensor<128xi16>, !nv_tileas.tiled_view<128xi16, gmem> -> tensor<128xi16>
  func.return
}

// -----

// RULE: atomic-16bit-float
func.func @atomic_f16_xchg(%v: !nv_tileas.tiled_view<128xbf16, gmem>, %x: tensor<128xbf16>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op 16-bit floating-point atomics allow only add, max and min, not xchg}}
  %old = nv_tileas.tiled_atomic_rmw xchg %x, %v[%i] {atom = #nv_tileas<atom atom_global>} : tensor<128xbf16>, !nv_tileas.tiled_view<128xbf16, gmem> -> tensor<128xbf16>
  func.return
}

// -----

// RULE: atomic-mode-type
func.func @atomic_addf_int(%v: !nv_tileas.tiled_view<128xi32, gmem>, %x: tensor<128xi32>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op addf needs a floating-point element type, not i32}}
  %old = nv_tileas.tiled_atomic_rmw addf %x, %v[%i] {atom = #nv_tileas<atom atom_global>} : tensor<128xi32>, !nv_tileas.tiled_view<128xi32, gmem> -> tensor<128xi32>
  func.return
}

// -----

// RULE: atomic-mode-type
func.func @atomic_xor_float(%v: !nv_tileas.tiled_view<128xf32, gmem>, %x: tensor<128xf32>, %i: index) {
  // expected-error@+1 {{'nv_tileas.tiled_atomic_rmw' op xor needs an integer element type, not f32}}
  %old = nv_tileas.tiled_atomic_rmw xor %x, %v[%i] {atom = #nv_tileas<atom atom_global>} : tensor<128xf32>, !nv_tileas.tiled_view<128xf32, gmem> -> tensor<128xf32>
  func.return
}

// -----

// An acquire load inside a generate region, which pure rewrites may move or duplicate.
// RULE: ordered-placement
func.func @ordered_placement(%v: !nv_tileas.tiled_view<1xf32, gmem>) {
  %t = nv_tileas.generate : tensor<4xf32> {
  ^bb0(%i: index):
    // expected-error@+1 {{'nv_tileas.tiled_load' op with acquire semantic must not sit inside 'nv_tileas.generate', whose region pure rewrites may move, duplicate or erase}}
    %x = nv_tileas.tiled_load %v[%i] {atom = #nv_tileas<atom ldg_32b>, mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>} : !nv_tileas.tiled_view<1xf32, gmem> -> f32
    nv_tileas.yield %x : f32
  }
  func.return
}

// -----

// RULE: gather-offsets
func.func @gather_offsets(%v: !nv_tileas.tiled_view<1024xf32, gmem>, %off: tensor<64xf32>) {
  // expected-error@+1 {{'nv_tileas.gather_load' op offsets tensor<64xf32> must be an integer tile shaped like the data tensor<64xf32>}}
  %x = nv_tileas.gather_load %v[%off] {atom = #nv_tileas<atom ldg_32b>} : !nv_tileas.tiled_view<1024xf32, gmem>, tensor<64xf32> -> tensor<64xf32>
  func.return
}

// -----

// RULE: padding-in-bounds
func.func @pointer_padding(%p: tensor<128x!cuda_tile.ptr<f32>>) {
  // expected-error@+1 {{'nv_tileas.load' op padding_value is only allowed with a mask}}
  %x = nv_tileas.load %p {padding_value = 0.0 : f32} : tensor<128x!cuda_tile.ptr<f32>> -> tensor<128xf32>
  func.return
}

// -----

// RULE: memory-space-pair
func.func @copy_pair(%r: !nv_tileas.tiled_view<128xf32, rmem>, %g: !nv_tileas.tiled_view<128xf32, gmem>) {
  // expected-error@+1 {{'nv_tileas.copy' op the destination view resides in gmem but atom 'sts_128b' expects smem as its destination}}
  nv_tileas.copy %r, %g {atom = #nv_tileas<atom sts_128b>} : !nv_tileas.tiled_view<128xf32, rmem>, !nv_tileas.tiled_view<128xf32, gmem>
  func.return
}

// -----

// tileir's pointer atomics share the seed atomic's element rules.
// RULE: atomic-mode-type
func.func @pointer_rmw_addf_int(%p: tensor<16x!cuda_tile.ptr<i32>>, %x: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileas.atomic_rmw' op addf needs a floating-point element type, not i32}}
  %r = nv_tileas.atomic_rmw addf %x, %p {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
  func.return
}

// -----

// RULE: atomic-mode-type
func.func @pointer_rmw_cmpxchg(%p: tensor<16x!cuda_tile.ptr<i32>>, %x: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileas.atomic_rmw' op cmpxchg is nv_tileas.atomic_cas, not an atomic_rmw mode}}
  %r = nv_tileas.atomic_rmw cmpxchg %x, %p {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
  func.return
}

// -----

// RULE: scope-iff-ordered
func.func @pointer_rmw_no_scope(%p: tensor<16x!cuda_tile.ptr<i32>>, %x: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileas.atomic_rmw' op mem_scope is required with acquire_release semantic}}
  %r = nv_tileas.atomic_rmw add %x, %p {mem_semantic = #nv_tileas<mem_semantic acquire_release>} : tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
  func.return
}

// -----

// RULE: element-type-match
func.func @pointer_cas_types(%p: tensor<16x!cuda_tile.ptr<i32>>, %x: tensor<16xi32>, %c: tensor<16xi64>) {
  // expected-error@+1 {{'nv_tileas.atomic_cas' op tensor<16xi64> must equal the value type tensor<16xi32>}}
  %r = nv_tileas.atomic_cas %c, %x, %p {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<16xi64>, tensor<16xi32>, tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
  func.return
}

// -----

// RULE: atomic-16bit-float
func.func @pointer_cas_width(%p: tensor<16x!cuda_tile.ptr<f16>>, %x: tensor<16xf16>) {
  // expected-error@+1 {{'nv_tileas.atomic_cas' op 16-bit floating-point atomics allow only add, max and min, not cmpxchg}}
  %r = nv_tileas.atomic_cas %x, %x, %p {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<16xf16>, tensor<16xf16>, tensor<16x!cuda_tile.ptr<f16>> -> tensor<16xf16>
  func.return
}
