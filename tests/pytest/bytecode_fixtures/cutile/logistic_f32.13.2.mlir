entry @logistic_f32_Kt1_A1f32_1t1_p8_A1f32_1t1_p8_A1f32_1t1_p8_A1f32_1t1_p8_Sf32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<f32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<f32>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<f32>) optimization_hints=<sm_90 = {}> {
  %0 = make_token : token
  %assume = assume div_by<8>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<8>, %arg3 : tile<ptr<f32>>
  %assume_1 = assume div_by<8>, %arg6 : tile<ptr<f32>>
  %assume_2 = assume div_by<8>, %arg9 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_1_i32_4 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_6], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_7 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_8 = make_tensor_view %assume_0, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_9 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_10 = make_tensor_view %assume_1, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_11 = assume bounded<0, ?>, %arg10 : tile<i32>
  %tview_12 = make_tensor_view %assume_2, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
  %reshape = reshape %arg12 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
  %1 = divf %tile, %bcast  : tile<128xf32>
  %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
  %cst_1_f32_13 = constant <f32: 1.000000e+00> : tile<f32>
  %2 = negf %1 : tile<128xf32>
  %3 = exp %2  : tile<128xf32>
  %reshape_14 = reshape %cst_1_f32_13 : tile<f32> -> tile<1xf32>
  %bcast_15 = broadcast %reshape_14 : tile<1xf32> -> tile<128xf32>
  %4 = addf %bcast_15, %3  : tile<128xf32>
  %reshape_16 = reshape %cst_1_f32 : tile<f32> -> tile<1xf32>
  %bcast_17 = broadcast %reshape_16 : tile<1xf32> -> tile<128xf32>
  %5 = divf %bcast_17, %4  : tile<128xf32>
  %pview_18 = make_partition_view %tview_8 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %6 = store_view_tko weak %5, %pview_18[%blockId_x] token = %0 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<f32>
  %reshape_19 = reshape %cst_0_f32 : tile<f32> -> tile<1xf32>
  %bcast_20 = broadcast %reshape_19 : tile<1xf32> -> tile<128xf32>
  %7 = maxf %1, %bcast_20 : tile<128xf32>
  %cst_1_f32_21 = constant <f32: 1.000000e+00> : tile<f32>
  %8 = absf %1 : tile<128xf32>
  %9 = negf %8 : tile<128xf32>
  %10 = exp %9  : tile<128xf32>
  %reshape_22 = reshape %cst_1_f32_21 : tile<f32> -> tile<1xf32>
  %bcast_23 = broadcast %reshape_22 : tile<1xf32> -> tile<128xf32>
  %11 = addf %bcast_23, %10  : tile<128xf32>
  %12 = log %11 : tile<128xf32>
  %13 = addf %7, %12  : tile<128xf32>
  %14 = subf %1, %13  : tile<128xf32>
  %pview_24 = make_partition_view %tview_10 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %15 = store_view_tko weak %14, %pview_24[%blockId_x] token = %0 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %cst_4_f32 = constant <f32: 4.000000e+00> : tile<f32>
  %reshape_25 = reshape %cst_4_f32 : tile<f32> -> tile<1xf32>
  %bcast_26 = broadcast %reshape_25 : tile<1xf32> -> tile<128xf32>
  %16 = mulf %tile, %bcast_26  : tile<128xf32>
  %17 = floor %16 : tile<128xf32>
  %cst_f32 = constant <f32: 2.500000e-01> : tile<f32>
  %reshape_27 = reshape %cst_f32 : tile<f32> -> tile<1xf32>
  %bcast_28 = broadcast %reshape_27 : tile<1xf32> -> tile<128xf32>
  %18 = mulf %17, %bcast_28  : tile<128xf32>
  %pview_29 = make_partition_view %tview_12 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %19 = store_view_tko weak %18, %pview_29[%blockId_x] token = %0 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
