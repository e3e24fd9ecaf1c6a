entry @batched_matmul_e5m2_Kt1_A3f8m2_3v16l0_4t1_p16_A3f8m2_3v16l0_4t1_p16_A3f32_3v4l0_4t1_p16_Si32(%arg0: tile<ptr<f8E5M2>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f8E5M2>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f32>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f8E5M2>>
  %assume_0 = assume div_by<16>, %arg4 : tile<i32>
  %assume_1 = assume div_by<16>, %arg5 : tile<i32>
  %assume_2 = assume div_by<16>, %arg7 : tile<ptr<f8E5M2>>
  %assume_3 = assume div_by<16>, %arg11 : tile<i32>
  %assume_4 = assume div_by<16>, %arg12 : tile<i32>
  %assume_5 = assume div_by<16>, %arg14 : tile<ptr<f32>>
  %assume_6 = assume div_by<4>, %arg18 : tile<i32>
  %assume_7 = assume div_by<4>, %arg19 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_8 = constant <i32: 1> : tile<i32>
  %cst_1_i32_9 = constant <i32: 1> : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_11 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_12 = assume bounded<0, ?>, %arg3 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
  %assume_assume_13 = assume bounded<0, ?>, %assume_1 : tile<i32>
  %assume_assume_assume_14 = assume div_by<16>, %assume_assume_13 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_10, %assume_11, %assume_12], strides = [%assume_assume_assume, %assume_assume_assume_14, 1] : tile<i32> -> tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>
  %assume_15 = assume bounded<0, ?>, %arg8 : tile<i32>
  %assume_16 = assume bounded<0, ?>, %arg9 : tile<i32>
  %assume_17 = assume bounded<0, ?>, %arg10 : tile<i32>
  %assume_assume_18 = assume bounded<0, ?>, %assume_3 : tile<i32>
  %assume_assume_assume_19 = assume div_by<16>, %assume_assume_18 : tile<i32>
  %assume_assume_20 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_21 = assume div_by<16>, %assume_assume_20 : tile<i32>
  %tview_22 = make_tensor_view %assume_2, shape = [%assume_15, %assume_16, %assume_17], strides = [%assume_assume_assume_19, %assume_assume_assume_21, 1] : tile<i32> -> tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>
  %assume_23 = assume bounded<0, ?>, %arg15 : tile<i32>
  %assume_24 = assume bounded<0, ?>, %arg16 : tile<i32>
  %assume_25 = assume bounded<0, ?>, %arg17 : tile<i32>
  %assume_assume_26 = assume bounded<0, ?>, %assume_6 : tile<i32>
  %assume_assume_assume_27 = assume div_by<4>, %assume_assume_26 : tile<i32>
  %assume_assume_28 = assume bounded<0, ?>, %assume_7 : tile<i32>
  %assume_assume_assume_29 = assume div_by<4>, %assume_assume_28 : tile<i32>
  %tview_30 = make_tensor_view %assume_5, shape = [%assume_23, %assume_24, %assume_25], strides = [%assume_assume_assume_27, %assume_assume_assume_29, 1] : tile<i32> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_31, %blockId_y_32, %blockId_z_33 = get_tile_block_id : tile<i32>
  %blockId_x_34, %blockId_y_35, %blockId_z_36 = get_tile_block_id : tile<i32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32_37 = constant <i32: 1> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(1x64x32), padding_value = zero, tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>>
  %pview_38 = make_partition_view %tview_22 : partition_view<tile=(1x32x64), padding_value = zero, tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>>
  %for = for %loopIdx in (%cst_0_i32 to %arg21, step %cst_1_i32_37) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<64x64xf32>) {
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_32, %loopIdx] token = %0 : partition_view<tile=(1x64x32), padding_value = zero, tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>>, tile<i32> -> tile<1x64x32xf8E5M2>, token
    %tile_40, %result_token_41 = load_view_tko weak %pview_38[%blockId_x, %loopIdx, %blockId_z_36] token = %0 : partition_view<tile=(1x32x64), padding_value = zero, tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>>, tile<i32> -> tile<1x32x64xf8E5M2>, token
    %reshape_42 = reshape %tile : tile<1x64x32xf8E5M2> -> tile<64x32xf8E5M2>
    %reshape_43 = reshape %tile_40 : tile<1x32x64xf8E5M2> -> tile<32x64xf8E5M2>
    %2 = mmaf %reshape_42, %reshape_43, %iterArg0 : tile<64x32xf8E5M2>, tile<32x64xf8E5M2>, tile<64x64xf32>
    continue %2 : tile<64x64xf32>
  }
  %reshape = reshape %for : tile<64x64xf32> -> tile<1x64x64xf32>
  %pview_39 = make_partition_view %tview_30 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf32, strides=[?,?,1]>>
  %1 = store_view_tko weak %reshape, %pview_39[%blockId_x, %blockId_y_32, %blockId_z_36] token = %0 : tile<1x64x64xf32>, partition_view<tile=(1x64x64), tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> token
  return
}
