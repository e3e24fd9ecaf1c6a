entry @attention_f16_Kt1_A2f16_1v8l0_2t1_p16_A2f16_1v8l0_2t1_p16_A2f16_1v8l0_2t1_p16_A2f32_1v4l0_2t1_p16(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f16>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<f32>>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
  %assume_0 = assume div_by<8>, %arg3 : tile<i32>
  %assume_1 = assume div_by<16>, %arg5 : tile<ptr<f16>>
  %assume_2 = assume div_by<8>, %arg8 : tile<i32>
  %assume_3 = assume div_by<16>, %arg10 : tile<ptr<f16>>
  %assume_4 = assume div_by<8>, %arg13 : tile<i32>
  %assume_5 = assume div_by<16>, %arg15 : tile<ptr<f32>>
  %assume_6 = assume div_by<4>, %arg18 : tile<i32>
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
  %assume_assume_assume_15 = assume div_by<8>, %assume_assume_14 : tile<i32>
  %tview_16 = make_tensor_view %assume_1, shape = [%assume_12, %assume_13], strides = [%assume_assume_assume_15, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %assume_17 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_18 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_assume_19 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_20 = assume div_by<8>, %assume_assume_19 : tile<i32>
  %tview_21 = make_tensor_view %assume_3, shape = [%assume_17, %assume_18], strides = [%assume_assume_assume_20, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
  %assume_22 = assume bounded<0, ?>, %arg16 : tile<i32>
  %assume_23 = assume bounded<0, ?>, %arg17 : tile<i32>
  %assume_assume_24 = assume bounded<0, ?>, %assume_6 : tile<i32>
  %assume_assume_assume_25 = assume div_by<4>, %assume_assume_24 : tile<i32>
  %tview_26 = make_tensor_view %assume_5, shape = [%assume_22, %assume_23], strides = [%assume_assume_assume_25, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(32x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(32x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<32x32xf16>, token
  %cst_0_i32_27 = constant <i32: 0> : tile<i32>
  %cst_0_i32_28 = constant <i32: 0> : tile<i32>
  %pview_29 = make_partition_view %tview_16 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %tile_30, %result_token_31 = load_view_tko weak %pview_29[%cst_0_i32_27, %cst_0_i32_28] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x32xf16>, token
  %cst_0_i32_32 = constant <i32: 0> : tile<i32>
  %cst_0_i32_33 = constant <i32: 0> : tile<i32>
  %pview_34 = make_partition_view %tview_21 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
  %tile_35, %result_token_36 = load_view_tko weak %pview_34[%cst_0_i32_32, %cst_0_i32_33] token = %0 : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x32xf16>, token
  %1 = permute %tile_30 [1, 0] : tile<64x32xf16> -> tile<32x64xf16>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<32x64xf32>
  %2 = mmaf %tile, %1, %cst_0_f32 : tile<32x32xf16>, tile<32x64xf16>, tile<32x64xf32>
  %reduce = reduce %2 dim=1 identities=[0xFF800000 : f32] : tile<32x64xf32> -> tile<32xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %9 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
    yield %9 : tile<f32>
  }
  %reshape = reshape %reduce : tile<32xf32> -> tile<32x1xf32>
  %bcast = broadcast %reshape : tile<32x1xf32> -> tile<32x64xf32>
  %3 = subf %2, %bcast  : tile<32x64xf32>
  %4 = exp %3  : tile<32x64xf32>
  %reduce_37 = reduce %4 dim=1 identities=[0.000000e+00 : f32] : tile<32x64xf32> -> tile<32xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %9 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %9 : tile<f32>
  }
  %reshape_38 = reshape %reduce_37 : tile<32xf32> -> tile<32x1xf32>
  %bcast_39 = broadcast %reshape_38 : tile<32x1xf32> -> tile<32x64xf32>
  %5 = divf %4, %bcast_39  : tile<32x64xf32>
  %6 = ftof %5  : tile<32x64xf32> -> tile<32x64xf16>
  %cst_0_i32_40 = constant <i32: 0> : tile<i32>
  %cst_0_f32_41 = constant <f32: 0.000000e+00> : tile<32x32xf32>
  %7 = mmaf %6, %tile_35, %cst_0_f32_41 : tile<32x64xf16>, tile<64x32xf16>, tile<32x32xf32>
  %pview_42 = make_partition_view %tview_26 : partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>
  %8 = store_view_tko weak %7, %pview_42[%blockId_x, %cst_0_i32_40] token = %0 : tile<32x32xf32>, partition_view<tile=(32x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
