entry @spare_blocks_f32_Kt1_A2f32_1i16l0_2i64t1_p16_A2f32_1i16l0_2i64t1_p16_A1f32_1t1_p16_A1f32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<ptr<f32>>, %arg14: tile<i32>, %arg15: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg1 : tile<i32>
  %assume_1 = assume div_by<64>, %arg2 : tile<i32>
  %assume_2 = assume div_by<16>, %arg5 : tile<ptr<f32>>
  %assume_3 = assume div_by<16>, %arg6 : tile<i32>
  %assume_4 = assume div_by<64>, %arg7 : tile<i32>
  %assume_5 = assume div_by<16>, %arg10 : tile<ptr<f32>>
  %assume_6 = assume div_by<16>, %arg13 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_7 = constant <i32: 1> : tile<i32>
  %cst_1_i32_8 = constant <i32: 1> : tile<i32>
  %cst_1_i32_9 = constant <i32: 1> : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
  %assume_assume_10 = assume bounded<0, ?>, %assume_1 : tile<i32>
  %assume_assume_assume_11 = assume div_by<64>, %assume_assume_10 : tile<i32>
  %assume_12 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_assume_assume, %assume_assume_assume_11], strides = [%assume_12, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_assume_13 = assume bounded<0, ?>, %assume_3 : tile<i32>
  %assume_assume_assume_14 = assume div_by<16>, %assume_assume_13 : tile<i32>
  %assume_assume_15 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_16 = assume div_by<64>, %assume_assume_15 : tile<i32>
  %assume_17 = assume bounded<0, ?>, %arg8 : tile<i32>
  %tview_18 = make_tensor_view %assume_2, shape = [%assume_assume_assume_14, %assume_assume_assume_16], strides = [%assume_17, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_19 = assume bounded<0, ?>, %arg11 : tile<i32>
  %tview_20 = make_tensor_view %assume_5, shape = [%assume_19], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_21 = assume bounded<0, ?>, %arg14 : tile<i32>
  %tview_22 = make_tensor_view %assume_6, shape = [%assume_21], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x64xf32>, token
  %cst_0_i32_23 = constant <i32: 0> : tile<i32>
  %pview_24 = make_partition_view %tview : partition_view<tile=(16x64), padding_value = neg_inf, tensor_view<?x?xf32, strides=[?,1]>>
  %tile_25, %result_token_26 = load_view_tko weak %pview_24[%blockId_x, %cst_0_i32_23] token = %0 : partition_view<tile=(16x64), padding_value = neg_inf, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x64xf32>, token
  %cst_0_i32_27 = constant <i32: 0> : tile<i32>
  %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
  %reshape = reshape %cst_2_f32 : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape : tile<1x1xf32> -> tile<16x64xf32>
  %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
  %reshape_28 = reshape %cst_1_f32 : tile<f32> -> tile<1x1xf32>
  %bcast_29 = broadcast %reshape_28 : tile<1x1xf32> -> tile<16x64xf32>
  %1 = fma %tile, %bcast, %bcast_29  : tile<16x64xf32>
  %pview_30 = make_partition_view %tview_18 : partition_view<tile=(16x64), tensor_view<?x?xf32, strides=[?,1]>>
  %2 = store_view_tko weak %1, %pview_30[%blockId_x, %cst_0_i32_27] token = %0 : tile<16x64xf32>, partition_view<tile=(16x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  %reduce = reduce %tile dim=1 identities=[0.000000e+00 : f32] : tile<16x64xf32> -> tile<16xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %5 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %5 : tile<f32>
  }
  %pview_31 = make_partition_view %tview_20 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %3 = store_view_tko weak %reduce, %pview_31[%blockId_x] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %reduce_32 = reduce %tile_25 dim=1 identities=[0xFF800000 : f32] : tile<16x64xf32> -> tile<16xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %5 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
    yield %5 : tile<f32>
  }
  %pview_33 = make_partition_view %tview_22 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %4 = store_view_tko weak %reduce_32, %pview_33[%blockId_x] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
