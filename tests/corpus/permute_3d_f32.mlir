entry @permute_3d_f32_Kt1_A3f32_3v4l0_4t1_p16_A3f32_3v4l0_4t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f32>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<4>, %arg4 : tile<i32>
  %assume_1 = assume div_by<4>, %arg5 : tile<i32>
  %assume_2 = assume div_by<16>, %arg7 : tile<ptr<f32>>
  %assume_3 = assume div_by<4>, %arg11 : tile<i32>
  %assume_4 = assume div_by<4>, %arg12 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_7 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg3 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<4>, %assume_assume : tile<i32>
  %assume_assume_9 = assume bounded<0, ?>, %assume_1 : tile<i32>
  %assume_assume_assume_10 = assume div_by<4>, %assume_assume_9 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_6, %assume_7, %assume_8], strides = [%assume_assume_assume, %assume_assume_assume_10, 1] : tile<i32> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
  %assume_11 = assume bounded<0, ?>, %arg8 : tile<i32>
  %assume_12 = assume bounded<0, ?>, %arg9 : tile<i32>
  %assume_13 = assume bounded<0, ?>, %arg10 : tile<i32>
  %assume_assume_14 = assume bounded<0, ?>, %assume_3 : tile<i32>
  %assume_assume_assume_15 = assume div_by<4>, %assume_assume_14 : tile<i32>
  %assume_assume_16 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_17 = assume div_by<4>, %assume_assume_16 : tile<i32>
  %tview_18 = make_tensor_view %assume_2, shape = [%assume_11, %assume_12, %assume_13], strides = [%assume_assume_assume_15, %assume_assume_assume_17, 1] : tile<i32> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_19, %blockId_y_20, %blockId_z_21 = get_tile_block_id : tile<i32>
  %blockId_x_22, %blockId_y_23, %blockId_z_24 = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(4x8x16), padding_value = zero, tensor_view<?x?x?xf32, strides=[?,?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_20, %blockId_z_24] token = %0 : partition_view<tile=(4x8x16), padding_value = zero, tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> tile<4x8x16xf32>, token
  %1 = permute %tile [2, 0, 1] : tile<4x8x16xf32> -> tile<16x4x8xf32>
  %pview_25 = make_partition_view %tview_18 : partition_view<tile=(16x4x8), tensor_view<?x?x?xf32, strides=[?,?,1]>>
  %2 = store_view_tko weak %1, %pview_25[%blockId_z_24, %blockId_x, %blockId_y_20] token = %0 : tile<16x4x8xf32>, partition_view<tile=(16x4x8), tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> token
  return
}
