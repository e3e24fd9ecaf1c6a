// Pointer: addptr and assume (tileir's ops, not in seed 003's roster; see
// tileir/dialects/nv_tileas/ops/pointer.py).
// RUN: tileir-opt %s | tileir-opt --print-local-scope | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt --print-local-scope | filecheck %s

// A base pointer with an alignment fact, advanced by a bounded offset, then a tile of
// pointers advanced element by element (64-bit offsets, as cuda_tile's `offset` takes
// them, and 32-bit ones); facts on integer tiles.
// RULE: addptr-operands
// RULE: assume-predicate
// CHECK-LABEL: func.func @pointers
// CHECK: %[[A:.*]] = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
// CHECK: %[[B:.*]] = nv_tileas.assume %n, #cuda_tile.bounded<0, ?> : i32
// CHECK: nv_tileas.addptr %[[A]], %[[B]] : !cuda_tile.ptr<f32>, i32
// CHECK: nv_tileas.addptr %t, %o : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi64>
// CHECK: nv_tileas.addptr %t, %i : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
// CHECK: nv_tileas.assume %i, #cuda_tile.div_by<8, every 4 along 0> : tensor<128xi32>
// CHECK: nv_tileas.assume %r, #cuda_tile.same_elements<[1, 64]> : tensor<16x64xi32>
// CHECK: nv_tileas.addptr %l, %li : tensor<128x!cuda_tile.ptr<f32>, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>, tensor<128xi32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
func.func @pointers(%p: !cuda_tile.ptr<f32>, %n: i32, %t: tensor<128x!cuda_tile.ptr<f32>>,
    %o: tensor<128xi64>, %i: tensor<128xi32>, %r: tensor<16x64xi32>,
    %l: tensor<128x!cuda_tile.ptr<f32>, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>,
    %li: tensor<128xi32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>) {
  %a = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %b = nv_tileas.assume %n, #cuda_tile.bounded<0, ?> : i32
  %q = nv_tileas.addptr %a, %b : !cuda_tile.ptr<f32>, i32
  %u = nv_tileas.addptr %t, %o : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi64>
  %v = nv_tileas.addptr %t, %i : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
  %d = nv_tileas.assume %i, #cuda_tile.div_by<8, every 4 along 0> : tensor<128xi32>
  %s = nv_tileas.assume %r, #cuda_tile.same_elements<[1, 64]> : tensor<16x64xi32>
  %w = nv_tileas.addptr %l, %li : tensor<128x!cuda_tile.ptr<f32>, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>, tensor<128xi32, #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>>
  func.return
}
