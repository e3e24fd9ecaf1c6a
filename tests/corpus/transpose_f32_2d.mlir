entry @transpose_f32_2d_Kt1_A2f32_1v4l0_2t1_p16_A2f32_1v4l0_2t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<4>, %arg3 : tile<i32>
  %assume_1 = assume div_by<16>, %arg5 : tile<ptr<f32>>
  %assume_2 = assume div_by<4>, %arg8 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<4>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_assume_assume, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_6 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_7 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_assume_8 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_9 = assume div_by<4>, %assume_assume_8 : tile<i32>
  %tview_10 = make_tensor_view %assume_1, shape = [%assume_6, %assume_7], strides = [%assume_assume_assume_9, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_11, %blockId_y_12, %blockId_z_13 = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_12] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x64xf32>, token
  %1 = permute %tile [1, 0] : tile<32x64xf32> -> tile<64x32xf32>
  %pview_14 = make_partition_view %tview_10 : partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>
  %2 = store_view_tko weak %1, %pview_14[%blockId_y_12, %blockId_x] token = %0 : tile<64x32xf32>, partition_view<tile=(64x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
