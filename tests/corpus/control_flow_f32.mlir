entry @control_flow_f32_Kt1_A1f32_1t1_p16_A1f32_1t1_p16_Si32_Sf32(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<f32>) optimization_hints=<default = {}> {
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
  %pview = make_partition_view %tview : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
  %cst_3_i32 = constant <i32: 3> : tile<i32>
  %1 = cmpi greater_than %arg6, %cst_3_i32, signed : tile<i32> -> tile<i1>
  %2 = if %1 -> (tile<128xf32>) {
    %cst_2_f32 = constant <f32: 2.000000e+00> : tile<f32>
    %reshape = reshape %cst_2_f32 : tile<f32> -> tile<1xf32>
    %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
    %6 = mulf %tile, %bcast  : tile<128xf32>
    yield %6 : tile<128xf32>
  } else {
    %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
    %reshape = reshape %cst_1_f32 : tile<f32> -> tile<1xf32>
    %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
    %6 = subf %tile, %bcast  : tile<128xf32>
    yield %6 : tile<128xf32>
  }
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128xf32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_3_i32_6 = constant <i32: 3> : tile<i32>
  %cst_0_i32_7 = constant <i32: 0> : tile<i32>
  %false = constant <i1: false> : tile<i1>
  %cst_1_i32_8 = constant <i32: 1> : tile<i32>
  %for = for %loopIdx in (%cst_0_i32 to %arg6, step %cst_1_i32_5) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<128xf32>) {
    %6 = remi %loopIdx, %cst_3_i32_6 signed : tile<i32>
    %7 = cmpi less_than %6, %cst_0_i32_7, signed : tile<i32> -> tile<i1>
    %8 = xori %7, %false : tile<i1>
    %9 = cmpi not_equal %6, %cst_0_i32_7, signed : tile<i32> -> tile<i1>
    %10 = andi %8, %9 : tile<i1>
    %11 = addi %6, %cst_3_i32_6 : tile<i32>
    %12 = select %10, %11, %6 : tile<i1>, tile<i32>
    %13 = cmpi equal %12, %cst_1_i32_8, signed : tile<i32> -> tile<i1>
    if %13 {
      continue %iterArg0 : tile<128xf32>
    } else {
    }
    %14 = itof %loopIdx signed  : tile<i32> -> tile<f32>
    %reshape = reshape %14 : tile<f32> -> tile<1xf32>
    %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
    %15 = fma %2, %bcast, %iterArg0  : tile<128xf32>
    continue %15 : tile<128xf32>
  }
  %cst_0_i32_9 = constant <i32: 0> : tile<i32>
  %cst_f32 = constant <f32: 5.000000e-01> : tile<f32>
  %cst_1_i32_10 = constant <i32: 1> : tile<i32>
  %3:3 = loop iter_values(%arg8 = %cst_0_i32_9, %arg9 = %arg7, %arg10 = %2) : tile<i32>, tile<f32>, tile<128xf32> -> tile<i32>, tile<f32>, tile<128xf32> {
    %6 = cmpi greater_than_or_equal %arg8, %arg6, signed : tile<i32> -> tile<i1>
    if %6 {
      break %arg8, %arg9, %arg10 : tile<i32>, tile<f32>, tile<128xf32>
    } else {
    }
    %reshape = reshape %arg9 : tile<f32> -> tile<1xf32>
    %bcast = broadcast %reshape : tile<1xf32> -> tile<128xf32>
    %7 = minf %arg10, %bcast : tile<128xf32>
    %8 = mulf %arg9, %cst_f32  : tile<f32>
    %9 = addi %arg8, %cst_1_i32_10 : tile<i32>
    continue %9, %8, %7 : tile<i32>, tile<f32>, tile<128xf32>
  }
  %4 = addf %for, %3#2  : tile<128xf32>
  %pview_11 = make_partition_view %tview_4 : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
  %5 = store_view_tko weak %4, %pview_11[%blockId_x] token = %0 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
