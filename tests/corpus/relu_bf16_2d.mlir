entry @relu_bf16_2d_Kt1_A2bf16_1l0_2t1_p16_A2bf16_1l0_2t1_p16_A2bf16_1l0_2t1_p16_Sf32(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<bf16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<bf16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<f32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<bf16>>
  %assume_1 = assume div_by<16>, %arg10 : tile<ptr<bf16>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
  %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_9 = assume bounded<0, ?>, %arg8 : tile<i32>
  %tview_10 = make_tensor_view %assume_0, shape = [%assume_7, %assume_8], strides = [%assume_9, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
  %assume_11 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_12 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_13 = assume bounded<0, ?>, %arg13 : tile<i32>
  %tview_14 = make_tensor_view %assume_1, shape = [%assume_11, %assume_12], strides = [%assume_13, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_15, %blockId_y_16, %blockId_z_17 = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(16x64), tensor_view<?x?xbf16, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_16] token = %0 : partition_view<tile=(16x64), tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<16x64xbf16>, token
  %cst_0_bf16 = constant <bf16: 0.000000e+00> : tile<bf16>
  %reshape = reshape %cst_0_bf16 : tile<bf16> -> tile<1x1xbf16>
  %bcast = broadcast %reshape : tile<1x1xbf16> -> tile<16x64xbf16>
  %1 = maxf %tile, %bcast : tile<16x64xbf16>
  %pview_18 = make_partition_view %tview_10 : partition_view<tile=(16x64), tensor_view<?x?xbf16, strides=[?,1]>>
  %2 = store_view_tko weak %1, %pview_18[%blockId_x, %blockId_y_16] token = %0 : tile<16x64xbf16>, partition_view<tile=(16x64), tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> token
  %3 = ftof %tile  : tile<16x64xbf16> -> tile<16x64xf32>
  %reshape_19 = reshape %arg15 : tile<f32> -> tile<1x1xf32>
  %bcast_20 = broadcast %reshape_19 : tile<1x1xf32> -> tile<16x64xf32>
  %4 = mulf %3, %bcast_20  : tile<16x64xf32>
  %5 = ftof %4  : tile<16x64xf32> -> tile<16x64xbf16>
  %cst_0_bf16_21 = constant <bf16: 0.000000e+00> : tile<bf16>
  %reshape_22 = reshape %cst_0_bf16_21 : tile<bf16> -> tile<1x1xbf16>
  %bcast_23 = broadcast %reshape_22 : tile<1x1xbf16> -> tile<16x64xbf16>
  %6 = cmpf greater_than ordered %tile, %bcast_23 : tile<16x64xbf16> -> tile<16x64xi1>
  %7 = select %6, %tile, %5 : tile<16x64xi1>, tile<16x64xbf16>
  %pview_24 = make_partition_view %tview_14 : partition_view<tile=(16x64), tensor_view<?x?xbf16, strides=[?,1]>>
  %8 = store_view_tko weak %7, %pview_24[%blockId_x, %blockId_y_16] token = %0 : tile<16x64xbf16>, partition_view<tile=(16x64), tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> token
  return
}
