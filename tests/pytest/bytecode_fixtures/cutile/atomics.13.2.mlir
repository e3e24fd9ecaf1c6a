entry @atomics_Kt1_A1i32_1t1_p16_A1f32_1t1_p16_A1f32_1t1_p16(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<f32>>, %arg7: tile<i32>, %arg8: tile<i32>) optimization_hints=<sm_90 = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<i32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<f32>>
  %cst_1_i64 = constant <i64: 1> : tile<64xi64>
  %cst_1_i32 = constant <i32: 1> : tile<64xi32>
  %cst_1_i32_2 = constant <i32: 1> : tile<64xi32>
  %cst_1_i64_3 = constant <i64: 1> : tile<64xi64>
  %cst_2_i32 = constant <i32: 2> : tile<64xi32>
  %cst_1_i64_4 = constant <i64: 1> : tile<64xi64>
  %cst_1_i64_5 = constant <i64: 1> : tile<64xi64>
  %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_7 = assume bounded<0, ?>, %arg4 : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg7 : tile<i32>
  %1 = iota : tile<64xi32>
  %2 = exti %1 signed : tile<64xi32> -> tile<64xi64>
  %3 = exti %assume_6 signed : tile<i32> -> tile<i64>
  %reshape = reshape %3 : tile<i64> -> tile<1xi64>
  %bcast = broadcast %reshape : tile<1xi64> -> tile<64xi64>
  %4 = cmpi less_than %2, %bcast, unsigned : tile<64xi64> -> tile<64xi1>
  %5 = muli %2, %cst_1_i64 : tile<64xi64>
  %reshape_9 = reshape %assume : tile<ptr<i32>> -> tile<1xptr<i32>>
  %bcast_10 = broadcast %reshape_9 : tile<1xptr<i32>> -> tile<64xptr<i32>>
  %6 = offset %bcast_10, %5 : tile<64xptr<i32>>, tile<64xi64> -> tile<64xptr<i32>>
  %result, %result_token = atomic_rmw_tko acq_rel device %6, add, %cst_1_i32, %4 token=%0 : tile<64xptr<i32>>, tile<64xi32>, tile<64xi1> -> tile<64xi32>, token
  %7 = addi %result, %cst_1_i32_2 : tile<64xi32>
  %8 = exti %1 signed : tile<64xi32> -> tile<64xi64>
  %9 = exti %assume_6 signed : tile<i32> -> tile<i64>
  %reshape_11 = reshape %9 : tile<i64> -> tile<1xi64>
  %bcast_12 = broadcast %reshape_11 : tile<1xi64> -> tile<64xi64>
  %10 = cmpi less_than %8, %bcast_12, unsigned : tile<64xi64> -> tile<64xi1>
  %11 = muli %8, %cst_1_i64_3 : tile<64xi64>
  %reshape_13 = reshape %assume : tile<ptr<i32>> -> tile<1xptr<i32>>
  %bcast_14 = broadcast %reshape_13 : tile<1xptr<i32>> -> tile<64xptr<i32>>
  %12 = offset %bcast_14, %11 : tile<64xptr<i32>>, tile<64xi64> -> tile<64xptr<i32>>
  %result_15, %result_token_16 = atomic_cas_tko acq_rel device %12, %result, %7, %10 token=%result_token : tile<64xptr<i32>>, tile<64xi32>, tile<64xi1> -> tile<64xi32>, token
  %13 = muli %1, %cst_2_i32 : tile<64xi32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<f32>
  %14 = exti %13 signed : tile<64xi32> -> tile<64xi64>
  %15 = exti %assume_7 signed : tile<i32> -> tile<i64>
  %reshape_17 = reshape %15 : tile<i64> -> tile<1xi64>
  %bcast_18 = broadcast %reshape_17 : tile<1xi64> -> tile<64xi64>
  %16 = cmpi less_than %14, %bcast_18, unsigned : tile<64xi64> -> tile<64xi1>
  %17 = muli %14, %cst_1_i64_4 : tile<64xi64>
  %reshape_19 = reshape %assume_0 : tile<ptr<f32>> -> tile<1xptr<f32>>
  %bcast_20 = broadcast %reshape_19 : tile<1xptr<f32>> -> tile<64xptr<f32>>
  %18 = offset %bcast_20, %17 : tile<64xptr<f32>>, tile<64xi64> -> tile<64xptr<f32>>
  %reshape_21 = reshape %cst_0_f32 : tile<f32> -> tile<1xf32>
  %bcast_22 = broadcast %reshape_21 : tile<1xf32> -> tile<64xf32>
  %19 = join_tokens %0, %result_token_16 : token
  %result_23, %result_token_24 = load_ptr_tko weak %18, %16, %bcast_22 token=%19 : tile<64xptr<f32>>, tile<64xi1>, tile<64xf32> -> tile<64xf32>, token
  %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
  %reshape_25 = reshape %cst_1_f32 : tile<f32> -> tile<1xf32>
  %bcast_26 = broadcast %reshape_25 : tile<1xf32> -> tile<64xf32>
  %20 = addf %result_23, %bcast_26  : tile<64xf32>
  %21 = exti %1 signed : tile<64xi32> -> tile<64xi64>
  %22 = exti %assume_8 signed : tile<i32> -> tile<i64>
  %reshape_27 = reshape %22 : tile<i64> -> tile<1xi64>
  %bcast_28 = broadcast %reshape_27 : tile<1xi64> -> tile<64xi64>
  %23 = cmpi less_than %21, %bcast_28, unsigned : tile<64xi64> -> tile<64xi1>
  %24 = muli %21, %cst_1_i64_5 : tile<64xi64>
  %reshape_29 = reshape %assume_1 : tile<ptr<f32>> -> tile<1xptr<f32>>
  %bcast_30 = broadcast %reshape_29 : tile<1xptr<f32>> -> tile<64xptr<f32>>
  %25 = offset %bcast_30, %24 : tile<64xptr<f32>>, tile<64xi64> -> tile<64xptr<f32>>
  %26 = join_tokens %0, %result_token_16 : token
  %27 = store_ptr_tko weak %25, %20, %23 token=%26 : tile<64xptr<f32>>, tile<64xf32>, tile<64xi1> -> token
  return
}
