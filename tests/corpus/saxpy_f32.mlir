entry @saxpy_f32_Kt1_A1f32_1t1_A1f32_1t1_A1f32_1t1_Sf32_I256(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<f32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<f32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_0 = constant <i32: 1> : tile<i32>
  %cst_1_i32_1 = constant <i32: 1> : tile<i32>
  %assume = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %arg0, shape = [%assume], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_2 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_3 = make_tensor_view %arg3, shape = [%assume_2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_4 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_5 = make_tensor_view %arg6, shape = [%assume_4], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
  %pview_6 = make_partition_view %tview_3 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
  %tile_7, %result_token_8 = load_view_tko weak %pview_6[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
  %reshape = reshape %arg9 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<256xf32>
  %1 = fma %bcast, %tile, %tile_7  : tile<256xf32>
  %pview_9 = make_partition_view %tview_5 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
  %2 = store_view_tko weak %1, %pview_9[%blockId_x] token = %0 : tile<256xf32>, partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
