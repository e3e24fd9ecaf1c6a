entry @moe_gather_gemm_bf16_Kt1_A2bf16_1v8l0_2i8t1_p16_A2bf16_1v8l0_2i8t1_p16_A2f32_1v4l0_2t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<bf16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<i32>>, %arg16: tile<i32>, %arg17: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
  %assume_0 = assume div_by<8>, %arg2 : tile<i32>
  %assume_1 = assume div_by<8>, %arg3 : tile<i32>
  %assume_2 = assume div_by<16>, %arg5 : tile<ptr<bf16>>
  %assume_3 = assume div_by<8>, %arg7 : tile<i32>
  %assume_4 = assume div_by<8>, %arg8 : tile<i32>
  %assume_5 = assume div_by<16>, %arg10 : tile<ptr<f32>>
  %assume_6 = assume div_by<4>, %arg13 : tile<i32>
  %assume_7 = assume div_by<16>, %arg15 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i64 = constant <i64: 1> : tile<64xi64>
  %cst_0_i32 = constant <i32: 0> : tile<64xi32>
  %cst_1_i64_8 = constant <i64: 1> : tile<64x32xi64>
  %cst_1_i64_9 = constant <i64: 1> : tile<64x16xi64>
  %assume_10 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_11 = assume bounded<0, ?>, %assume_1 : tile<i32>
  %assume_12 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_assume_13 = assume bounded<0, ?>, %assume_3 : tile<i32>
  %assume_assume_assume = assume div_by<8>, %assume_assume_13 : tile<i32>
  %assume_assume_14 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_15 = assume div_by<8>, %assume_assume_14 : tile<i32>
  %tview = make_tensor_view %assume_2, shape = [%assume_12, %assume_assume_assume], strides = [%assume_assume_assume_15, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
  %assume_16 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_17 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_assume_18 = assume bounded<0, ?>, %assume_6 : tile<i32>
  %assume_19 = assume bounded<0, ?>, %arg16 : tile<i32>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_20, %blockId_y_21, %blockId_z_22 = get_tile_block_id : tile<i32>
  %cst_64_i32 = constant <i32: 64> : tile<i32>
  %1 = muli %blockId_x, %cst_64_i32 : tile<i32>
  %2 = iota : tile<64xi32>
  %reshape = reshape %1 : tile<i32> -> tile<1xi32>
  %bcast = broadcast %reshape : tile<1xi32> -> tile<64xi32>
  %3 = addi %bcast, %2 : tile<64xi32>
  %4 = exti %3 signed : tile<64xi32> -> tile<64xi64>
  %5 = exti %assume_19 signed : tile<i32> -> tile<i64>
  %reshape_23 = reshape %5 : tile<i64> -> tile<1xi64>
  %bcast_24 = broadcast %reshape_23 : tile<1xi64> -> tile<64xi64>
  %6 = cmpi less_than %4, %bcast_24, unsigned : tile<64xi64> -> tile<64xi1>
  %7 = muli %4, %cst_1_i64 : tile<64xi64>
  %reshape_25 = reshape %assume_7 : tile<ptr<i32>> -> tile<1xptr<i32>>
  %bcast_26 = broadcast %reshape_25 : tile<1xptr<i32>> -> tile<64xptr<i32>>
  %8 = offset %bcast_26, %7 : tile<64xptr<i32>>, tile<64xi64> -> tile<64xptr<i32>>
  %result, %result_token = load_ptr_tko weak %8, %6, %cst_0_i32 token=%0 : tile<64xptr<i32>>, tile<64xi1>, tile<64xi32> -> tile<64xi32>, token
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x16xf32>
  %cst_32_i32 = constant <i32: 32> : tile<i32>
  %9 = divi %assume_assume, %cst_32_i32 signed rounding<positive_inf> : tile<i32>
  %cst_0_i32_27 = constant <i32: 0> : tile<i32>
  %cst_1_i32_28 = constant <i32: 1> : tile<i32>
  %cst_32_i32_29 = constant <i32: 32> : tile<i32>
  %10 = iota : tile<32xi32>
  %reshape_30 = reshape %result : tile<64xi32> -> tile<64x1xi32>
  %11 = exti %reshape_30 signed : tile<64x1xi32> -> tile<64x1xi64>
  %bcast_31 = broadcast %11 : tile<64x1xi64> -> tile<64x32xi64>
  %12 = exti %assume_10 signed : tile<i32> -> tile<i64>
  %reshape_32 = reshape %12 : tile<i64> -> tile<1x1xi64>
  %bcast_33 = broadcast %reshape_32 : tile<1x1xi64> -> tile<64x32xi64>
  %13 = cmpi less_than %bcast_31, %bcast_33, unsigned : tile<64x32xi64> -> tile<64x32xi1>
  %14 = exti %assume_assume_11 signed : tile<i32> -> tile<i64>
  %reshape_34 = reshape %14 : tile<i64> -> tile<1x1xi64>
  %bcast_35 = broadcast %reshape_34 : tile<1x1xi64> -> tile<64x32xi64>
  %15 = muli %bcast_31, %bcast_35 : tile<64x32xi64>
  %16 = exti %assume_assume signed : tile<i32> -> tile<i64>
  %reshape_36 = reshape %16 : tile<i64> -> tile<1x1xi64>
  %bcast_37 = broadcast %reshape_36 : tile<1x1xi64> -> tile<64x32xi64>
  %reshape_38 = reshape %assume : tile<ptr<bf16>> -> tile<1x1xptr<bf16>>
  %bcast_39 = broadcast %reshape_38 : tile<1x1xptr<bf16>> -> tile<64x32xptr<bf16>>
  %cst_0_bf16 = constant <bf16: 0.000000e+00> : tile<bf16>
  %reshape_40 = reshape %cst_0_bf16 : tile<bf16> -> tile<1x1xbf16>
  %bcast_41 = broadcast %reshape_40 : tile<1x1xbf16> -> tile<64x32xbf16>
  %pview = make_partition_view %tview : partition_view<tile=(32x16), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
  %for = for %loopIdx in (%cst_0_i32_27 to %9, step %cst_1_i32_28) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<64x16xf32>) {
    %33 = muli %loopIdx, %cst_32_i32_29 : tile<i32>
    %reshape_56 = reshape %33 : tile<i32> -> tile<1xi32>
    %bcast_57 = broadcast %reshape_56 : tile<1xi32> -> tile<32xi32>
    %34 = addi %bcast_57, %10 : tile<32xi32>
    %reshape_58 = reshape %34 : tile<32xi32> -> tile<1x32xi32>
    %35 = exti %reshape_58 signed : tile<1x32xi32> -> tile<1x32xi64>
    %bcast_59 = broadcast %35 : tile<1x32xi64> -> tile<64x32xi64>
    %36 = cmpi less_than %bcast_59, %bcast_37, unsigned : tile<64x32xi64> -> tile<64x32xi1>
    %37 = andi %13, %36 : tile<64x32xi1>
    %38 = muli %bcast_59, %cst_1_i64_8 : tile<64x32xi64>
    %39 = addi %15, %38 : tile<64x32xi64>
    %40 = offset %bcast_39, %39 : tile<64x32xptr<bf16>>, tile<64x32xi64> -> tile<64x32xptr<bf16>>
    %result_60, %result_token_61 = load_ptr_tko weak %40, %37, %bcast_41 token=%0 : tile<64x32xptr<bf16>>, tile<64x32xi1>, tile<64x32xbf16> -> tile<64x32xbf16>, token
    %tile, %result_token_62 = load_view_tko weak %pview[%loopIdx, %blockId_y_21] token = %0 : partition_view<tile=(32x16), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<32x16xbf16>, token
    %41 = mmaf %result_60, %tile, %iterArg0 : tile<64x32xbf16>, tile<32x16xbf16>, tile<64x16xf32>
    continue %41 : tile<64x16xf32>
  }
  %cst_16_i32 = constant <i32: 16> : tile<i32>
  %17 = muli %blockId_y_21, %cst_16_i32 : tile<i32>
  %18 = iota : tile<16xi32>
  %reshape_42 = reshape %17 : tile<i32> -> tile<1xi32>
  %bcast_43 = broadcast %reshape_42 : tile<1xi32> -> tile<16xi32>
  %19 = addi %bcast_43, %18 : tile<16xi32>
  %reshape_44 = reshape %result : tile<64xi32> -> tile<64x1xi32>
  %reshape_45 = reshape %19 : tile<16xi32> -> tile<1x16xi32>
  %20 = exti %reshape_44 signed : tile<64x1xi32> -> tile<64x1xi64>
  %bcast_46 = broadcast %20 : tile<64x1xi64> -> tile<64x16xi64>
  %21 = exti %assume_16 signed : tile<i32> -> tile<i64>
  %reshape_47 = reshape %21 : tile<i64> -> tile<1x1xi64>
  %bcast_48 = broadcast %reshape_47 : tile<1x1xi64> -> tile<64x16xi64>
  %22 = cmpi less_than %bcast_46, %bcast_48, unsigned : tile<64x16xi64> -> tile<64x16xi1>
  %23 = exti %assume_assume_18 signed : tile<i32> -> tile<i64>
  %reshape_49 = reshape %23 : tile<i64> -> tile<1x1xi64>
  %bcast_50 = broadcast %reshape_49 : tile<1x1xi64> -> tile<64x16xi64>
  %24 = muli %bcast_46, %bcast_50 : tile<64x16xi64>
  %25 = exti %reshape_45 signed : tile<1x16xi32> -> tile<1x16xi64>
  %bcast_51 = broadcast %25 : tile<1x16xi64> -> tile<64x16xi64>
  %26 = exti %assume_17 signed : tile<i32> -> tile<i64>
  %reshape_52 = reshape %26 : tile<i64> -> tile<1x1xi64>
  %bcast_53 = broadcast %reshape_52 : tile<1x1xi64> -> tile<64x16xi64>
  %27 = cmpi less_than %bcast_51, %bcast_53, unsigned : tile<64x16xi64> -> tile<64x16xi1>
  %28 = andi %22, %27 : tile<64x16xi1>
  %29 = muli %bcast_51, %cst_1_i64_9 : tile<64x16xi64>
  %30 = addi %24, %29 : tile<64x16xi64>
  %reshape_54 = reshape %assume_5 : tile<ptr<f32>> -> tile<1x1xptr<f32>>
  %bcast_55 = broadcast %reshape_54 : tile<1x1xptr<f32>> -> tile<64x16xptr<f32>>
  %31 = offset %bcast_55, %30 : tile<64x16xptr<f32>>, tile<64x16xi64> -> tile<64x16xptr<f32>>
  %32 = store_ptr_tko weak %31, %for, %28 token=%0 : tile<64x16xptr<f32>>, tile<64x16xf32>, tile<64x16xi1> -> token
  return
}
