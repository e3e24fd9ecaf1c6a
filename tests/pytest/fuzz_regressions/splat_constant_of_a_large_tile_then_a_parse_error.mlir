entry @break_on_sum_f32_Kt1_A2f32_1l0_2t1_p16_A2f32_1l0_2t1_p16_A1i32_1t1_p16_Sf32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<i32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<f32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg10 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %false = constant <i1: false> : tile<i1>
  %true = constant <i1: true> : tile<i1>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_9 = assume bounded<0, ?>, %arg8 : tile<i32>
  %tview_10 = make_tensor_view %assume_0, shape = [%assume_7, %assume_8], strides = [%assume_9, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_11 = assume bounded<0, ?>, %arg11 : tile<i32>
  %tview_12 = make_tensor_view %assume_1, shape = [%assume_11], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<65536x128xf32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1}>>
  %1:2 = get_index_space_shape %pview : partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
  %cst_0_i32_13 = constant <i32: 0> : tile<i32>
  %cst_1_i32_14 = constant <i32: 1> : tile<i32>
  %pview_15 = make_partition_view %tview : partition_view<tile=(1x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
  %cst_1_i32_16 = constant <i32: 1> : tile<i32>
  %for:3 = for %loopIdx in (%cst_0_i32_13 to %1#1, step %cst_1_i32_14) : tile<i32> iter_values(%iterArg0 = %cst_0_i32, %iterArg1 = %cst_0_f32, %iterArg2 = %false) -> (tile<i32>, tile<1x128xf32>, tile<i1>) {
    if %iterArg2 {
      continue %iterArg0, %iterArg1, %iterArg2 : tile<i32>, tile<1x128xf32>, tile<i1>
    } else {
    }
    %tile, %result_token = load_view_tko weak %pview_15[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(1x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<1x128xf32>, token
    %4 = addf %iterArg1, %tile  : tile<1x128xf32>
    %5 = addi %iterArg0, %cst_1_i32_16 : tile<i32>
    %reduce = reduce %4 dim=0 identities=[0.000000e+00 : f32] : tile<1x128xf32> -> tile<128xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %7 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %7 : tile<f32>
    }
    %reduce_20 = reduce %reduce dim=0 identities=[0.000000e+00 : f32] : tile<128xf32> -> tile<f32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %7 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %7 : tile<f32>
    }
    %6 = cmpf greater_than ordered %reduce_20, %arg13 : tile<f32> -> tile<i1>
    if %6 {
      continue %5, %4, %true : tile<i32>, tile<1x128xf32>, tile<i1>
    } else {
    ]
    continue %5, %4, %iterArg2 : tile<i32>, tile<1x128xf32>, tile<i1>
  }
  %cst_0_i32_17 = constant <i32: 0> : tile<i32>
  %pview_18 = make_partition_view %tview_10 : partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1]>>
  %2 = store_view_tko weak %for#1, %pview_18[%blockId_x, %cst_0_i32_17] token = %0 : tile<1x128xf32>, partition_view<tile=(1x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  %reshape = reshape %for#0 : tile<i32> -> tile<1xi32>
  %pview_19 = make_partition_view %tview_12 : partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>
  %3 = store_view_tko weak %reshape, %pview_19[%blockId_x] token = %0 : tile<1xi32>, partition_view<tile=(1), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  return
}
