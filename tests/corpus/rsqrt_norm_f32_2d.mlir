entry @rsqrt_norm_f32_2d_Kt1_A2f32_1l0_2t1_A2f32_1l0_2t1_A2f32_1l0_2t1_Sf32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<f32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_0 = constant <i32: 1> : tile<i32>
  %cst_1_i32_1 = constant <i32: 1> : tile<i32>
  %assume = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_2 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_3 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %arg0, shape = [%assume, %assume_2], strides = [%assume_3, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_4 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg8 : tile<i32>
  %tview_7 = make_tensor_view %arg5, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_8 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_9 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg13 : tile<i32>
  %tview_11 = make_tensor_view %arg10, shape = [%assume_8, %assume_9], strides = [%assume_10, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_12, %blockId_y_13, %blockId_z_14 = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(8x128), tensor_view<?x?xf32, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_13] token = %0 : partition_view<tile=(8x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<8x128xf32>, token
  %reshape = reshape %arg15 : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape : tile<1x1xf32> -> tile<8x128xf32>
  %1 = fma %tile, %tile, %bcast  : tile<8x128xf32>
  %2 = rsqrt %1 : tile<8x128xf32>
  %3 = mulf %tile, %2  : tile<8x128xf32>
  %pview_15 = make_partition_view %tview_7 : partition_view<tile=(8x128), tensor_view<?x?xf32, strides=[?,1]>>
  %4 = store_view_tko weak %3, %pview_15[%blockId_x, %blockId_y_13] token = %0 : tile<8x128xf32>, partition_view<tile=(8x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  %5 = absf %tile : tile<8x128xf32>
  %6 = sqrt %5  : tile<8x128xf32>
  %pview_16 = make_partition_view %tview_11 : partition_view<tile=(8x128), tensor_view<?x?xf32, strides=[?,1]>>
  %7 = store_view_tko weak %6, %pview_16[%blockId_x, %blockId_y_13] token = %0 : tile<8x128xf32>, partition_view<tile=(8x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
