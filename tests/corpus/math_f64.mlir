entry @math_f64_Kt1_A1f64_1t1_p16_A1f64_1t1_p16_A1f64_1t1_p16_A1f64_1t1_p16_A1f64_1t1_p16_A1f64_1t1_p16(%arg0: tile<ptr<f64>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f64>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<f64>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<f64>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<ptr<f64>>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<f64>>, %arg16: tile<i32>, %arg17: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f64>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f64>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<f64>>
  %assume_2 = assume div_by<16>, %arg9 : tile<ptr<f64>>
  %assume_3 = assume div_by<16>, %arg12 : tile<ptr<f64>>
  %assume_4 = assume div_by<16>, %arg15 : tile<ptr<f64>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_1_i32_6 = constant <i32: 1> : tile<i32>
  %cst_1_i32_7 = constant <i32: 1> : tile<i32>
  %cst_1_i32_8 = constant <i32: 1> : tile<i32>
  %cst_1_i32_9 = constant <i32: 1> : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_10], strides = [1] : tile<i32> -> tensor_view<?xf64, strides=[1]>
  %assume_11 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_12 = make_tensor_view %assume_0, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xf64, strides=[1]>
  %assume_13 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_14 = make_tensor_view %assume_1, shape = [%assume_13], strides = [1] : tile<i32> -> tensor_view<?xf64, strides=[1]>
  %assume_15 = assume bounded<0, ?>, %arg10 : tile<i32>
  %tview_16 = make_tensor_view %assume_2, shape = [%assume_15], strides = [1] : tile<i32> -> tensor_view<?xf64, strides=[1]>
  %assume_17 = assume bounded<0, ?>, %arg13 : tile<i32>
  %tview_18 = make_tensor_view %assume_3, shape = [%assume_17], strides = [1] : tile<i32> -> tensor_view<?xf64, strides=[1]>
  %assume_19 = assume bounded<0, ?>, %arg16 : tile<i32>
  %tview_20 = make_tensor_view %assume_4, shape = [%assume_19], strides = [1] : tile<i32> -> tensor_view<?xf64, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(128), padding_value = zero, tensor_view<?xf64, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), padding_value = zero, tensor_view<?xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
  %pview_21 = make_partition_view %tview_12 : partition_view<tile=(128), padding_value = zero, tensor_view<?xf64, strides=[1]>>
  %tile_22, %result_token_23 = load_view_tko weak %pview_21[%blockId_x] token = %0 : partition_view<tile=(128), padding_value = zero, tensor_view<?xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
  %pview_24 = make_partition_view %tview_14 : partition_view<tile=(128), padding_value = zero, tensor_view<?xf64, strides=[1]>>
  %tile_25, %result_token_26 = load_view_tko weak %pview_24[%blockId_x] token = %0 : partition_view<tile=(128), padding_value = zero, tensor_view<?xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
  %1 = sinh %tile : tile<128xf64>
  %2 = tanh %tile  : tile<128xf64>
  %3 = mulf %1, %2  : tile<128xf64>
  %4 = cosh %tile : tile<128xf64>
  %5 = divf %3, %4  : tile<128xf64>
  %6 = negf %tile : tile<128xf64>
  %7 = exp %6  : tile<128xf64>
  %8 = mulf %5, %7  : tile<128xf64>
  %pview_27 = make_partition_view %tview_16 : partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>
  %9 = store_view_tko weak %8, %pview_27[%blockId_x] token = %0 : tile<128xf64>, partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>, tile<i32> -> token
  %10 = fpowf %tile_22, %tile : tile<128xf64>
  %11 = log %tile_22 : tile<128xf64>
  %12 = mulf %10, %11  : tile<128xf64>
  %13 = exp2 %tile : tile<128xf64>
  %14 = mulf %12, %13  : tile<128xf64>
  %15 = log2 %tile_22 : tile<128xf64>
  %16 = divf %14, %15  : tile<128xf64>
  %pview_28 = make_partition_view %tview_18 : partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>
  %17 = store_view_tko weak %16, %pview_28[%blockId_x] token = %0 : tile<128xf64>, partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>, tile<i32> -> token
  %18 = sin %tile_25 : tile<128xf64>
  %19 = cos %tile_22 : tile<128xf64>
  %20 = mulf %18, %19  : tile<128xf64>
  %21 = atan2 %tile, %tile_22 : tile<128xf64>
  %22 = mulf %20, %21  : tile<128xf64>
  %23 = tan %tile_25 : tile<128xf64>
  %24 = divf %22, %23  : tile<128xf64>
  %pview_29 = make_partition_view %tview_20 : partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>
  %25 = store_view_tko weak %24, %pview_29[%blockId_x] token = %0 : tile<128xf64>, partition_view<tile=(128), tensor_view<?xf64, strides=[1]>>, tile<i32> -> token
  return
}
