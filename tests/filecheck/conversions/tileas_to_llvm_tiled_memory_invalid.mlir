// A view of global pointers addresses one element per pointer: a tiled load or store
// of it must be at coordinate 0.  Any other coordinate (a tile further along, as a
// pipelining pass would index) is a located error, never a silent read at the origin.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80}

func.func @load_at_one(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.kernel} {
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<256xi32>
  %ptrs = nv_tileas.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
  %v = nv_tileas.view %ptrs : tensor<256x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<256xf32, gmem>
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{'nv_tileas.tiled_load' op is not supported by tileir yet: a tiled access of a pointer view at a coordinate or offset other than 0}}
  %x = nv_tileas.tiled_load %v[%c1] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<256xf32, gmem> -> tensor<256xf32>
  %c0 = arith.constant 0 : index
  nv_tileas.tiled_store %x, %v[%c0] {atom = #nv_tileas<atom stg_128b>} : tensor<256xf32>, !nv_tileas.tiled_view<256xf32, gmem>
  func.return
}

// -----

func.func @store_at_dynamic(%p: !cuda_tile.ptr<f32>, %n: i32) attributes {nv_tileas.kernel} {
  %k = arith.index_cast %n : i32 to index
  %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<256xi32>
  %ptrs = nv_tileas.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
  %v = nv_tileas.view %ptrs : tensor<256x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<256xf32, gmem>
  %y = cuda_tile.constant <f32: 2.0> : tensor<256xf32>
  // expected-error@+1 {{'nv_tileas.tiled_store' op is not supported by tileir yet: a tiled access of a pointer view at a coordinate or offset other than 0}}
  nv_tileas.tiled_store %y, %v[%k] {atom = #nv_tileas<atom stg_128b>} : tensor<256xf32>, !nv_tileas.tiled_view<256xf32, gmem>
  func.return
}
