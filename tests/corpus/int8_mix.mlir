entry @int8_mix_Kt1_A1i8_1t1_p16_A1i8_1t1_p16_A1i8_1t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<i8>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<i8>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i8>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<i32>>, %arg10: tile<i32>, %arg11: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<i8>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<i8>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i8>>
  %assume_2 = assume div_by<16>, %arg9 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_1_i32_4 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_1_i8 = constant <i8: 1> : tile<1024xi8>
  %cst_3_i8 = constant <i8: 3> : tile<1024xi8>
  %cst_0_i8 = constant <i8: 0> : tile<1024xi8>
  %assume_6 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_6], strides = [1] : tile<i32> -> tensor_view<?xi8, strides=[1]>
  %assume_7 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_8 = make_tensor_view %assume_0, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xi8, strides=[1]>
  %assume_9 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_10 = make_tensor_view %assume_1, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xi8, strides=[1]>
  %assume_11 = assume bounded<0, ?>, %arg10 : tile<i32>
  %tview_12 = make_tensor_view %assume_2, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(1024), padding_value = zero, tensor_view<?xi8, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(1024), padding_value = zero, tensor_view<?xi8, strides=[1]>>, tile<i32> -> tile<1024xi8>, token
  %pview_13 = make_partition_view %tview_8 : partition_view<tile=(1024), padding_value = zero, tensor_view<?xi8, strides=[1]>>
  %tile_14, %result_token_15 = load_view_tko weak %pview_13[%blockId_x] token = %0 : partition_view<tile=(1024), padding_value = zero, tensor_view<?xi8, strides=[1]>>, tile<i32> -> tile<1024xi8>, token
  %1 = cmpi greater_than %tile, %tile_14, signed : tile<1024xi8> -> tile<1024xi1>
  %2 = addi %tile, %tile_14 : tile<1024xi8>
  %3 = shri %2, %cst_1_i8 signed : tile<1024xi8>
  %4 = maxi %tile, %tile_14 signed : tile<1024xi8>
  %5 = subi %4, %cst_3_i8 : tile<1024xi8>
  %6 = select %1, %3, %5 : tile<1024xi1>, tile<1024xi8>
  %pview_16 = make_partition_view %tview_10 : partition_view<tile=(1024), tensor_view<?xi8, strides=[1]>>
  %7 = store_view_tko weak %6, %pview_16[%blockId_x] token = %0 : tile<1024xi8>, partition_view<tile=(1024), tensor_view<?xi8, strides=[1]>>, tile<i32> -> token
  %8 = exti %tile signed : tile<1024xi8> -> tile<1024xi32>
  %9 = exti %tile_14 signed : tile<1024xi8> -> tile<1024xi32>
  %10 = muli %8, %9 : tile<1024xi32>
  %11 = cmpi less_than %tile, %cst_0_i8, signed : tile<1024xi8> -> tile<1024xi1>
  %12 = exti %11 unsigned : tile<1024xi1> -> tile<1024xi32>
  %13 = addi %10, %12 : tile<1024xi32>
  %pview_17 = make_partition_view %tview_12 : partition_view<tile=(1024), tensor_view<?xi32, strides=[1]>>
  %14 = store_view_tko weak %13, %pview_17[%blockId_x] token = %0 : tile<1024xi32>, partition_view<tile=(1024), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  return
}
