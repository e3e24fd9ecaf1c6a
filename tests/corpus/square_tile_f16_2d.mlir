entry @square_tile_f16_2d_Kt1_A2f16_1v2l0_2t1_p16_A2f16_1v2l0_2t1_p16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
  %assume_0 = assume div_by<2>, %arg3 : tile<i32>
  %assume_1 = assume div_by<16>, %arg5 : tile<ptr<f16>>
  %assume_2 = assume div_by<2>, %arg8 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<2>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_assume_assume, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %assume_6 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_7 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_assume_8 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_9 = assume div_by<2>, %assume_assume_8 : tile<i32>
  %tview_10 = make_tensor_view %assume_1, shape = [%assume_6, %assume_7], strides = [%assume_assume_assume_9, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_11, %blockId_y_12, %blockId_z_13 = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(32x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_12] token = %0 : partition_view<tile=(32x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x32xf16>, token
  %1 = ftof %tile  : tile<32x32xf16> -> tile<32x32xf32>
  %cst_f32 = constant <f32: 5.000000e-01> : tile<f32>
  %reshape = reshape %cst_f32 : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape : tile<1x1xf32> -> tile<32x32xf32>
  %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
  %reshape_14 = reshape %cst_1_f32 : tile<f32> -> tile<1x1xf32>
  %bcast_15 = broadcast %reshape_14 : tile<1x1xf32> -> tile<32x32xf32>
  %2 = fma %1, %bcast, %bcast_15  : tile<32x32xf32>
  %3 = ftof %2  : tile<32x32xf32> -> tile<32x32xf16>
  %pview_16 = make_partition_view %tview_10 : partition_view<tile=(32x32), tensor_view<?x?xf16, strides=[?,1]>>
  %4 = store_view_tko weak %3, %pview_16[%blockId_x, %blockId_y_12] token = %0 : tile<32x32xf16>, partition_view<tile=(32x32), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
  return
}
