global  @print_mutex <i32: 1> : tile<1xi32>
entry @printing_Kt1_A1f32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>) optimization_hints=<sm_90 = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %assume_0 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_0], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(64), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<64xf32>, token
  %1 = join_tokens %0, %result_token : token
  %reduce = reduce %tile dim=0 identities=[0.000000e+00 : f32] : tile<64xf32> -> tile<f32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %7 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %7 : tile<f32>
  }
  %2 = join_tokens %0, %1 : token
  %3 = get_global @print_mutex : tile<ptr<i32>>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32_1 = constant <i32: 1> : tile<i32>
  loop {
    %result_4, %result_token_5 = atomic_cas_tko acq_rel device %3, %cst_1_i32_1, %cst_0_i32 : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
    %7 = cmpi equal %result_4, %cst_1_i32_1, unsigned : tile<i32> -> tile<i1>
    if %7 {
      break
    } else {
    }
  }
  %4 = print_tko "block %d sum %f\0A", %blockId_x, %reduce : tile<i32>, tile<f32> -> token
  %5 = make_token : token
  %result, %result_token_2 = atomic_rmw_tko acq_rel device %3, xchg, %cst_1_i32_1 : tile<ptr<i32>>, tile<i32> -> tile<i32>, token
  %cst_0_i32_3 = constant <i32: 0> : tile<i32>
  %6 = cmpi greater_than_or_equal %blockId_x, %cst_0_i32_3, signed : tile<i32> -> tile<i1>
  assert %6, "negative block id" : tile<i1>
  return
}
