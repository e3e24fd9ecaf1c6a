entry @reductions_Kt1_A2f32_1l0_2t1_p16_A1f32_1t1_p16_A1f32_1t1_p16_A2f32_1l0_2t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<ptr<f32>>, %arg9: tile<i32>, %arg10: tile<i32>, %arg11: tile<ptr<f32>>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<ptr<i32>>, %arg17: tile<i32>, %arg18: tile<i32>) optimization_hints=<sm_90 = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<f32>>
  %assume_1 = assume div_by<16>, %arg8 : tile<ptr<f32>>
  %assume_2 = assume div_by<16>, %arg11 : tile<ptr<f32>>
  %assume_3 = assume div_by<16>, %arg16 : tile<ptr<i32>>
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
  %tview_14 = make_tensor_view %assume_1, shape = [%assume_13], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_15 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_16 = assume bounded<0, ?>, %arg13 : tile<i32>
  %assume_17 = assume bounded<0, ?>, %arg14 : tile<i32>
  %tview_18 = make_tensor_view %assume_2, shape = [%assume_15, %assume_16], strides = [%assume_17, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_19 = assume bounded<0, ?>, %arg17 : tile<i32>
  %tview_20 = make_tensor_view %assume_3, shape = [%assume_19], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(16x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<16x64xf32>, token
  %reduce = reduce %tile dim=1 identities=[0.000000e+00 : f32] : tile<16x64xf32> -> tile<16xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %7 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %7 : tile<f32>
  }
  %pview_21 = make_partition_view %tview_12 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %1 = store_view_tko weak %reduce, %pview_21[%blockId_x] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %reduce_22 = reduce %tile dim=1 identities=[0xFF800000 : f32] : tile<16x64xf32> -> tile<16xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %7 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
    yield %7 : tile<f32>
  }
  %pview_23 = make_partition_view %tview_14 : partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>
  %2 = store_view_tko weak %reduce_22, %pview_23[%blockId_x] token = %0 : tile<16xf32>, partition_view<tile=(16), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %cst_0_i32_24 = constant <i32: 0> : tile<i32>
  %3 = scan %tile dim=1 reverse=false identities=[0.000000e+00 : f32] : tile<16x64xf32> -> tile<16x64xf32> 
  (%arg19: tile<f32>, %arg20: tile<f32>) {
    %7 = addf %arg19, %arg20  : tile<f32>
    yield %7 : tile<f32>
  }
  %pview_25 = make_partition_view %tview_18 : partition_view<tile=(16x64), tensor_view<?x?xf32, strides=[?,1]>>
  %4 = store_view_tko weak %3, %pview_25[%blockId_x, %cst_0_i32_24] token = %0 : tile<16x64xf32>, partition_view<tile=(16x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  %5 = iota : tile<64xi32>
  %reshape = reshape %5 : tile<64xi32> -> tile<1x64xi32>
  %bcast = broadcast %reshape : tile<1x64xi32> -> tile<16x64xi32>
  %reduce_26:2 = reduce %tile, %bcast dim=1 identities=[0xFF800000 : f32, 0 : i32] : tile<16x64xf32>, tile<16x64xi32> -> tile<16xf32>, tile<16xi32> 
  (%reduce_lhs0: tile<f32>, %reduce_rhs0: tile<f32>, %reduce_lhs1: tile<i32>, %reduce_rhs1: tile<i32>) {
    %7 = cmpf greater_than ordered %reduce_lhs0, %reduce_rhs0 : tile<f32> -> tile<i1>
    %8 = cmpf equal ordered %reduce_lhs0, %reduce_rhs0 : tile<f32> -> tile<i1>
    %9 = cmpf not_equal unordered %reduce_lhs0, %reduce_lhs0 : tile<f32> -> tile<i1>
    %10 = cmpf not_equal unordered %reduce_rhs0, %reduce_rhs0 : tile<f32> -> tile<i1>
    %11 = cmpf equal ordered %reduce_lhs0, %reduce_lhs0 : tile<f32> -> tile<i1>
    %12 = andi %11, %10 : tile<i1>
    %13 = ori %7, %12 : tile<i1>
    %14 = andi %9, %10 : tile<i1>
    %15 = ori %8, %14 : tile<i1>
    %16 = cmpi less_than %reduce_lhs1, %reduce_rhs1, signed : tile<i32> -> tile<i1>
    %17 = andi %15, %16 : tile<i1>
    %18 = ori %13, %17 : tile<i1>
    %19 = select %18, %reduce_lhs0, %reduce_rhs0 : tile<i1>, tile<f32>
    %20 = select %18, %reduce_lhs1, %reduce_rhs1 : tile<i1>, tile<i32>
    yield %19, %20 : tile<f32>, tile<i32>
  }
  %pview_27 = make_partition_view %tview_20 : partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>
  %6 = store_view_tko weak %reduce_26#1, %pview_27[%blockId_x] token = %0 : tile<16xi32>, partition_view<tile=(16), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  return
}
