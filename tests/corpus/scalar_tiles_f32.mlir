entry @scalar_tiles_f32_Kt1_A2f32_1l0_2t1_p16_A1f32_1t1_p16_A1i32_1t1_p16_A2f32_1l0_2t1_p16_A1f32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<ptr<i32>>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<ptr<f32>>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<ptr<f32>>, %arg17: tile<i32>, %arg18: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg8 : tile<ptr<i32>>
  %assume_2 = assume div_by<16>, %arg11 : tile<ptr<f32>>
  %assume_3 = assume div_by<16>, %arg16 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_4 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_1_i32_6 = constant <i32: 1> : tile<i32>
  %cst_1_i32_7 = constant <i32: 1> : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_9 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_8, %assume_9], strides = [%assume_10, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_11 = assume bounded<0, ?>, %arg6 : tile<i32>
  %tview_12 = make_tensor_view %assume_0, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_13 = assume bounded<0, ?>, %arg9 : tile<i32>
  %tview_14 = make_tensor_view %assume_1, shape = [%assume_13], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_15 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_16 = assume bounded<0, ?>, %arg13 : tile<i32>
  %assume_17 = assume bounded<0, ?>, %arg14 : tile<i32>
  %tview_18 = make_tensor_view %assume_2, shape = [%assume_15, %assume_16], strides = [%assume_17, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_19 = assume bounded<0, ?>, %arg17 : tile<i32>
  %tview_20 = make_tensor_view %assume_3, shape = [%assume_19], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview_12 : partition_view<tile=(1), tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(1), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<1xf32>, token
  %reshape = reshape %tile : tile<1xf32> -> tile<f32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview_21 = make_partition_view %tview_14 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
  %tile_22, %result_token_23 = load_view_tko weak %pview_21[%cst_0_i32] token = %0 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<8xi32>, token
  %cst_8_i32 = constant <i32: 8> : tile<i32>
  %1 = remi %blockId_x, %cst_8_i32 signed : tile<i32>
  %cst_0_i32_24 = constant <i32: 0> : tile<i32>
  %2 = cmpi less_than %1, %cst_0_i32_24, signed : tile<i32> -> tile<i1>
  %false = constant <i1: false> : tile<i1>
  %3 = xori %2, %false : tile<i1>
  %4 = cmpi not_equal %1, %cst_0_i32_24, signed : tile<i32> -> tile<i1>
  %5 = andi %3, %4 : tile<i1>
  %6 = addi %1, %cst_8_i32 : tile<i32>
  %7 = select %5, %6, %1 : tile<i1>, tile<i32>
  %8 = extract %tile_22[%7] : tile<8xi32> -> tile<1xi32>
  %reshape_25 = reshape %8 : tile<1xi32> -> tile<i32>
  %cst_7_i32 = constant <i32: 7> : tile<i32>
  %9 = extract %tile_22[%cst_7_i32] : tile<8xi32> -> tile<1xi32>
  %reshape_26 = reshape %9 : tile<1xi32> -> tile<i32>
  %10 = addi %reshape_25, %reshape_26 : tile<i32>
  %cst_0_i32_27 = constant <i32: 0> : tile<i32>
  %pview_28 = make_partition_view %tview : partition_view<tile=(1x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
  %tile_29, %result_token_30 = load_view_tko weak %pview_28[%10, %cst_0_i32_27] token = %0 : partition_view<tile=(1x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<1x128xf32>, token
  %cst_0_i32_31 = constant <i32: 0> : tile<i32>
  %reshape_32 = reshape %reshape : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape_32 : tile<1x1xf32> -> tile<1x128xf32>
  %11 = mulf %tile_29, %bcast  : tile<1x128xf32>
  %pview_33 = make_partition_view %tview_18 : partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1]>>
  %12 = store_view_tko weak %11, %pview_33[%blockId_x, %cst_0_i32_31] token = %0 : tile<1x128xf32>, partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  %reduce = reduce %tile_29 dim=0 identities=[0.000000e+00 : f32] : tile<1x128xf32> -> tile<128xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %15 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %15 : tile<f32>
  }
  %reduce_34 = reduce %reduce dim=0 identities=[0.000000e+00 : f32] : tile<128xf32> -> tile<f32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %15 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %15 : tile<f32>
  }
  %13 = mulf %reduce_34, %reshape  : tile<f32>
  %reshape_35 = reshape %13 : tile<f32> -> tile<1xf32>
  %pview_36 = make_partition_view %tview_20 : partition_view<tile=(1), tensor_view<?xf32, strides=[1]>>
  %14 = store_view_tko weak %reshape_35, %pview_36[%blockId_x] token = %0 : tile<1xf32>, partition_view<tile=(1), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
