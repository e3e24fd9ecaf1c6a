// convert-tileas-to-llvm takes the tileas stage only (the boundary rule,
// docs/pipeline.md): an op of an earlier dialect is a located error naming the pass
// that converts it, before anything is rewritten.
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
