entry @last_block_sum_i32_Kt1_A1i32_1t1_p16_A1i32_1t1_p16_A1i32_1t1_p16_A1i32_1t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<i32>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<ptr<i32>>, %arg13: tile<i32>, %arg14: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<i32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i32>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i32>>
  %assume_2 = assume div_by<16>, %arg9 : tile<ptr<i32>>
  %assume_3 = assume div_by<16>, %arg12 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_4 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_1_i64 = constant <i64: 1> : tile<i64>
  %cst_1_i64_6 = constant <i64: 1> : tile<i64>
  %cst_1_i64_7 = constant <i64: 1> : tile<i64>
  %cst_1_i64_8 = constant <i64: 1> : tile<i64>
  %cst_1_i64_9 = constant <i64: 1> : tile<i64>
  %assume_10 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_10], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_11 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_12 = make_tensor_view %assume_0, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_13 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_14 = make_tensor_view %assume_1, shape = [%assume_13], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_15 = assume bounded<0, ?>, %arg10 : tile<i32>
  %assume_16 = assume bounded<0, ?>, %arg13 : tile<i32>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(256), padding_value = zero, tensor_view<?xi32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(256), padding_value = zero, tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<256xi32>, token
  %1 = join_tokens %0, %result_token : token
  %reduce = reduce %tile dim=0 identities=[0 : i32] : tile<256xi32> -> tile<i32> 
  (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
    %21 = addi %reduce_lhs, %reduce_rhs : tile<i32>
    yield %21 : tile<i32>
  }
  %2 = exti %blockId_x signed : tile<i32> -> tile<i64>
  %3 = exti %assume_11 signed : tile<i32> -> tile<i64>
  %4 = cmpi less_than %2, %3, unsigned : tile<i64> -> tile<i1>
  %5 = muli %2, %cst_1_i64 : tile<i64>
  %6 = offset %assume_0, %5 : tile<ptr<i32>>, tile<i64> -> tile<ptr<i32>>
  %assume_17 = assume div_by<4>, %6 : tile<ptr<i32>>
  %7 = store_ptr_tko weak %assume_17, %reduce, %4 token=%0 : tile<ptr<i32>>, tile<i32>, tile<i1> -> token
  %cst_1_i32_18 = constant <i32: 1> : tile<i32>
  %8 = exti %blockId_x signed : tile<i32> -> tile<i64>
  %9 = exti %assume_13 signed : tile<i32> -> tile<i64>
  %10 = cmpi less_than %8, %9, unsigned : tile<i64> -> tile<i1>
  %11 = muli %8, %cst_1_i64_6 : tile<i64>
  %12 = offset %assume_1, %11 : tile<ptr<i32>>, tile<i64> -> tile<ptr<i32>>
  %13 = join_tokens %0, %1, %7 : token
  %result, %result_token_19 = atomic_rmw_tko release device %12, xchg, %cst_1_i32_18, %10 token=%13 : tile<ptr<i32>>, tile<i32>, tile<i1> -> tile<i32>, token
  %cst_1_i32_20 = constant <i32: 1> : tile<i32>
  %cst_0_i64 = constant <i64: 0> : tile<i64>
  %14 = exti %assume_15 signed : tile<i32> -> tile<i64>
  %15 = cmpi less_than %cst_0_i64, %14, unsigned : tile<i64> -> tile<i1>
  %16 = muli %cst_0_i64, %cst_1_i64_7 : tile<i64>
  %17 = offset %assume_2, %16 : tile<ptr<i32>>, tile<i64> -> tile<ptr<i32>>
  %18 = join_tokens %0, %1, %7, %result_token_19 : token
  %result_21, %result_token_22 = atomic_rmw_tko acq_rel device %17, add, %cst_1_i32_20, %15 token=%18 : tile<ptr<i32>>, tile<i32>, tile<i1> -> tile<i32>, token
  %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
  %cst_1_i32_23 = constant <i32: 1> : tile<i32>
  %19 = subi %gridSize_x, %cst_1_i32_23 : tile<i32>
  %20 = cmpi equal %result_21, %19, signed : tile<i32> -> tile<i1>
  if %20 {
    %cst_0_i32 = constant <i32: 0> : tile<i32>
    %pview_24 = make_partition_view %tview_12 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
    %21 = join_tokens %7, %result_token_22 : token
    %tile_25, %result_token_26 = load_view_tko weak %pview_24[%cst_0_i32] token = %21 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<8xi32>, token
    %cst_0_i32_27 = constant <i32: 0> : tile<i32>
    %pview_28 = make_partition_view %tview_14 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
    %22 = join_tokens %result_token_19, %result_token_22 : token
    %tile_29, %result_token_30 = load_view_tko weak %pview_28[%cst_0_i32_27] token = %22 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<8xi32>, token
    %reduce_31 = reduce %tile_25 dim=0 identities=[0 : i32] : tile<8xi32> -> tile<i32> 
    (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
      %35 = addi %reduce_lhs, %reduce_rhs : tile<i32>
      yield %35 : tile<i32>
    }
    %cst_0_i64_32 = constant <i64: 0> : tile<i64>
    %23 = exti %assume_16 signed : tile<i32> -> tile<i64>
    %24 = cmpi less_than %cst_0_i64_32, %23, unsigned : tile<i64> -> tile<i1>
    %25 = muli %cst_0_i64_32, %cst_1_i64_8 : tile<i64>
    %26 = offset %assume_3, %25 : tile<ptr<i32>>, tile<i64> -> tile<ptr<i32>>
    %assume_33 = assume div_by<16>, %26 : tile<ptr<i32>>
    %27 = join_tokens %0, %result_token_22 : token
    %28 = store_ptr_tko weak %assume_33, %reduce_31, %24 token=%27 : tile<ptr<i32>>, tile<i32>, tile<i1> -> token
    %reduce_34 = reduce %tile_29 dim=0 identities=[0 : i32] : tile<8xi32> -> tile<i32> 
    (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
      %35 = addi %reduce_lhs, %reduce_rhs : tile<i32>
      yield %35 : tile<i32>
    }
    %cst_1_i64_35 = constant <i64: 1> : tile<i64>
    %29 = exti %assume_16 signed : tile<i32> -> tile<i64>
    %30 = cmpi less_than %cst_1_i64_35, %29, unsigned : tile<i64> -> tile<i1>
    %31 = muli %cst_1_i64_35, %cst_1_i64_9 : tile<i64>
    %32 = offset %assume_3, %31 : tile<ptr<i32>>, tile<i64> -> tile<ptr<i32>>
    %assume_36 = assume div_by<4>, %32 : tile<ptr<i32>>
    %33 = join_tokens %28, %result_token_22 : token
    %34 = store_ptr_tko weak %assume_36, %reduce_34, %30 token=%33 : tile<ptr<i32>>, tile<i32>, tile<i1> -> token
  } else {
  }
  return
}
