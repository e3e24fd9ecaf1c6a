entry @layernorm_f32_2d_Kt1_A2f32_1l0_2t1_p16_A1f32_1t1_p16_A1f32_1t1_p16_A2f32_1l0_2t1_p16_Sf32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<ptr<f32>>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<ptr<f32>>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<f32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg8 : tile<ptr<f32>>
  %assume_2 = assume div_by<16>, %arg11 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_1_i32_4 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_7 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_6, %assume_7], strides = [%assume_8, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_9 = assume bounded<0, ?>, %arg6 : tile<i32>
  %tview_10 = make_tensor_view %assume_0, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_11 = assume bounded<0, ?>, %arg9 : tile<i32>
  %tview_12 = make_tensor_view %assume_1, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_13 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_14 = assume bounded<0, ?>, %arg13 : tile<i32>
  %assume_15 = assume bounded<0, ?>, %arg14 : tile<i32>
  %tview_16 = make_tensor_view %assume_2, shape = [%assume_13, %assume_14], strides = [%assume_15, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(8x256), tensor_view<?x?xf32, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(8x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<8x256xf32>, token
  %reduce = reduce %tile dim=1 identities=[0.000000e+00 : f32] : tile<8x256xf32> -> tile<8xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %9 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %9 : tile<f32>
  }
  %reshape = reshape %reduce : tile<8xf32> -> tile<8x1xf32>
  %cst_f32 = constant <f32: 3.906250e-03> : tile<f32>
  %reshape_17 = reshape %cst_f32 : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape_17 : tile<1x1xf32> -> tile<8x1xf32>
  %1 = mulf %reshape, %bcast  : tile<8x1xf32>
  %bcast_18 = broadcast %1 : tile<8x1xf32> -> tile<8x256xf32>
  %2 = subf %tile, %bcast_18  : tile<8x256xf32>
  %3 = mulf %2, %2  : tile<8x256xf32>
  %reduce_19 = reduce %3 dim=1 identities=[0.000000e+00 : f32] : tile<8x256xf32> -> tile<8xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %9 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %9 : tile<f32>
  }
  %reshape_20 = reshape %reduce_19 : tile<8xf32> -> tile<8x1xf32>
  %cst_f32_21 = constant <f32: 3.906250e-03> : tile<f32>
  %reshape_22 = reshape %cst_f32_21 : tile<f32> -> tile<1x1xf32>
  %bcast_23 = broadcast %reshape_22 : tile<1x1xf32> -> tile<8x1xf32>
  %cst_0_i32_24 = constant <i32: 0> : tile<i32>
  %pview_25 = make_partition_view %tview_10 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
  %tile_26, %result_token_27 = load_view_tko weak %pview_25[%cst_0_i32_24] token = %0 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
  %reshape_28 = reshape %tile_26 : tile<256xf32> -> tile<1x256xf32>
  %cst_0_i32_29 = constant <i32: 0> : tile<i32>
  %pview_30 = make_partition_view %tview_12 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
  %tile_31, %result_token_32 = load_view_tko weak %pview_30[%cst_0_i32_29] token = %0 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
  %reshape_33 = reshape %tile_31 : tile<256xf32> -> tile<1x256xf32>
  %cst_0_i32_34 = constant <i32: 0> : tile<i32>
  %reshape_35 = reshape %arg16 : tile<f32> -> tile<1x1xf32>
  %bcast_36 = broadcast %reshape_35 : tile<1x1xf32> -> tile<8x1xf32>
  %4 = fma %reshape_20, %bcast_23, %bcast_36  : tile<8x1xf32>
  %5 = rsqrt %4 : tile<8x1xf32>
  %bcast_37 = broadcast %5 : tile<8x1xf32> -> tile<8x256xf32>
  %6 = mulf %2, %bcast_37  : tile<8x256xf32>
  %bcast_38 = broadcast %reshape_28 : tile<1x256xf32> -> tile<8x256xf32>
  %bcast_39 = broadcast %reshape_33 : tile<1x256xf32> -> tile<8x256xf32>
  %7 = fma %6, %bcast_38, %bcast_39  : tile<8x256xf32>
  %pview_40 = make_partition_view %tview_16 : partition_view<tile=(8x256), tensor_view<?x?xf32, strides=[?,1]>>
  %8 = store_view_tko weak %7, %pview_40[%blockId_x, %cst_0_i32_34] token = %0 : tile<8x256xf32>, partition_view<tile=(8x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
