entry @k(%arg0: tile<f32>) {
  %0 = negf %arg0 : tile<f32>
  %1 = addf %0,
