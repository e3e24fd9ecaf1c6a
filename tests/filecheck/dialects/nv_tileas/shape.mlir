// Shape: splat and broadcast (tileir's ops, not in seed 003's roster; see
// tileir/dialects/nv_tileas/ops/shape.py).
// RUN: tileir-opt %s | tileir-opt --print-local-scope | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt --print-local-scope | filecheck %s

// A scalar (and a pointer) made a tile, rows and columns of an index tile broadcast.
// RULE: splat-element
// RULE: broadcast-shape
// CHECK-LABEL: func.func @shapes
// CHECK: nv_tileas.splat %{{.*}} : i32 -> tensor<16xi32>
// CHECK: nv_tileas.splat %{{.*}} : !cuda_tile.ptr<f16> -> tensor<16x64x!cuda_tile.ptr<f16>>
// CHECK: nv_tileas.broadcast %{{.*}} : tensor<16x1xi32> -> tensor<16x64xi32>
// CHECK: nv_tileas.broadcast %{{.*}} : tensor<1x64xi32, #nv_tileas.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<16x64xi32, #nv_tileas.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
func.func @shapes(%d: i32, %p: !cuda_tile.ptr<f16>, %r: tensor<16x1xi32>,
    %c: tensor<1x64xi32, #nv_tileas.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>) {
  %s = nv_tileas.splat %d : i32 -> tensor<16xi32>
  %sp = nv_tileas.splat %p : !cuda_tile.ptr<f16> -> tensor<16x64x!cuda_tile.ptr<f16>>
  %rb = nv_tileas.broadcast %r : tensor<16x1xi32> -> tensor<16x64xi32>
  %cb = nv_tileas.broadcast %c : tensor<1x64xi32, #nv_tileas.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>> -> tensor<16x64xi32, #nv_tileas.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>>
  func.return
}
