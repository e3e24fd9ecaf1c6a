entry @matmul_i8_Kt1_A2i8_1l0_2t1_p16_A2i8_1l0_2t1_p16_A2i32_1l0_2t1_p16(%arg0: tile<ptr<i8>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<i8>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<i32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<i8>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<i8>>
  %assume_1 = assume div_by<16>, %arg10 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xi8, strides=[?,1]>
  %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_9 = assume bounded<0, ?>, %arg8 : tile<i32>
  %tview_10 = make_tensor_view %assume_0, shape = [%assume_7, %assume_8], strides = [%assume_9, 1] : tile<i32> -> tensor_view<?x?xi8, strides=[?,1]>
  %assume_11 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_12 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_13 = assume bounded<0, ?>, %arg13 : tile<i32>
  %tview_14 = make_tensor_view %assume_1, shape = [%assume_11, %assume_12], strides = [%assume_13, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_0_i32_15 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(32x32), tensor_view<?x?xi8, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%cst_0_i32, %cst_0_i32_15] token = %0 : partition_view<tile=(32x32), tensor_view<?x?xi8, strides=[?,1]>>, tile<i32> -> tile<32x32xi8>, token
  %cst_0_i32_16 = constant <i32: 0> : tile<i32>
  %cst_0_i32_17 = constant <i32: 0> : tile<i32>
  %pview_18 = make_partition_view %tview_10 : partition_view<tile=(32x32), tensor_view<?x?xi8, strides=[?,1]>>
  %tile_19, %result_token_20 = load_view_tko weak %pview_18[%cst_0_i32_16, %cst_0_i32_17] token = %0 : partition_view<tile=(32x32), tensor_view<?x?xi8, strides=[?,1]>>, tile<i32> -> tile<32x32xi8>, token
  %cst_0_i32_21 = constant <i32: 0> : tile<32x32xi32>
  %cst_0_i32_22 = constant <i32: 0> : tile<i32>
  %cst_0_i32_23 = constant <i32: 0> : tile<i32>
  %1 = mmai %tile, %tile_19, %cst_0_i32_21 signed signed : tile<32x32xi8>, tile<32x32xi8>, tile<32x32xi32>
  %pview_24 = make_partition_view %tview_14 : partition_view<tile=(32x32), tensor_view<?x?xi32, strides=[?,1]>>
  %2 = store_view_tko weak %1, %pview_24[%cst_0_i32_22, %cst_0_i32_23] token = %0 : tile<32x32xi32>, partition_view<tile=(32x32), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> token
  return
}
