entry @batched_matmul_2d_f16_Kt1_A3f16_3v8l0_4t1_p16_A3f16_3v8l0_4t1_p16_A3f16_3v8l0_4t1_p16_Si32(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<ptr<f16>>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<ptr<f16>>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
  %assume_0 = assume div_by<8>, %arg4 : tile<i32>
  %assume_1 = assume div_by<8>, %arg5 : tile<i32>
  %assume_2 = assume div_by<16>, %arg7 : tile<ptr<f16>>
  %assume_3 = assume div_by<8>, %arg11 : tile<i32>
  %assume_4 = assume div_by<8>, %arg12 : tile<i32>
  %assume_5 = assume div_by<16>, %arg14 : tile<ptr<f16>>
  %assume_6 = assume div_by<8>, %arg18 : tile<i32>
  %assume_7 = assume div_by<8>, %arg19 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_8 = constant <i32: 1> : tile<i32>
  %cst_1_i32_9 = constant <i32: 1> : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_11 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_12 = assume bounded<0, ?>, %arg3 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<8>, %assume_assume : tile<i32>
  %assume_assume_13 = assume bounded<0, ?>, %assume_1 : tile<i32>
  %assume_assume_assume_14 = assume div_by<8>, %assume_assume_13 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_10, %assume_11, %assume_12], strides = [%assume_assume_assume, %assume_assume_assume_14, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
  %assume_15 = assume bounded<0, ?>, %arg8 : tile<i32>
  %assume_16 = assume bounded<0, ?>, %arg9 : tile<i32>
  %assume_17 = assume bounded<0, ?>, %arg10 : tile<i32>
  %assume_assume_18 = assume bounded<0, ?>, %assume_3 : tile<i32>
  %assume_assume_assume_19 = assume div_by<8>, %assume_assume_18 : tile<i32>
  %assume_assume_20 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_21 = assume div_by<8>, %assume_assume_20 : tile<i32>
  %tview_22 = make_tensor_view %assume_2, shape = [%assume_15, %assume_16, %assume_17], strides = [%assume_assume_assume_19, %assume_assume_assume_21, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
  %assume_23 = assume bounded<0, ?>, %arg15 : tile<i32>
  %assume_24 = assume bounded<0, ?>, %arg16 : tile<i32>
  %assume_25 = assume bounded<0, ?>, %arg17 : tile<i32>
  %assume_assume_26 = assume bounded<0, ?>, %assume_6 : tile<i32>
  %assume_assume_assume_27 = assume div_by<8>, %assume_assume_26 : tile<i32>
  %assume_assume_28 = assume bounded<0, ?>, %assume_7 : tile<i32>
  %assume_assume_assume_29 = assume div_by<8>, %assume_assume_28 : tile<i32>
  %tview_30 = make_tensor_view %assume_5, shape = [%assume_23, %assume_24, %assume_25], strides = [%assume_assume_assume_27, %assume_assume_assume_29, 1] : tile<i32> -> tensor_view<?x?x?xf16, strides=[?,?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_31, %blockId_y_32, %blockId_z_33 = get_tile_block_id : tile<i32>
  %blockId_x_34, %blockId_y_35, %blockId_z_36 = get_tile_block_id : tile<i32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32_37 = constant <i32: 1> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
  %pview_38 = make_partition_view %tview_22 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>
  %for = for %loopIdx in (%cst_0_i32 to %arg21, step %cst_1_i32_37) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<64x64xf32>) {
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_32, %loopIdx] token = %0 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
    %tile_40, %result_token_41 = load_view_tko weak %pview_38[%blockId_x, %loopIdx, %blockId_z_36] token = %0 : partition_view<tile=(1x64x64), padding_value = zero, tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> tile<1x64x64xf16>, token
    %reshape_42 = reshape %tile : tile<1x64x64xf16> -> tile<64x64xf16>
    %reshape_43 = reshape %tile_40 : tile<1x64x64xf16> -> tile<64x64xf16>
    %3 = mmaf %reshape_42, %reshape_43, %iterArg0 : tile<64x64xf16>, tile<64x64xf16>, tile<64x64xf32>
    continue %3 : tile<64x64xf32>
  }
  %reshape = reshape %for : tile<64x64xf32> -> tile<1x64x64xf32>
  %1 = ftof %reshape  : tile<1x64x64xf32> -> tile<1x64x64xf16>
  %pview_39 = make_partition_view %tview_30 : partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>
  %2 = store_view_tko weak %1, %pview_39[%blockId_x, %blockId_y_32, %blockId_z_36] token = %0 : tile<1x64x64xf16>, partition_view<tile=(1x64x64), tensor_view<?x?x?xf16, strides=[?,?,1]>>, tile<i32> -> token
  return
}
