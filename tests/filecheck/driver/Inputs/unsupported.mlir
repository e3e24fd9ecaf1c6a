entry @k(%arg0: tile<ptr<f16>>) {
  %tv = make_tensor_view %arg0, shape = [128], strides = [1] : tensor_view<128xf16, strides=[1]>
  %pv = make_partition_view %tv : partition_view<tile=(128), tensor_view<128xf16, strides=[1]>>
  %c0 = constant <i32: 0> : tile<i32>
  %t, %tok = load_view_tko weak %pv[%c0] : partition_view<tile=(128), tensor_view<128xf16, strides=[1]>>, tile<i32> -> tile<128xf16>, token
  %s = sqrt %t rounding<zero> : tile<128xf16>
  %st = store_view_tko weak %s, %pv[%c0] : tile<128xf16>, partition_view<tile=(128), tensor_view<128xf16, strides=[1]>>, tile<i32> -> token
  return
}
