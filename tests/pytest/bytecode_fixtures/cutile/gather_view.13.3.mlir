entry @gather_view_Kt1_A2f32_1l0_2t1_p16_A1i32_1t1_p16_A2f32_1l0_2t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<i32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<ptr<f32>>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<i32>>
  %assume_1 = assume div_by<16>, %arg8 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
  %tview_8 = make_tensor_view %assume_0, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_9 = assume bounded<0, ?>, %arg9 : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg10 : tile<i32>
  %assume_11 = assume bounded<0, ?>, %arg11 : tile<i32>
  %tview_12 = make_tensor_view %assume_1, shape = [%assume_9, %assume_10], strides = [%assume_11, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview_8 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%cst_0_i32] token = %0 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<16xi32>, token
  %cst_0_i32_13 = constant <i32: 0> : tile<i32>
  %gsview = make_gather_scatter_view %tview : gather_scatter_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>, sparse_dim=0>
  %tile_14, %result_token_15 = load_view_tko weak %gsview[%tile, %cst_0_i32_13] token = %0 : gather_scatter_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>, sparse_dim=0>, tile<16xi32>, tile<i32> -> tile<16x32xf32>, token
  %cst_0_i32_16 = constant <i32: 0> : tile<i32>
  %cst_0_i32_17 = constant <i32: 0> : tile<i32>
  %pview_18 = make_partition_view %tview_12 : partition_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>>
  %1 = store_view_tko weak %tile_14, %pview_18[%cst_0_i32_16, %cst_0_i32_17] token = %0 : tile<16x32xf32>, partition_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
