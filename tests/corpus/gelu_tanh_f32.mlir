entry @gelu_tanh_f32_Kt1_A1f32_1i1024t1_p16_A1f32_1i1024t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<1024>, %arg1 : tile<i32>
  %assume_1 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %assume_2 = assume div_by<1024>, %arg4 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<1024>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_assume_assume], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_assume_4 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_5 = assume div_by<1024>, %assume_assume_4 : tile<i32>
  %tview_6 = make_tensor_view %assume_1, shape = [%assume_assume_assume_5], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 inbounds = [true] : partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<1024xf32>, token
  %cst_f32 = constant <f32: 0.797884583> : tile<f32>
  %cst_f32_7 = constant <f32: 4.471500e-02> : tile<f32>
  %reshape = reshape %cst_f32_7 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<1024xf32>
  %1 = mulf %bcast, %tile  : tile<1024xf32>
  %2 = mulf %1, %tile  : tile<1024xf32>
  %3 = fma %2, %tile, %tile  : tile<1024xf32>
  %reshape_8 = reshape %cst_f32 : tile<f32> -> tile<1xf32>
  %bcast_9 = broadcast %reshape_8 : tile<1xf32> -> tile<1024xf32>
  %4 = mulf %bcast_9, %3  : tile<1024xf32>
  %cst_f32_10 = constant <f32: 5.000000e-01> : tile<f32>
  %reshape_11 = reshape %cst_f32_10 : tile<f32> -> tile<1xf32>
  %bcast_12 = broadcast %reshape_11 : tile<1xf32> -> tile<1024xf32>
  %5 = mulf %bcast_12, %tile  : tile<1024xf32>
  %cst_1_f32 = constant <f32: 1.000000e+00> : tile<f32>
  %6 = tanh %4 rounding<approx> : tile<1024xf32>
  %reshape_13 = reshape %cst_1_f32 : tile<f32> -> tile<1xf32>
  %bcast_14 = broadcast %reshape_13 : tile<1xf32> -> tile<1024xf32>
  %7 = addf %bcast_14, %6  : tile<1024xf32>
  %8 = mulf %5, %7  : tile<1024xf32>
  %pview_15 = make_partition_view %tview_6 : partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>
  %9 = store_view_tko weak %8, %pview_15[%blockId_x] token = %0 inbounds = [true] : tile<1024xf32>, partition_view<tile=(1024), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  return
}
