// The TMA family (seed 003 "TMA Op Operand/Result Tables"): descriptors and the four
// async transfers; each TMA rule has its valid case here (invalid ones in tma_invalid.mlir).
// RUN: tileir-opt %s --split-input-file | tileir-opt --split-input-file --print-local-scope | filecheck %s
// RUN: tileir-opt %s --split-input-file --print-op-generic | tileir-opt --split-input-file --print-local-scope | filecheck %s

// RULE: tma-atom-kind
// RULE: tma-box-rank
// RULE: tma-element-stride
// RULE: tma-shared-layout
// RULE: tma-padding-float
// RULE: tma-residency
// RULE: tma-result
// RULE: index-coords
// CHECK-LABEL: func.func @contiguous
// CHECK: %[[D:.*]] = nv_tileas.make_tiled_tma_desc %{{.*}} box [%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom tma_load_2d>, swizzle_mode = #nv_tileas<swizzle_mode 128B>, oob_mode = #nv_tileas<oob_mode nan>} : !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]> -> !nv_tileas.tma_desc
// CHECK: nv_tileas.async.tiled_tma_load %[[D]], %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {atom = #nv_tileas<atom tma_load_2d>, padding_value = 0.000000e+00 : f16} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
// CHECK: nv_tileas.async.tiled_tma_load %[[D]], %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16>, index, index, !nv_tileaa.mem_token -> !async.value<tile<64x64xf16>>
// CHECK: %[[S:.*]] = nv_tileas.make_tiled_tma_desc %{{.*}} box [%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom tma_store_2d>}
// CHECK: nv_tileas.async.tiled_tma_store %[[S]], %{{.*}}[%{{.*}}, %{{.*}}] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>>, index, index -> !nv_tileas.async.token
func.func @contiguous(%g: !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]>,
    %s: !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>>,
    %stage: !nv_tileaa.tiled_view<64x64xf16>, %m: index, %n: index, %x: index, %y: index, %bar: !nv_tileaa.mem_token) {
  %d = nv_tileas.make_tiled_tma_desc %g box [%m, %n] {atom = #nv_tileas<atom tma_load_2d>, swizzle_mode = #nv_tileas<swizzle_mode 128B>, oob_mode = #nv_tileas<oob_mode nan>} : !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]> -> !nv_tileas.tma_desc
  %t = nv_tileas.async.tiled_tma_load %d, %s[%x, %y], %bar {atom = #nv_tileas<atom tma_load_2d>, padding_value = 0.0 : f16} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>>, index, index, !nv_tileaa.mem_token -> !nv_tileas.async.token
  %f = nv_tileas.async.tiled_tma_load %d, %stage[%x, %y], %bar {atom = #nv_tileas<atom tma_load_2d>} : !nv_tileas.tma_desc, !nv_tileaa.tiled_view<64x64xf16>, index, index, !nv_tileaa.mem_token -> !async.value<tile<64x64xf16>>
  %sd = nv_tileas.make_tiled_tma_desc %g box [%m, %n] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]> -> !nv_tileas.tma_desc
  %u = nv_tileas.async.tiled_tma_store %sd, %s[%x, %y] {atom = #nv_tileas<atom tma_store_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<64x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>>, index, index -> !nv_tileas.async.token
  func.return
}

// -----

// Four rows gathered and scattered by index (tile::gather4 / tile::scatter4).
// RULE: tma-scatter-padding
// RULE: tma-gather-indices
// CHECK-LABEL: func.func @discontiguous
// CHECK: nv_tileas.async.gather_tma_load %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, %{{.*}} {atom = #nv_tileas<atom tma_gather4_2d>, padding_value = #nv_tileas<padding neg_inf>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<4x64xf32, smem>, index, index, tensor<4xi32>, !nv_tileaa.mem_token -> !nv_tileas.async.token
// CHECK: nv_tileas.async.scatter_tma_store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {atom = #nv_tileas<atom tma_scatter4_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<4x64xf32, smem>, index, index, tensor<4xi32> -> !nv_tileas.async.token
func.func @discontiguous(%d: !nv_tileas.tma_desc, %s: !nv_tileas.tiled_view<4x64xf32, smem>, %rows: tensor<4xi32>,
    %x: index, %y: index, %bar: !nv_tileaa.mem_token) {
  %t = nv_tileas.async.gather_tma_load %d, %s[%x, %y], %rows, %bar {atom = #nv_tileas<atom tma_gather4_2d>, padding_value = #nv_tileas<padding neg_inf>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<4x64xf32, smem>, index, index, tensor<4xi32>, !nv_tileaa.mem_token -> !nv_tileas.async.token
  %u = nv_tileas.async.scatter_tma_store %d, %s[%x, %y], %rows {atom = #nv_tileas<atom tma_scatter4_2d>} : !nv_tileas.tma_desc, !nv_tileas.tiled_view<4x64xf32, smem>, index, index, tensor<4xi32> -> !nv_tileas.async.token
  func.return
}
