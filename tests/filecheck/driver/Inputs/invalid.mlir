entry @k(%arg0: tile<f32>, %arg1: tile<i32>) {
  %0 = addf %arg0, %arg0 rounding<zero> flush_to_zero : tile<f32>
  %1 = exti %arg1 signed : tile<i32> -> tile<i16>
  return
}
