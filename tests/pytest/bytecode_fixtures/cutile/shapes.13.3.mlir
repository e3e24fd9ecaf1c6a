entry @shapes_Kt1_A2f32_1l0_2t1_p16_A2f32_1l0_2t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<i32>>, %arg11: tile<i32>, %arg12: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg10 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<16x16xi32>
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
  %cst_0_i32_13 = constant <i32: 0> : tile<i32>
  %cst_0_i32_14 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%cst_0_i32_13, %cst_0_i32_14] token = %0 : partition_view<tile=(16x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x32xf32>, token
  %1 = cat %tile, %tile dim = 0 : tile<16x32xf32>, tile<16x32xf32> -> tile<32x32xf32>
  %2 = permute %1 [1, 0] : tile<32x32xf32> -> tile<32x32xf32>
  %cst_0_i32_15 = constant <i32: 0> : tile<i32>
  %cst_0_i32_16 = constant <i32: 0> : tile<i32>
  %3 = extract %2[%cst_0_i32_15, %cst_0_i32_16] : tile<32x32xf32> -> tile<16x16xf32>
  %4 = bitcast %3 : tile<16x16xf32> -> tile<16x16xi32>
  %cst_0_i32_17 = constant <i32: 0> : tile<i32>
  %cst_0_i32_18 = constant <i32: 0> : tile<i32>
  %5 = cmpi greater_than %4, %cst_0_i32, signed : tile<16x16xi32> -> tile<16x16xi1>
  %6 = negf %3 : tile<16x16xf32>
  %7 = select %5, %3, %6 : tile<16x16xi1>, tile<16x16xf32>
  %pview_19 = make_partition_view %tview_10 : partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>
  %8 = store_view_tko weak %7, %pview_19[%cst_0_i32_17, %cst_0_i32_18] token = %0 : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  %cst_0_i32_20 = constant <i32: 0> : tile<i32>
  %9 = iota : tile<32xi32>
  %pview_21 = make_partition_view %tview_12 : partition_view<tile=(32), tensor_view<?xi32, strides=[1]>>
  %10 = store_view_tko weak %9, %pview_21[%cst_0_i32_20] token = %0 : tile<32xi32>, partition_view<tile=(32), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  return
}
