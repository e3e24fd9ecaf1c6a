entry @early_return_f32_Kt1_A1f32_1t1_p16_A1f32_1t1_p16_A1i32_1t1_p16_Si32_Sf32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<f32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_5 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_6 = make_tensor_view %assume_0, shape = [%assume_5], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_7 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_8 = make_tensor_view %assume_1, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_128_i32 = constant <i32: 128> : tile<i32>
  %1 = muli %blockId_x, %cst_128_i32 : tile<i32>
  %2 = cmpi greater_than_or_equal %1, %arg9, signed : tile<i32> -> tile<i1>
  if %2 {
    return
  } else {
  }
  %pview = make_partition_view %tview : partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
  %reduce = reduce %tile dim=0 identities=[0xFF800000 : f32] : tile<128xf32> -> tile<f32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %8 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
    yield %8 : tile<f32>
  }
  %3 = cmpf greater_than ordered %reduce, %arg10 : tile<f32> -> tile<i1>
  %4 = if %3 -> (token) {
    %cst_1_i32_11 = constant <i32: 1> : tile<1xi32>
    %pview_12 = make_partition_view %tview_8 : partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>
    %8 = store_view_tko weak %cst_1_i32_11, %pview_12[%blockId_x] token = %0 : tile<1xi32>, partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  } else {
    yield %0 : token
  }
  %cst_0_i32 = constant <i32: 0> : tile<1xi32>
  %pview_9 = make_partition_view %tview_8 : partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>
  %5 = store_view_tko weak %cst_0_i32, %pview_9[%blockId_x] token = %4 : tile<1xi32>, partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
  %reshape = reshape %cst_2_f32 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
  %6 = mulf %tile, %bcast  : tile<128xf32>
  %pview_10 = make_partition_view %tview_6 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %7 = store_view_tko weak %6, %pview_10[%blockId_x] token = %0 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
