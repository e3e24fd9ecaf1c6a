entry @row_reduce_2d_Kt1_A2f32_1l0_2t1_p16_A2i32_1l0_2t1_p16_A1f32_1t1_p16_A1f32_1t1_p16_A1i32_1t1_p16_A1i32_1t1_p16_A1i32_1t1_p16_A1i32_1t1_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<i32>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<ptr<f32>>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<ptr<i32>>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<ptr<i32>>, %arg20: tile<i32>, %arg21: tile<i32>, %arg22: tile<ptr<i32>>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<ptr<i32>>, %arg26: tile<i32>, %arg27: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg5 : tile<ptr<i32>>
  %assume_1 = assume div_by<16>, %arg10 : tile<ptr<f32>>
  %assume_2 = assume div_by<16>, %arg13 : tile<ptr<f32>>
  %assume_3 = assume div_by<16>, %arg16 : tile<ptr<i32>>
  %assume_4 = assume div_by<16>, %arg19 : tile<ptr<i32>>
  %assume_5 = assume div_by<16>, %arg22 : tile<ptr<i32>>
  %assume_6 = assume div_by<16>, %arg25 : tile<ptr<i32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_7 = constant <i32: 1> : tile<i32>
  %cst_1_i32_8 = constant <i32: 1> : tile<i32>
  %cst_1_i32_9 = constant <i32: 1> : tile<i32>
  %cst_1_i32_10 = constant <i32: 1> : tile<i32>
  %cst_1_i32_11 = constant <i32: 1> : tile<i32>
  %cst_1_i32_12 = constant <i32: 1> : tile<i32>
  %cst_1_i32_13 = constant <i32: 1> : tile<i32>
  %cst_1_i32_14 = constant <i32: 1> : tile<8x128xi32>
  %assume_15 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_16 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_17 = assume bounded<0, ?>, %arg3 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_15, %assume_16], strides = [%assume_17, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_18 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_19 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_20 = assume bounded<0, ?>, %arg8 : tile<i32>
  %tview_21 = make_tensor_view %assume_0, shape = [%assume_18, %assume_19], strides = [%assume_20, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
  %assume_22 = assume bounded<0, ?>, %arg11 : tile<i32>
  %tview_23 = make_tensor_view %assume_1, shape = [%assume_22], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_24 = assume bounded<0, ?>, %arg14 : tile<i32>
  %tview_25 = make_tensor_view %assume_2, shape = [%assume_24], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_26 = assume bounded<0, ?>, %arg17 : tile<i32>
  %tview_27 = make_tensor_view %assume_3, shape = [%assume_26], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_28 = assume bounded<0, ?>, %arg20 : tile<i32>
  %tview_29 = make_tensor_view %assume_4, shape = [%assume_28], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_30 = assume bounded<0, ?>, %arg23 : tile<i32>
  %tview_31 = make_tensor_view %assume_5, shape = [%assume_30], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %assume_32 = assume bounded<0, ?>, %arg26 : tile<i32>
  %tview_33 = make_tensor_view %assume_6, shape = [%assume_32], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(8x128), tensor_view<?x?xf32, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(8x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<8x128xf32>, token
  %cst_0_i32_34 = constant <i32: 0> : tile<i32>
  %pview_35 = make_partition_view %tview_21 : partition_view<tile=(8x128), tensor_view<?x?xi32, strides=[?,1]>>
  %tile_36, %result_token_37 = load_view_tko weak %pview_35[%blockId_x, %cst_0_i32_34] token = %0 : partition_view<tile=(8x128), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> tile<8x128xi32>, token
  %reduce = reduce %tile dim=1 identities=[0.000000e+00 : f32] : tile<8x128xf32> -> tile<8xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %9 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    yield %9 : tile<f32>
  }
  %pview_38 = make_partition_view %tview_23 : partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>
  %1 = store_view_tko weak %reduce, %pview_38[%blockId_x] token = %0 : tile<8xf32>, partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %reduce_39 = reduce %tile dim=1 identities=[0xFF800000 : f32] : tile<8x128xf32> -> tile<8xf32> 
  (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    %9 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
    yield %9 : tile<f32>
  }
  %pview_40 = make_partition_view %tview_25 : partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>
  %2 = store_view_tko weak %reduce_39, %pview_40[%blockId_x] token = %0 : tile<8xf32>, partition_view<tile=(8), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %3 = iota : tile<128xi32>
  %reshape = reshape %3 : tile<128xi32> -> tile<1x128xi32>
  %bcast = broadcast %reshape : tile<1x128xi32> -> tile<8x128xi32>
  %reduce_41:2 = reduce %tile, %bcast dim=1 identities=[0xFF800000 : f32, 0 : i32] : tile<8x128xf32>, tile<8x128xi32> -> tile<8xf32>, tile<8xi32> 
  (%reduce_lhs0: tile<f32>, %reduce_rhs0: tile<f32>, %reduce_lhs1: tile<i32>, %reduce_rhs1: tile<i32>) {
    %9 = cmpf greater_than ordered %reduce_lhs0, %reduce_rhs0 : tile<f32> -> tile<i1>
    %10 = cmpf equal ordered %reduce_lhs0, %reduce_rhs0 : tile<f32> -> tile<i1>
    %11 = cmpf not_equal unordered %reduce_lhs0, %reduce_lhs0 : tile<f32> -> tile<i1>
    %12 = cmpf not_equal unordered %reduce_rhs0, %reduce_rhs0 : tile<f32> -> tile<i1>
    %13 = cmpf equal ordered %reduce_lhs0, %reduce_lhs0 : tile<f32> -> tile<i1>
    %14 = andi %13, %12 : tile<i1>
    %15 = ori %9, %14 : tile<i1>
    %16 = andi %11, %12 : tile<i1>
    %17 = ori %10, %16 : tile<i1>
    %18 = cmpi less_than %reduce_lhs1, %reduce_rhs1, signed : tile<i32> -> tile<i1>
    %19 = andi %17, %18 : tile<i1>
    %20 = ori %15, %19 : tile<i1>
    %21 = select %20, %reduce_lhs0, %reduce_rhs0 : tile<i1>, tile<f32>
    %22 = select %20, %reduce_lhs1, %reduce_rhs1 : tile<i1>, tile<i32>
    yield %21, %22 : tile<f32>, tile<i32>
  }
  %pview_42 = make_partition_view %tview_27 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
  %4 = store_view_tko weak %reduce_41#1, %pview_42[%blockId_x] token = %0 : tile<8xi32>, partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  %reduce_43 = reduce %tile_36 dim=1 identities=[2147483647 : i32] : tile<8x128xi32> -> tile<8xi32> 
  (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
    %9 = mini %reduce_lhs, %reduce_rhs signed : tile<i32>
    yield %9 : tile<i32>
  }
  %pview_44 = make_partition_view %tview_29 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
  %5 = store_view_tko weak %reduce_43, %pview_44[%blockId_x] token = %0 : tile<8xi32>, partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  %reduce_45 = reduce %tile_36 dim=1 identities=[0 : i32] : tile<8x128xi32> -> tile<8xi32> 
  (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
    %9 = xori %reduce_lhs, %reduce_rhs : tile<i32>
    yield %9 : tile<i32>
  }
  %pview_46 = make_partition_view %tview_31 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
  %6 = store_view_tko weak %reduce_45, %pview_46[%blockId_x] token = %0 : tile<8xi32>, partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  %7 = ori %tile_36, %cst_1_i32_14 : tile<8x128xi32>
  %reduce_47 = reduce %7 dim=1 identities=[1 : i32] : tile<8x128xi32> -> tile<8xi32> 
  (%reduce_lhs: tile<i32>, %reduce_rhs: tile<i32>) {
    %9 = muli %reduce_lhs, %reduce_rhs : tile<i32>
    yield %9 : tile<i32>
  }
  %pview_48 = make_partition_view %tview_33 : partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>
  %8 = store_view_tko weak %reduce_47, %pview_48[%blockId_x] token = %0 : tile<8xi32>, partition_view<tile=(8), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
  return
}
