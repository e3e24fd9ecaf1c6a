cuda_tile.module @m {
  entry @k(%p: tile<ptr<f32>>) {
    %c = constant <f32: 1.5> : tile<4096x4096xf32>
    %r = reduce %c dim=0 identities=[0.000000e+00 : f32] : tile<4096x4096xf32> -> tile<4096xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %s = addf %a, %b rounding<nearest_even> : tile<f32>
      yield %s : tile<f32>
    }
    return
  }
}
