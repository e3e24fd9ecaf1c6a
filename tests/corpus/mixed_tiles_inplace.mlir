entry @mixed_tiles_inplace_Kt1_A1f32_1t1_p16_A1f32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_1 = constant <i32: 1> : tile<i32>
  %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_3 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_4 = make_tensor_view %assume_0, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(512), tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(512), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<512xf32>, token
  %1 = join_tokens %0, %result_token : token
  %pview_5 = make_partition_view %tview_4 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
  %tile_6, %result_token_7 = load_view_tko weak %pview_5[%blockId_x] token = %0 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
  %2 = join_tokens %0, %result_token_7 : token
  %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
  %reshape = reshape %cst_1_f32 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<64xf32>
  %3 = addf %tile_6, %bcast  : tile<64xf32>
  %pview_8 = make_partition_view %tview_4 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
  %4 = store_view_tko weak %3, %pview_8[%blockId_x] token = %2 : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
  %reshape_9 = reshape %cst_2_f32 : tile<f32> -> tile<1xf32>
  %bcast_10 = broadcast %reshape_9 : tile<1xf32> -> tile<512xf32>
  %5 = mulf %tile, %bcast_10  : tile<512xf32>
  %pview_11 = make_partition_view %tview : partition_view<tile=(512), tensor_view<?xf32, strides=[1]>>
  %6 = store_view_tko weak %5, %pview_11[%blockId_x] token = %1 : tile<512xf32>, partition_view<tile=(512), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
