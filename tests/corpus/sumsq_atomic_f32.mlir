entry @sumsq_atomic_f32_Kt1_A1f32_1t1_p16_A1f32_1t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f32>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<i32>>, %arg7: tile<i32>, %arg8: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i64 = constant <i64: 1> : tile<i64>
  %cst_1_i64_2 = constant <i64: 1> : tile<i64>
  %assume_3 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_3], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_4 = assume bounded<0, ?>, %arg4 : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg7 : tile<i32>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(512), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(512), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<512xf32>, token
  %1 = join_tokens %0, %result_token : token
  %2 = mulf %tile, %tile  : tile<512xf32>
  %reduce = reduce %2 dim=0 identities=[0.000000e+00 : f32] : tile<512xf32> -> tile<f32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %17 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %17 : tile<f32>
  }
  %cst_0_i64 = constant <i64: 0> : tile<i64>
  %3 = exti %assume_4 signed : tile<i32> -> tile<i64>
  %4 = cmpi less_than %cst_0_i64, %3, unsigned : tile<i64> -> tile<i1>
  %5 = muli %cst_0_i64, %cst_1_i64 : tile<i64>
  %6 = offset %assume_0, %5 : tile<ptr<f32>>, tile<i64> -> tile<ptr<f32>>
  %7 = join_tokens %0, %1 : token
  %result, %result_token_6 = atomic_rmw_tko acq_rel device %6, addf, %reduce, %4 token=%7 : tile<ptr<f32>>, tile<f32>, tile<i1> -> tile<f32>, token
  %8 = absf %tile : tile<512xf32>
  %cst_1000_f32 = constant <f32: 1.000000e+03> : tile<f32>
  %reshape = reshape %cst_1000_f32 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<512xf32>
  %9 = mulf %8, %bcast  : tile<512xf32>
  %10 = floor %9 : tile<512xf32>
  %11 = ftoi %10 signed  : tile<512xf32> -> tile<512xi32>
  %reduce_7 = reduce %11 dim=0 identities=[-2147483648 : i32] : tile<512xi32> -> tile<i32> 
  (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
    %17 = maxi %reduce_lhs, %reduce_rhs signed : tile<i32>
    yield %17 : tile<i32>
  }
  %cst_0_i64_8 = constant <i64: 0> : tile<i64>
  %12 = exti %assume_5 signed : tile<i32> -> tile<i64>
  %13 = cmpi less_than %cst_0_i64_8, %12, unsigned : tile<i64> -> tile<i1>
  %14 = muli %cst_0_i64_8, %cst_1_i64_2 : tile<i64>
  %15 = offset %assume_1, %14 : tile<ptr<i32>>, tile<i64> -> tile<ptr<i32>>
  %16 = join_tokens %0, %1, %result_token_6 : token
  %result_9, %result_token_10 = atomic_rmw_tko acq_rel device %15, max, %reduce_7, %13 token=%16 : tile<ptr<i32>>, tile<i32>, tile<i1> -> tile<i32>, token
  return
}
