entry @grid_stride_f16_2d_Kt1_A2f16_1v8l0_2t1_p16_A2i32_1v4l0_2t1_p16_A2f16_1v8l0_2t1_p16_A2f16_1v8l0_2t1_p16_Sf32(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<i32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<f16>>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<f32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
  %assume_0 = assume div_by<8>, %arg3 : tile<i32>
  %assume_1 = assume div_by<16>, %arg5 : tile<ptr<i32>>
  %assume_2 = assume div_by<4>, %arg8 : tile<i32>
  %assume_3 = assume div_by<16>, %arg10 : tile<ptr<f16>>
  %assume_4 = assume div_by<8>, %arg13 : tile<i32>
  %assume_5 = assume div_by<16>, %arg15 : tile<ptr<f16>>
  %assume_6 = assume div_by<8>, %arg18 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_7 = constant <i32: 1> : tile<i32>
  %cst_1_i32_8 = constant <i32: 1> : tile<i32>
  %cst_1_i32_9 = constant <i32: 1> : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_11 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<8>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_10, %assume_11], strides = [%assume_assume_assume, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %assume_12 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_13 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_assume_14 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_15 = assume div_by<4>, %assume_assume_14 : tile<i32>
  %tview_16 = make_tensor_view %assume_1, shape = [%assume_12, %assume_13], strides = [%assume_assume_assume_15, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
  %assume_17 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_18 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_assume_19 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_20 = assume div_by<8>, %assume_assume_19 : tile<i32>
  %tview_21 = make_tensor_view %assume_3, shape = [%assume_17, %assume_18], strides = [%assume_assume_assume_20, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %assume_22 = assume bounded<0, ?>, %arg16 : tile<i32>
  %assume_23 = assume bounded<0, ?>, %arg17 : tile<i32>
  %assume_assume_24 = assume bounded<0, ?>, %assume_6 : tile<i32>
  %assume_assume_assume_25 = assume div_by<8>, %assume_assume_24 : tile<i32>
  %tview_26 = make_tensor_view %assume_5, shape = [%assume_22, %assume_23], strides = [%assume_assume_assume_25, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(16x64), tensor_view<?x?xf16, strides=[?,1]>>
  %1:2 = get_index_space_shape %pview : partition_view<tile=(16x64), tensor_view<?x?xf16, strides=[?,1]>> -> tile<i32>
  %blockId_x_27, %blockId_y_28, %blockId_z_29 = get_tile_block_id : tile<i32>
  %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
  %pview_30 = make_partition_view %tview : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %cst_16_f32 = constant <f32: 1.600000e+01> : tile<f32>
  %reshape = reshape %cst_16_f32 : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape : tile<1x1xf32> -> tile<16x64xf32>
  %pview_31 = make_partition_view %tview_16 : partition_view<tile=(16x64), tensor_view<?x?xi32, strides=[?,1]>>
  %cst_f16 = constant <f16: 6.250000e-02> : tile<f16>
  %reshape_32 = reshape %cst_f16 : tile<f16> -> tile<1x1xf16>
  %bcast_33 = broadcast %reshape_32 : tile<1x1xf16> -> tile<16x64xf16>
  %pview_34 = make_partition_view %tview_21 : partition_view<tile=(16x64), tensor_view<?x?xf16, strides=[?,1]>>
  %reshape_35 = reshape %arg20 : tile<f32> -> tile<1x1xf32>
  %bcast_36 = broadcast %reshape_35 : tile<1x1xf32> -> tile<16x64xf32>
  %pview_37 = make_partition_view %tview_26 : partition_view<tile=(16x64), tensor_view<?x?xf16, strides=[?,1]>>
  for %loopIdx in (%blockId_y_28 to %1#1, step %gridSize_y) : tile<i32> {
    %tile, %result_token = load_view_tko weak %pview_30[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<16x64xf16>, token
    %2 = ftof %tile  : tile<16x64xf16> -> tile<16x64xf32>
    %3 = mulf %2, %bcast  : tile<16x64xf32>
    %4 = ftoi %3 signed  : tile<16x64xf32> -> tile<16x64xi32>
    %5 = store_view_tko weak %4, %pview_31[%blockId_x, %loopIdx] token = %0 : tile<16x64xi32>, partition_view<tile=(16x64), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> token
    %6 = itof %4 signed  : tile<16x64xi32> -> tile<16x64xf16>
    %7 = negf %6 : tile<16x64xf16>
    %8 = fma %7, %bcast_33, %tile  : tile<16x64xf16>
    %9 = store_view_tko weak %8, %pview_34[%blockId_x, %loopIdx] token = %0 : tile<16x64xf16>, partition_view<tile=(16x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
    %10 = exp2 %2 flush_to_zero : tile<16x64xf32>
    %11 = mulf %10, %bcast_36  : tile<16x64xf32>
    %12 = ftof %11  : tile<16x64xf32> -> tile<16x64xf16>
    %13 = store_view_tko weak %12, %pview_37[%blockId_x, %loopIdx] token = %0 : tile<16x64xf16>, partition_view<tile=(16x64), tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
  }
  return
}
