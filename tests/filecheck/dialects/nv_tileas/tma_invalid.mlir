// TMA verifier rules (seed 001 invariants 7-11, seed 003 TMA tables): one broken case
// per rule (valid cases in tma.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: tma-atom-kind
func.func @load_with_store_atom(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<64x64xf16, smem>, %x: index, %bar: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op needs a TMA load atom in tile mode, got 'tma_store_2d' (tma_store, tile mode)}}
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x, %x], %bar {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: tma-atom-kind
func.func @store_descriptor(%g: !nv_tileas.tiled_view<?x?xf16, gmem>, %s: !nv_tileas.tiled_view<64x64xf16, smem>, %x: index, %bar: !nv_tileaa.mem_token) {
  %d = nv_tileas.make_tiled_tma_desc %g box [%x, %x] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tiled_view<?x?xf16, gmem> -> !nv_tileas.tma_desc
  // expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op uses a descriptor built for TMA store ('tma_store_2d'), not TMA load}}
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x, %x], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: tma-atom-kind
func.func @descriptor_atom(%g: !nv_tileas.tiled_view<?x?xf16, gmem>, %x: index) {
  // expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op needs a TMA load or store atom, got 'ldg_128b' (copy)}}
  %d = nv_tileas.make_tiled_tma_desc %g box [%x, %x] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<?x?xf16, gmem> -> !nv_tileas.tma_desc
  func.return
}

// -----

// RULE: tma-box-rank
func.func @box_rank(%g: !nv_tileas.tiled_view<?x?xf16, gmem>, %x: index) {
  // expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op has 1 box sizes but atom 'tma_load_2d' has box rank 2}}
  %d = nv_tileas.make_tiled_tma_desc %g box [%x] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tiled_view<?x?xf16, gmem> -> !nv_tileas.tma_desc
  func.return
}

// -----

// RULE: tma-box-rank
func.func @coords_rank(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<64x64xf16, smem>, %x: index, %bar: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op has 1 coordinates but atom 'tma_load_2d' has box rank 2}}
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem>, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: tma-element-stride
func.func @element_stride(%g: !nv_tileas.tiled_view<?x?xf16, gmem, strides = [1, ?]>, %x: index) {
  // expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op TMA needs an innermost element stride of 1, got ?}}
  %d = nv_tileas.make_tiled_tma_desc %g box [%x, %x] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tiled_view<?x?xf16, gmem, strides = [1, ?]> -> !nv_tileas.tma_desc
  func.return
}

// -----

// 64 halves are 128 bytes: too wide for a 32-byte swizzle span.
// RULE: tma-shared-layout
func.func @shared_layout(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 32B, order = [1, 0]}>>, %x: index, %bar: !nv_tileaa.mem_token) {
  // expected-error@+1 {{is not TMA-compatible: the innermost extent (128 bytes) exceeds the 32B swizzle span}}
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x, %x], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 32B, order = [1, 0]}>>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: tma-shared-layout
func.func @shared_order(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [0, 1]}>>, %x: index) {
  // expected-error@+1 {{is not TMA-compatible: order [0, 1] is not row-major}}
  %t = nv_tileas.async.tiled_tma_store %d, %s[%x, %x] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [0, 1]}>>, index, index -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: tma-padding-float
func.func @padding_float(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<64x64xi16, smem>, %x: index, %bar: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op padding_value needs a floating-point element type, not i16}}
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x, %x], %bar {atom = #nv_tileas<atom tma_load_2d>, padding_value = 0 : i16} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xi16, smem>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: tma-padding-float
func.func @oob_nan(%g: !nv_tileas.tiled_view<?x?xi32, gmem>, %x: index) {
  // expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op oob_mode nan needs a floating-point element type, not i32}}
  %d = nv_tileas.make_tiled_tma_desc %g box [%x, %x] {atom = #nv_tileas<atom tma_load_2d>, oob_mode = #nv_tileas<oob_mode nan>} : !nv_tileas.tiled_view<?x?xi32, gmem> -> !nv_tileas.tma_desc
  func.return
}

// -----

// RULE: tma-scatter-padding
func.func @scatter_padding(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<4x64xf32, smem>, %rows: tensor<4xi32>, %x: index) {
  // expected-error@+1 {{'nv_tileas.async.scatter_tma_store' op does not accept padding_value}}
  %u = nv_tileas.async.scatter_tma_store %d, %s[%x, %x], %rows {atom = #nv_tileas<atom tma_scatter4_2d>, padding_value = 0.0 : f32} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<4x64xf32, smem>, index, index, tensor<4xi32> -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: tma-residency
func.func @descriptor_residency(%g: !nv_tileas.tiled_view<64x64xf16, smem>, %x: index) {
  // expected-error@+1 {{'nv_tileas.make_tiled_tma_desc' op the descriptor's view must reside in gmem, not smem}}
  %d = nv_tileas.make_tiled_tma_desc %g box [%x, %x] {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tiled_view<64x64xf16, smem> -> !nv_tileas.tma_desc
  func.return
}

// -----

// RULE: tma-residency
func.func @shared_residency(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<64x64xf16, gmem>, %x: index, %bar: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op the shared operand must reside in smem, not gmem}}
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x, %x], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, gmem>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}

// -----

// A tile destination is only a stage buffer inside a producer region.
// RULE: tma-residency
func.func @tile_destination(%d: !nv_tileas.tma_desc, %s: !cuda_tile.tile<64x64xf16>, %x: index, %bar: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op the shared operand must be an smem tiled_view or a stage-buffer tile (a producer region argument)}}
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x, %x], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, tile<64x64xf16>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}

// -----

// RULE: tma-result
func.func @result(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<64x64xf16, smem>, %x: index, %bar: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileas.async.tiled_tma_load' op result !async.value<tile<64x32xf16>> must be a future of the destination's tile}}
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x, %x], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem>, index, index, !nv_tileaa.mem_token -> !async.value<tile<64x32xf16>>
  func.return
}

// -----

// RULE: tma-gather-indices
func.func @gather_indices(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<4x64xf32, smem>, %rows: tensor<8xi32>, %x: index, %bar: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileas.async.gather_tma_load' op indices hold 8 rows but the shared tile has 4}}
  %t = nv_tileas.async.gather_tma_load %d, %s[%x, %x], %rows, %bar {atom = #nv_tileas<atom tma_gather4_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<4x64xf32, smem>, index, index, tensor<8xi32>, !nv_tileaa.mem_token -> !nv_tileas.async.token
  func.return
}
