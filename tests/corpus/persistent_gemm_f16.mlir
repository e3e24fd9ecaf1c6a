entry @persistent_gemm_f16_Kt1_A2f16_1v8l0_2t1_p16_A2f16_1v8l0_2t1_p16_A2f32_1v4l0_2t1_p16_Si32(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
  %assume_0 = assume div_by<8>, %arg3 : tile<i32>
  %assume_1 = assume div_by<16>, %arg5 : tile<ptr<f16>>
  %assume_2 = assume div_by<8>, %arg8 : tile<i32>
  %assume_3 = assume div_by<16>, %arg10 : tile<ptr<f32>>
  %assume_4 = assume div_by<4>, %arg13 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_1_i32_6 = constant <i32: 1> : tile<i32>
  %assume_7 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<8>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_7, %assume_8], strides = [%assume_assume_assume, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %assume_9 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_assume_11 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_12 = assume div_by<8>, %assume_assume_11 : tile<i32>
  %tview_13 = make_tensor_view %assume_1, shape = [%assume_9, %assume_10], strides = [%assume_assume_assume_12, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %assume_14 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_15 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_assume_16 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_17 = assume div_by<4>, %assume_assume_16 : tile<i32>
  %tview_18 = make_tensor_view %assume_3, shape = [%assume_14, %assume_15], strides = [%assume_assume_assume_17, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %pview = make_partition_view %tview_18 : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
  %1:2 = get_index_space_shape %pview : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
  %pview_19 = make_partition_view %tview_18 : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
  %2:2 = get_index_space_shape %pview_19 : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
  %3 = muli %2#0, %1#1 : tile<i32>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %4 = cmpi less_than %1#1, %cst_0_i32, signed : tile<i32> -> tile<i1>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x64xf32>
  %cst_0_i32_20 = constant <i32: 0> : tile<i32>
  %cst_1_i32_21 = constant <i32: 1> : tile<i32>
  %pview_22 = make_partition_view %tview : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %pview_23 = make_partition_view %tview_13 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %pview_24 = make_partition_view %tview_18 : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
  %for = for %loopIdx in (%blockId_x to %3, step %gridSize_x) : tile<i32> iter_values(%iterArg0 = %0) -> (token) {
    %5 = divi %loopIdx, %1#1 signed rounding<negative_inf> : tile<i32>
    %6 = remi %loopIdx, %1#1 signed : tile<i32>
    %7 = cmpi less_than %6, %cst_0_i32, signed : tile<i32> -> tile<i1>
    %8 = xori %7, %4 : tile<i1>
    %9 = cmpi not_equal %6, %cst_0_i32, signed : tile<i32> -> tile<i1>
    %10 = andi %8, %9 : tile<i1>
    %11 = addi %6, %1#1 : tile<i32>
    %12 = select %10, %11, %6 : tile<i1>, tile<i32>
    %for_25 = for %loopIdx_26 in (%cst_0_i32_20 to %arg15, step %cst_1_i32_21) : tile<i32> iter_values(%iterArg0_27 = %cst_0_f32) -> (tile<64x64xf32>) {
      %tile, %result_token = load_view_tko weak %pview_22[%5, %loopIdx_26] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x32xf16>, token
      %tile_28, %result_token_29 = load_view_tko weak %pview_23[%loopIdx_26, %12] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x64xf16>, token
      %14 = mmaf %tile, %tile_28, %iterArg0_27 : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      continue %14 : tile<64x64xf32>
    }
    %13 = store_view_tko weak %for_25, %pview_24[%5, %12] token = %iterArg0 : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    continue %13 : token
  }
  return
}
