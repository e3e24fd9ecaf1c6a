entry @histogram_atomics_Kt1_A1i32_1t1_p16_A1f32_1t1_p16_A1i32_1t1_p16_A1f32_1t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<f32>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<ptr<i32>>, %arg13: tile<i32>, %arg14: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<i32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i32>>
  %assume_2 = assume div_by<16>, %arg9 : tile<ptr<f32>>
  %assume_3 = assume div_by<16>, %arg12 : tile<ptr<i32>>
  %cst_1_i64 = constant <i64: 1> : tile<256xi64>
  %cst_-1_i32 = constant <i32: -1> : tile<256xi32>
  %cst_1_i64_4 = constant <i64: 1> : tile<256xi64>
  %cst_1_i64_5 = constant <i64: 1> : tile<256xi64>
  %cst_1_i32 = constant <i32: 1> : tile<256xi32>
  %cst_1_i64_6 = constant <i64: 1> : tile<256xi64>
  %cst_1_i64_7 = constant <i64: 1> : tile<256xi64>
  %assume_8 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_9 = assume bounded<0, ?>, %arg4 : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_11 = assume bounded<0, ?>, %arg10 : tile<i32>
  %assume_12 = assume bounded<0, ?>, %arg13 : tile<i32>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_256_i32 = constant <i32: 256> : tile<i32>
  %1 = muli %blockId_x, %cst_256_i32 : tile<i32>
  %2 = iota : tile<256xi32>
  %reshape = reshape %1 : tile<i32> -> tile<1xi32>
  %bcast = broadcast %reshape : tile<1xi32> -> tile<256xi32>
  %3 = addi %bcast, %2 : tile<256xi32>
  %4 = exti %3 signed : tile<256xi32> -> tile<256xi64>
  %5 = exti %assume_8 signed : tile<i32> -> tile<i64>
  %reshape_13 = reshape %5 : tile<i64> -> tile<1xi64>
  %bcast_14 = broadcast %reshape_13 : tile<1xi64> -> tile<256xi64>
  %6 = cmpi less_than %4, %bcast_14, unsigned : tile<256xi64> -> tile<256xi1>
  %7 = muli %4, %cst_1_i64 : tile<256xi64>
  %reshape_15 = reshape %assume : tile<ptr<i32>> -> tile<1xptr<i32>>
  %bcast_16 = broadcast %reshape_15 : tile<1xptr<i32>> -> tile<256xptr<i32>>
  %8 = offset %bcast_16, %7 : tile<256xptr<i32>>, tile<256xi64> -> tile<256xptr<i32>>
  %result, %result_token = load_ptr_tko weak %8, %6, %cst_-1_i32 token=%0 : tile<256xptr<i32>>, tile<256xi1>, tile<256xi32> -> tile<256xi32>, token
  %9 = join_tokens %0, %result_token : token
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<f32>
  %10 = exti %3 signed : tile<256xi32> -> tile<256xi64>
  %11 = exti %assume_9 signed : tile<i32> -> tile<i64>
  %reshape_17 = reshape %11 : tile<i64> -> tile<1xi64>
  %bcast_18 = broadcast %reshape_17 : tile<1xi64> -> tile<256xi64>
  %12 = cmpi less_than %10, %bcast_18, unsigned : tile<256xi64> -> tile<256xi1>
  %13 = muli %10, %cst_1_i64_4 : tile<256xi64>
  %reshape_19 = reshape %assume_0 : tile<ptr<f32>> -> tile<1xptr<f32>>
  %bcast_20 = broadcast %reshape_19 : tile<1xptr<f32>> -> tile<256xptr<f32>>
  %14 = offset %bcast_20, %13 : tile<256xptr<f32>>, tile<256xi64> -> tile<256xptr<f32>>
  %reshape_21 = reshape %cst_0_f32 : tile<f32> -> tile<1xf32>
  %bcast_22 = broadcast %reshape_21 : tile<1xf32> -> tile<256xf32>
  %result_23, %result_token_24 = load_ptr_tko weak %14, %12, %bcast_22 token=%0 : tile<256xptr<f32>>, tile<256xi1>, tile<256xf32> -> tile<256xf32>, token
  %15 = join_tokens %0, %result_token_24 : token
  %16 = exti %result signed : tile<256xi32> -> tile<256xi64>
  %17 = exti %assume_10 signed : tile<i32> -> tile<i64>
  %reshape_25 = reshape %17 : tile<i64> -> tile<1xi64>
  %bcast_26 = broadcast %reshape_25 : tile<1xi64> -> tile<256xi64>
  %18 = cmpi less_than %16, %bcast_26, unsigned : tile<256xi64> -> tile<256xi1>
  %19 = muli %16, %cst_1_i64_5 : tile<256xi64>
  %reshape_27 = reshape %assume_1 : tile<ptr<i32>> -> tile<1xptr<i32>>
  %bcast_28 = broadcast %reshape_27 : tile<1xptr<i32>> -> tile<256xptr<i32>>
  %20 = offset %bcast_28, %19 : tile<256xptr<i32>>, tile<256xi64> -> tile<256xptr<i32>>
  %result_29, %result_token_30 = atomic_rmw_tko relaxed device %20, add, %cst_1_i32, %18 token=%0 : tile<256xptr<i32>>, tile<256xi32>, tile<256xi1> -> tile<256xi32>, token
  %21 = exti %result signed : tile<256xi32> -> tile<256xi64>
  %22 = exti %assume_11 signed : tile<i32> -> tile<i64>
  %reshape_31 = reshape %22 : tile<i64> -> tile<1xi64>
  %bcast_32 = broadcast %reshape_31 : tile<1xi64> -> tile<256xi64>
  %23 = cmpi less_than %21, %bcast_32, unsigned : tile<256xi64> -> tile<256xi1>
  %24 = muli %21, %cst_1_i64_6 : tile<256xi64>
  %reshape_33 = reshape %assume_2 : tile<ptr<f32>> -> tile<1xptr<f32>>
  %bcast_34 = broadcast %reshape_33 : tile<1xptr<f32>> -> tile<256xptr<f32>>
  %25 = offset %bcast_34, %24 : tile<256xptr<f32>>, tile<256xi64> -> tile<256xptr<f32>>
  %26 = join_tokens %0, %9, %15, %result_token_30 : token
  %result_35, %result_token_36 = atomic_rmw_tko acq_rel device %25, addf, %result_23, %23 token=%26 : tile<256xptr<f32>>, tile<256xf32>, tile<256xi1> -> tile<256xf32>, token
  %27 = exti %result signed : tile<256xi32> -> tile<256xi64>
  %28 = exti %assume_12 signed : tile<i32> -> tile<i64>
  %reshape_37 = reshape %28 : tile<i64> -> tile<1xi64>
  %bcast_38 = broadcast %reshape_37 : tile<1xi64> -> tile<256xi64>
  %29 = cmpi less_than %27, %bcast_38, unsigned : tile<256xi64> -> tile<256xi1>
  %30 = muli %27, %cst_1_i64_7 : tile<256xi64>
  %reshape_39 = reshape %assume_3 : tile<ptr<i32>> -> tile<1xptr<i32>>
  %bcast_40 = broadcast %reshape_39 : tile<1xptr<i32>> -> tile<256xptr<i32>>
  %31 = offset %bcast_40, %30 : tile<256xptr<i32>>, tile<256xi64> -> tile<256xptr<i32>>
  %32 = join_tokens %0, %9, %15, %result_token_30, %result_token_36 : token
  %result_41, %result_token_42 = atomic_rmw_tko acq_rel device %31, max, %3, %29 token=%32 : tile<256xptr<i32>>, tile<256xi32>, tile<256xi1> -> tile<256xi32>, token
  return
}
