entry @int32_ops_Kt1_A1i32_1t1_p4_A1i32_1t1_p4_A1i32_1t1_p4_A1i32_1t1_p4_Si32_Si32(%arg0: tile<ptr<i32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<i32>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<4>, %arg0 : tile<ptr<i32>>
  %assume_0 = assume div_by<4>, %arg3 : tile<ptr<i32>>
  %assume_1 = assume div_by<4>, %arg6 : tile<ptr<i32>>
  %assume_2 = assume div_by<4>, %arg9 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_1_i32_4 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_3_i32 = constant <i32: 3> : tile<512xi32>
  %cst_2_i32 = constant <i32: 2> : tile<512xi32>
  %cst_240_i32 = constant <i32: 240> : tile<512xi32>
  %cst_7_i32 = constant <i32: 7> : tile<512xi32>
  %cst_5_i32 = constant <i32: 5> : tile<512xi32>
  %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_6], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_7 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_8 = make_tensor_view %assume_0, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_9 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_10 = make_tensor_view %assume_1, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_11 = assume bounded<0, ?>, %arg10 : tile<i32>
  %tview_12 = make_tensor_view %assume_2, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(512), padding_value = zero, tensor_view<?xi32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(512), padding_value = zero, tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<512xi32>, token
  %pview_13 = make_partition_view %tview_8 : partition_view<tile=(512), padding_value = zero, tensor_view<?xi32, strides=[1]>>
  %tile_14, %result_token_15 = load_view_tko weak %pview_13[%blockId_x] token = %0 : partition_view<tile=(512), padding_value = zero, tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<512xi32>, token
  %1 = addi %tile, %tile_14 : tile<512xi32>
  %2 = muli %1, %cst_3_i32 : tile<512xi32>
  %3 = shli %tile, %cst_2_i32 : tile<512xi32>
  %4 = subi %2, %3 : tile<512xi32>
  %reshape = reshape %arg12 : tile<i32> -> tile<1xi32>
  %bcast = broadcast %reshape : tile<1xi32> -> tile<512xi32>
  %5 = shri %tile_14, %bcast signed : tile<512xi32>
  %6 = xori %4, %5 : tile<512xi32>
  %cst_-1_i32 = constant <i32: -1> : tile<512xi32>
  %7 = xori %tile, %cst_-1_i32 : tile<512xi32>
  %8 = andi %7, %cst_240_i32 : tile<512xi32>
  %9 = ori %6, %8 : tile<512xi32>
  %pview_16 = make_partition_view %tview_10 : partition_view<tile=(512), tensor_view<?xi32, strides=[1]>>
  %10 = store_view_tko weak %9, %pview_16[%blockId_x] token = %0 : tile<512xi32>, partition_view<tile=(512), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  %11 = cmpi greater_than %tile, %tile_14, signed : tile<512xi32> -> tile<512xi1>
  %12 = divi %tile, %cst_7_i32 signed rounding<negative_inf> : tile<512xi32>
  %13 = remi %tile_14, %cst_5_i32 signed : tile<512xi32>
  %cst_0_i32 = constant <i32: 0> : tile<512xi32>
  %14 = cmpi less_than %13, %cst_0_i32, signed : tile<512xi32> -> tile<512xi1>
  %15 = cmpi less_than %cst_5_i32, %cst_0_i32, signed : tile<512xi32> -> tile<512xi1>
  %16 = xori %14, %15 : tile<512xi1>
  %17 = cmpi not_equal %13, %cst_0_i32, signed : tile<512xi32> -> tile<512xi1>
  %18 = andi %16, %17 : tile<512xi1>
  %19 = addi %13, %cst_5_i32 : tile<512xi32>
  %20 = select %18, %19, %13 : tile<512xi1>, tile<512xi32>
  %21 = select %11, %12, %20 : tile<512xi1>, tile<512xi32>
  %22 = mini %tile, %tile_14 signed : tile<512xi32>
  %23 = addi %21, %22 : tile<512xi32>
  %24 = subi %tile, %tile_14 : tile<512xi32>
  %25 = absi %24 : tile<512xi32>
  %26 = addi %23, %25 : tile<512xi32>
  %27 = negi %tile : tile<512xi32>
  %reshape_17 = reshape %arg13 : tile<i32> -> tile<1xi32>
  %bcast_18 = broadcast %reshape_17 : tile<1xi32> -> tile<512xi32>
  %28 = maxi %27, %bcast_18 signed : tile<512xi32>
  %29 = addi %26, %28 : tile<512xi32>
  %reshape_19 = reshape %arg13 : tile<i32> -> tile<1xi32>
  %bcast_20 = broadcast %reshape_19 : tile<1xi32> -> tile<512xi32>
  %30 = cmpi greater_than_or_equal %tile, %bcast_20, signed : tile<512xi32> -> tile<512xi1>
  %31 = exti %30 unsigned : tile<512xi1> -> tile<512xi32>
  %32 = addi %29, %31 : tile<512xi32>
  %pview_21 = make_partition_view %tview_12 : partition_view<tile=(512), tensor_view<?xi32, strides=[1]>>
  %33 = store_view_tko weak %32, %pview_21[%blockId_x] token = %0 : tile<512xi32>, partition_view<tile=(512), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  return
}
