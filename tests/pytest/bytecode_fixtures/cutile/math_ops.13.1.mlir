entry @math_ops_Kt1_A1f32_1t1_p16_A1f32_1t1_p16_A1f32_1t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<f32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<i32>>, %arg10: tile<i32>, %arg11: tile<i32>) optimization_hints=<sm_90 = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<f32>>
  %assume_2 = assume div_by<16>, %arg9 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_1_i32_4 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_3_i64 = constant <i64: 3> : tile<64xi64>
  %cst_3_i32 = constant <i32: 3> : tile<64xi32>
  %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_6], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_7 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_8 = make_tensor_view %assume_0, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_9 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_10 = make_tensor_view %assume_1, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_11 = assume bounded<0, ?>, %arg10 : tile<i32>
  %tview_12 = make_tensor_view %assume_2, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
  %pview_13 = make_partition_view %tview_8 : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %tile_14, %result_token_15 = load_view_tko weak %pview_13[%blockId_x] token = %0 : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
  %1 = sin %tile : tile<64xf32>
  %2 = cos %tile_14 : tile<64xf32>
  %3 = addf %1, %2  : tile<64xf32>
  %4 = tan %tile : tile<64xf32>
  %5 = addf %3, %4  : tile<64xf32>
  %6 = sinh %tile_14 : tile<64xf32>
  %7 = addf %5, %6  : tile<64xf32>
  %8 = cosh %tile : tile<64xf32>
  %9 = addf %7, %8  : tile<64xf32>
  %10 = absf %tile_14 : tile<64xf32>
  %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
  %reshape = reshape %cst_1_f32 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<64xf32>
  %11 = addf %10, %bcast  : tile<64xf32>
  %12 = log2 %11 : tile<64xf32>
  %13 = addf %9, %12  : tile<64xf32>
  %14 = absf %tile : tile<64xf32>
  %15 = fpowf %14, %tile_14 : tile<64xf32>
  %16 = addf %13, %15  : tile<64xf32>
  %17 = ceil %tile : tile<64xf32>
  %18 = addf %16, %17  : tile<64xf32>
  %19 = absf %tile_14 : tile<64xf32>
  %20 = sqrt %19  : tile<64xf32>
  %21 = addf %18, %20  : tile<64xf32>
  %22 = remf %tile, %tile_14 : tile<64xf32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64xf32>
  %23 = cmpf less_than ordered %22, %cst_0_f32 : tile<64xf32> -> tile<64xi1>
  %24 = cmpf less_than ordered %tile_14, %cst_0_f32 : tile<64xf32> -> tile<64xi1>
  %25 = xori %23, %24 : tile<64xi1>
  %26 = cmpf not_equal unordered %22, %cst_0_f32 : tile<64xf32> -> tile<64xi1>
  %27 = andi %25, %26 : tile<64xi1>
  %28 = addf %22, %tile_14  : tile<64xf32>
  %29 = select %27, %28, %22 : tile<64xi1>, tile<64xf32>
  %30 = addf %21, %29  : tile<64xf32>
  %pview_16 = make_partition_view %tview_10 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
  %31 = store_view_tko weak %30, %pview_16[%blockId_x] token = %0 : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %32 = ftoi %tile signed  : tile<64xf32> -> tile<64xi32>
  %33 = exti %32 signed : tile<64xi32> -> tile<64xi64>
  %34 = muli %33, %cst_3_i64 : tile<64xi64>
  %35 = trunci %34 : tile<64xi64> -> tile<64xi16>
  %36 = exti %35 signed : tile<64xi16> -> tile<64xi32>
  %37 = divi %32, %cst_3_i32 signed rounding<negative_inf> : tile<64xi32>
  %38 = addi %37, %36 : tile<64xi32>
  %pview_17 = make_partition_view %tview_12 : partition_view<tile=(64), tensor_view<?xi32, strides=[1]>>
  %39 = store_view_tko weak %38, %pview_17[%blockId_x] token = %0 : tile<64xi32>, partition_view<tile=(64), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  return
}
