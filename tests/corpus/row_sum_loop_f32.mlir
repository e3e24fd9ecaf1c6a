entry @row_sum_loop_f32_Kt1_A2f32_1l0_2t1_p16_A1f32_1t1_p16_A1f32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<ptr<f32>>, %arg9: tile<i32>, %arg10: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg8 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_4 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_6 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_4, %assume_5], strides = [%assume_6, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_7 = assume bounded<0, ?>, %arg6 : tile<i32>
  %tview_8 = make_tensor_view %assume_0, shape = [%assume_7], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_9 = assume bounded<0, ?>, %arg9 : tile<i32>
  %tview_10 = make_tensor_view %assume_1, shape = [%assume_9], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<16xf32>
  %cst_f32 = constant <f32: -3.000000e+38> : tile<16xf32>
  %pview = make_partition_view %tview : partition_view<tile=(16x64), tensor_view<?x?xf32, strides=[?,1]>>
  %1:2 = get_index_space_shape %pview : partition_view<tile=(16x64), tensor_view<?x?xf32, strides=[?,1]>> -> tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32_11 = constant <i32: 1> : tile<i32>
  %pview_12 = make_partition_view %tview : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
  %for:2 = for %loopIdx in (%cst_0_i32 to %1#1, step %cst_1_i32_11) : tile<i32> iter_values(%iterArg0 = %cst_0_f32, %iterArg1 = %cst_f32) -> (tile<16xf32>, tile<16xf32>) {
    %tile, %result_token = load_view_tko weak %pview_12[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x64xf32>, token
    %reduce = reduce %tile dim=1 identities=[0.000000e+00 : f32] : tile<16x64xf32> -> tile<16xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %6 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %6 : tile<f32>
    }
    %4 = addf %iterArg0, %reduce  : tile<16xf32>
    %reduce_15 = reduce %tile dim=1 identities=[0xFF800000 : f32] : tile<16x64xf32> -> tile<16xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %6 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
      yield %6 : tile<f32>
    }
    %5 = maxf %iterArg1, %reduce_15 : tile<16xf32>
    continue %4, %5 : tile<16xf32>, tile<16xf32>
  }
  %pview_13 = make_partition_view %tview_8 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %2 = store_view_tko weak %for#0, %pview_13[%blockId_x] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %pview_14 = make_partition_view %tview_10 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %3 = store_view_tko weak %for#1, %pview_14[%blockId_x] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
