// The layout family: convert_layout, view, expand_dims, reinterpret, shuffle, generate.
// RUN: tileir-opt %s --split-input-file | tileir-opt --split-input-file --print-local-scope | filecheck %s
// RUN: tileir-opt %s --split-input-file --print-op-generic | tileir-opt --split-input-file --print-local-scope | filecheck %s

// RULE: convert-layout
// RULE: view-pointers
// RULE: expand-dims
// RULE: reinterpret-bits
// RULE: shuffle-permutation
// CHECK-LABEL: func.func @layouts
// CHECK: nv_tileas.convert_layout %{{.*}} : tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> -> tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
// CHECK: nv_tileas.view %{{.*}} : tensor<128x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<128xf32, gmem>
// CHECK: nv_tileas.view %{{.*}}[%{{.*}}] : !nv_tileas.tiled_view<128xf32, gmem> -> !nv_tileas.tiled_view<64xf32, gmem>
// CHECK: nv_tileas.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK: nv_tileas.reinterpret %{{.*}} : tensor<64xf32> -> tensor<128xf16>
// CHECK: nv_tileas.reinterpret %{{.*}} : !nv_tileas.tiled_view<64xf32, smem> -> !nv_tileas.tiled_view<64xi32, smem>
// CHECK: nv_tileas.shuffle %{{.*}} {permutation = array<i64: 1, 0>} : tile<4x8xf32> -> tile<8x4xf32>
func.func @layouts(%x: tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>,
    %ptrs: tensor<128x!cuda_tile.ptr<f32>>, %i: index, %r: tensor<16xi32>, %f: tensor<64xf32>,
    %s: !nv_tileas.tiled_view<64xf32, smem>, %t: !cuda_tile.tile<4x8xf32>) {
  %y = nv_tileas.convert_layout %x : tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>> -> tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>>
  %v = nv_tileas.view %ptrs : tensor<128x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<128xf32, gmem>
  %w = nv_tileas.view %v[%i] : !nv_tileas.tiled_view<128xf32, gmem> -> !nv_tileas.tiled_view<64xf32, gmem>
  %e = nv_tileas.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %h = nv_tileas.reinterpret %f : tensor<64xf32> -> tensor<128xf16>
  %si = nv_tileas.reinterpret %s : !nv_tileas.tiled_view<64xf32, smem> -> !nv_tileas.tiled_view<64xi32, smem>
  %tt = nv_tileas.shuffle %t {permutation = array<i64: 1, 0>} : tile<4x8xf32> -> tile<8x4xf32>
  func.return
}

// -----

// RULE: generate-region
// CHECK-LABEL: func.func @generate
// CHECK: nv_tileas.generate : tensor<4x8xindex> {
// CHECK-NEXT: ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK: nv_tileas.yield %{{.*}} : index
func.func @generate() {
  %g = nv_tileas.generate : tensor<4x8xindex> {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    nv_tileas.yield %s : index
  }
  func.return
}

// -----

// Value views (tensor results): another shape or layout encoding of the same elements;
// a one-element tensor viewed as its element (the carrier of a rank-0 tile).
// RULE: view-value
// CHECK-LABEL: func.func @value_views
// CHECK: nv_tileas.view %{{.*}} : tensor<128x128xf32> -> tensor<16384xf32>
// CHECK: nv_tileas.view %{{.*}} : tensor<128xf32> -> tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
// CHECK: nv_tileas.view %{{.*}} : tensor<?x64xf32> -> tensor<?x64xf32>
// CHECK: nv_tileas.view %{{.*}} : tensor<1x1xf32> -> f32
func.func @value_views(%x: tensor<128x128xf32>, %y: tensor<128xf32>, %z: tensor<?x64xf32>, %w: tensor<1x1xf32>) {
  %a = nv_tileas.view %x : tensor<128x128xf32> -> tensor<16384xf32>
  %b = nv_tileas.view %y : tensor<128xf32> -> tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
  %c = nv_tileas.view %z : tensor<?x64xf32> -> tensor<?x64xf32>
  %d = nv_tileas.view %w : tensor<1x1xf32> -> f32
  func.return
}
