// convert-tileas-to-llvm takes the tileas stage only (the boundary rule,
// docs/pipeline.md): an op of an earlier dialect is a located error naming the pass
// that converts it, before anything is rewritten; so is a memory token left behind.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics -p convert-tileas-to-llvm

func.func @tileaa_assume(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.kernel} {
  // expected-error@+1 {{'nv_tileaa.assume' op is not legal in convert-tileas-to-llvm, which lowers only nv_tileas, scf, arith and func ops and per-element cuda_tile ops; run convert-tileaa-to-tileas first (or the cuda-tile-to-ptx pipeline)}}
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  func.return
}

// -----

func.func @tileaa_addptr(%p: !cuda_tile.ptr<f32>, %o: i64) attributes {nv_tileas.kernel} {
  // expected-error@+1 {{'nv_tileaa.addptr' op is not legal in convert-tileas-to-llvm}}
  %q = nv_tileaa.addptr %p, %o : !cuda_tile.ptr<f32>, i64
  func.return
}

// -----

// A structural cuda_tile op (a permute: nv_tileas.shuffle at this stage).
func.func @cuda_tile_permute(%t: tensor<2x4xf32>) attributes {nv_tileas.kernel} {
  // expected-error@+1 {{'cuda_tile.permute' op is not legal in convert-tileas-to-llvm, which lowers only nv_tileas, scf, arith and func ops and per-element cuda_tile ops; run convert-cuda-tile-to-tileaa and convert-tileaa-to-tileas first}}
  %u = cuda_tile.permute %t [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  func.return
}

// -----

// A memory token left in the IR (tileas-insert-barriers did not run): its order is not
// explicit yet.
func.func @token_left(%p: !cuda_tile.ptr<f32>) attributes {nv_tileas.kernel} {
  // expected-error@+1 {{'nv_tileas.create_none' op still carries a memory token; convert-tileas-to-llvm takes the tileas stage after tileas-insert-barriers, which makes memory order explicit and drops synchronous tokens (ordering through async.token_to_async is not supported yet)}}
  %t = nv_tileas.create_none : !nv_tileaa.mem_token
  %v = nv_tileas.view %p : !cuda_tile.ptr<f32> -> !nv_tileas.tiled_view<f32, gmem>
  %x, %t1 = nv_tileas.tiled_load %v[] token %t {atom = #nv_tileas<atom ldg_32b>, in_bounds = array<i1>} : !nv_tileas.tiled_view<f32, gmem> -> f32
  func.return
}
