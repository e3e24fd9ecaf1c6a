entry @control_flow_Kt1_A1f32_1t1_p16_A1f32_1t1_p16_Si32_Sf32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<f32>) optimization_hints=<sm_90 = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_1 = constant <i32: 1> : tile<i32>
  %assume_2 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_2], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_3 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_4 = make_tensor_view %assume_0, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
  %cst_3_i32 = constant <i32: 3> : tile<i32>
  %1 = cmpi greater_than %arg6, %cst_3_i32, signed : tile<i32> -> tile<i1>
  %2 = if %1 -> (tile<64xf32>) {
    %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
    %reshape_7 = reshape %cst_2_f32 : tile<f32> -> tile<1xf32>
    %bcast_8 = broadcast %reshape_7 : tile<1xf32> -> tile<64xf32>
    %5 = mulf %tile, %bcast_8  : tile<64xf32>
    yield %5 : tile<64xf32>
  } else {
    %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
    %reshape_7 = reshape %cst_1_f32 : tile<f32> -> tile<1xf32>
    %bcast_8 = broadcast %reshape_7 : tile<1xf32> -> tile<64xf32>
    %5 = subf %tile, %bcast_8  : tile<64xf32>
    yield %5 : tile<64xf32>
  }
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %reshape = reshape %arg7 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<64xf32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %3:2 = loop iter_values(%arg8 = %cst_0_i32, %arg9 = %2) : tile<i32>, tile<64xf32> -> tile<i32>, tile<64xf32> {
    %5 = cmpi less_than %arg8, %arg6, signed : tile<i32> -> tile<i1>
    if %5 {
    } else {
      break %arg8, %arg9 : tile<i32>, tile<64xf32>
    }
    %6 = minf %arg9, %bcast : tile<64xf32>
    %7 = addi %arg8, %cst_1_i32_5 : tile<i32>
    continue %7, %6 : tile<i32>, tile<64xf32>
  }
  %pview_6 = make_partition_view %tview_4 : partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>
  %4 = store_view_tko weak %3#1, %pview_6[%blockId_x] token = %0 : tile<64xf32>, partition_view<tile=(64), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
