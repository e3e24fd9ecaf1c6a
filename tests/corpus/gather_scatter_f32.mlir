entry @gather_scatter_f32_Kt1_A1f32_1t1_p16_A1i32_1t1_p16_A1i32_1t1_p16_A1f32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<f32>>, %arg10: tile<i32>, %arg11: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i32>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i32>>
  %assume_2 = assume div_by<16>, %arg9 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_1_i64 = constant <i64: 1> : tile<128xi64>
  %cst_1_i64_4 = constant <i64: 1> : tile<128xi64>
  %assume_5 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview = make_tensor_view %assume_0, shape = [%assume_6], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_7 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_8 = make_tensor_view %assume_1, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_9 = assume bounded<0, ?>, %arg10 : tile<i32>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(128), padding_value = zero, tensor_view<?xi32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), padding_value = zero, tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<128xi32>, token
  %pview_10 = make_partition_view %tview_8 : partition_view<tile=(128), padding_value = zero, tensor_view<?xi32, strides=[1]>>
  %tile_11, %result_token_12 = load_view_tko weak %pview_10[%blockId_x] token = %0 : partition_view<tile=(128), padding_value = zero, tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<128xi32>, token
  %cst_128_i32 = constant <i32: 128> : tile<i32>
  %1 = muli %blockId_x, %cst_128_i32 : tile<i32>
  %2 = iota : tile<128xi32>
  %reshape = reshape %1 : tile<i32> -> tile<1xi32>
  %bcast = broadcast %reshape : tile<1xi32> -> tile<128xi32>
  %3 = addi %bcast, %2 : tile<128xi32>
  %reshape_13 = reshape %assume_6 : tile<i32> -> tile<1xi32>
  %bcast_14 = broadcast %reshape_13 : tile<1xi32> -> tile<128xi32>
  %4 = cmpi less_than %3, %bcast_14, signed : tile<128xi32> -> tile<128xi1>
  %cst_7_f32 = constant <f32: 7.000000e+00> : tile<f32>
  %5 = exti %tile signed : tile<128xi32> -> tile<128xi64>
  %6 = exti %assume_5 signed : tile<i32> -> tile<i64>
  %reshape_15 = reshape %6 : tile<i64> -> tile<1xi64>
  %bcast_16 = broadcast %reshape_15 : tile<1xi64> -> tile<128xi64>
  %7 = cmpi less_than %5, %bcast_16, unsigned : tile<128xi64> -> tile<128xi1>
  %8 = muli %5, %cst_1_i64 : tile<128xi64>
  %reshape_17 = reshape %assume : tile<ptr<f32>> -> tile<1xptr<f32>>
  %bcast_18 = broadcast %reshape_17 : tile<1xptr<f32>> -> tile<128xptr<f32>>
  %9 = offset %bcast_18, %8 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
  %reshape_19 = reshape %cst_7_f32 : tile<f32> -> tile<1xf32>
  %bcast_20 = broadcast %reshape_19 : tile<1xf32> -> tile<128xf32>
  %result, %result_token_21 = load_ptr_tko weak %9, %7, %bcast_20 token=%0 : tile<128xptr<f32>>, tile<128xi1>, tile<128xf32> -> tile<128xf32>, token
  %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
  %reshape_22 = reshape %cst_2_f32 : tile<f32> -> tile<1xf32>
  %bcast_23 = broadcast %reshape_22 : tile<1xf32> -> tile<128xf32>
  %10 = mulf %result, %bcast_23  : tile<128xf32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<f32>
  %reshape_24 = reshape %cst_0_f32 : tile<f32> -> tile<1xf32>
  %bcast_25 = broadcast %reshape_24 : tile<1xf32> -> tile<128xf32>
  %11 = cmpf greater_than ordered %10, %bcast_25 : tile<128xf32> -> tile<128xi1>
  %12 = andi %11, %4 : tile<128xi1>
  %13 = exti %tile_11 signed : tile<128xi32> -> tile<128xi64>
  %14 = exti %assume_9 signed : tile<i32> -> tile<i64>
  %reshape_26 = reshape %14 : tile<i64> -> tile<1xi64>
  %bcast_27 = broadcast %reshape_26 : tile<1xi64> -> tile<128xi64>
  %15 = cmpi less_than %13, %bcast_27, unsigned : tile<128xi64> -> tile<128xi1>
  %16 = muli %13, %cst_1_i64_4 : tile<128xi64>
  %reshape_28 = reshape %assume_2 : tile<ptr<f32>> -> tile<1xptr<f32>>
  %bcast_29 = broadcast %reshape_28 : tile<1xptr<f32>> -> tile<128xptr<f32>>
  %17 = offset %bcast_29, %16 : tile<128xptr<f32>>, tile<128xi64> -> tile<128xptr<f32>>
  %18 = andi %15, %12 : tile<128xi1>
  %19 = store_ptr_tko weak %17, %10, %18 token=%0 : tile<128xptr<f32>>, tile<128xf32>, tile<128xi1> -> token
  return
}
