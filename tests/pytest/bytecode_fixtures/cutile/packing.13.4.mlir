entry @packing_Kt1_A1f32_1t1_p16_A1u8_1t1_p16_A1f32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i8>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<f32>>, %arg7: tile<i32>, %arg8: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i8>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_5 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_6 = make_tensor_view %assume_0, shape = [%assume_5], strides = [1] : tile<i32> -> tensor_view<?xi8, strides=[1]>
  %assume_7 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_8 = make_tensor_view %assume_1, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%cst_0_i32] token = %0 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
  %1 = pack %tile : tile<64xf32> -> tile<256xi8>
  %cst_0_i32_9 = constant <i32: 0> : tile<i32>
  %pview_10 = make_partition_view %tview_6 : partition_view<tile=(256), tensor_view<?xi8, strides=[1]>>
  %2 = store_view_tko weak %1, %pview_10[%cst_0_i32_9] token = %0 : tile<256xi8>, partition_view<tile=(256), tensor_view<?xi8, strides=[1]>>, tile<i32> -> token
  %cst_0_i32_11 = constant <i32: 0> : tile<i32>
  %3 = unpack %1 : tile<256xi8> -> tile<64xf32>
  %pview_12 = make_partition_view %tview_8 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
  %4 = store_view_tko weak %3, %pview_12[%cst_0_i32_11] token = %0 : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
