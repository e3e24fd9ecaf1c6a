entry @attention_occupancy_f16_Kt1_A4f16_7v8l0_8t1_p16_A4f16_7v8l0_8t1_p16_A4f16_7v8l0_8t1_p16_A4f16_7v8l0_8t1_p16_Si32(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<f16>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<ptr<f16>>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<i32>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<i32>, %arg26: tile<i32>, %arg27: tile<ptr<f16>>, %arg28: tile<i32>, %arg29: tile<i32>, %arg30: tile<i32>, %arg31: tile<i32>, %arg32: tile<i32>, %arg33: tile<i32>, %arg34: tile<i32>, %arg35: tile<i32>, %arg36: tile<i32>) optimization_hints=<default = {occupancy = 2}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
  %assume_0 = assume div_by<8>, %arg5 : tile<i32>
  %assume_1 = assume div_by<8>, %arg6 : tile<i32>
  %assume_2 = assume div_by<8>, %arg7 : tile<i32>
  %assume_3 = assume div_by<16>, %arg9 : tile<ptr<f16>>
  %assume_4 = assume div_by<8>, %arg14 : tile<i32>
  %assume_5 = assume div_by<8>, %arg15 : tile<i32>
  %assume_6 = assume div_by<8>, %arg16 : tile<i32>
  %assume_7 = assume div_by<16>, %arg18 : tile<ptr<f16>>
  %assume_8 = assume div_by<8>, %arg23 : tile<i32>
  %assume_9 = assume div_by<8>, %arg24 : tile<i32>
  %assume_10 = assume div_by<8>, %arg25 : tile<i32>
  %assume_11 = assume div_by<16>, %arg27 : tile<ptr<f16>>
  %assume_12 = assume div_by<8>, %arg32 : tile<i32>
  %assume_13 = assume div_by<8>, %arg33 : tile<i32>
  %assume_14 = assume div_by<8>, %arg34 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_15 = constant <i32: 1> : tile<i32>
  %cst_1_i32_16 = constant <i32: 1> : tile<i32>
  %cst_1_i32_17 = constant <i32: 1> : tile<i32>
  %assume_18 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_19 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_20 = assume bounded<0, ?>, %arg3 : tile<i32>
  %assume_21 = assume bounded<0, ?>, %arg4 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<8>, %assume_assume : tile<i32>
  %assume_assume_22 = assume bounded<0, ?>, %assume_1 : tile<i32>
  %assume_assume_assume_23 = assume div_by<8>, %assume_assume_22 : tile<i32>
  %assume_assume_24 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_25 = assume div_by<8>, %assume_assume_24 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_18, %assume_19, %assume_20, %assume_21], strides = [%assume_assume_assume, %assume_assume_assume_23, %assume_assume_assume_25, 1] : tile<i32> -> tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>
  %assume_26 = assume bounded<0, ?>, %arg10 : tile<i32>
  %assume_27 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_28 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_29 = assume bounded<0, ?>, %arg13 : tile<i32>
  %assume_assume_30 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_31 = assume div_by<8>, %assume_assume_30 : tile<i32>
  %assume_assume_32 = assume bounded<0, ?>, %assume_5 : tile<i32>
  %assume_assume_assume_33 = assume div_by<8>, %assume_assume_32 : tile<i32>
  %assume_assume_34 = assume bounded<0, ?>, %assume_6 : tile<i32>
  %assume_assume_assume_35 = assume div_by<8>, %assume_assume_34 : tile<i32>
  %tview_36 = make_tensor_view %assume_3, shape = [%assume_26, %assume_27, %assume_28, %assume_29], strides = [%assume_assume_assume_31, %assume_assume_assume_33, %assume_assume_assume_35, 1] : tile<i32> -> tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>
  %assume_37 = assume bounded<0, ?>, %arg19 : tile<i32>
  %assume_38 = assume bounded<0, ?>, %arg20 : tile<i32>
  %assume_39 = assume bounded<0, ?>, %arg21 : tile<i32>
  %assume_40 = assume bounded<0, ?>, %arg22 : tile<i32>
  %assume_assume_41 = assume bounded<0, ?>, %assume_8 : tile<i32>
  %assume_assume_assume_42 = assume div_by<8>, %assume_assume_41 : tile<i32>
  %assume_assume_43 = assume bounded<0, ?>, %assume_9 : tile<i32>
  %assume_assume_assume_44 = assume div_by<8>, %assume_assume_43 : tile<i32>
  %assume_assume_45 = assume bounded<0, ?>, %assume_10 : tile<i32>
  %assume_assume_assume_46 = assume div_by<8>, %assume_assume_45 : tile<i32>
  %tview_47 = make_tensor_view %assume_7, shape = [%assume_37, %assume_38, %assume_39, %assume_40], strides = [%assume_assume_assume_42, %assume_assume_assume_44, %assume_assume_assume_46, 1] : tile<i32> -> tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>
  %assume_48 = assume bounded<0, ?>, %arg28 : tile<i32>
  %assume_49 = assume bounded<0, ?>, %arg29 : tile<i32>
  %assume_50 = assume bounded<0, ?>, %arg30 : tile<i32>
  %assume_51 = assume bounded<0, ?>, %arg31 : tile<i32>
  %assume_assume_52 = assume bounded<0, ?>, %assume_12 : tile<i32>
  %assume_assume_assume_53 = assume div_by<8>, %assume_assume_52 : tile<i32>
  %assume_assume_54 = assume bounded<0, ?>, %assume_13 : tile<i32>
  %assume_assume_assume_55 = assume div_by<8>, %assume_assume_54 : tile<i32>
  %assume_assume_56 = assume bounded<0, ?>, %assume_14 : tile<i32>
  %assume_assume_assume_57 = assume div_by<8>, %assume_assume_56 : tile<i32>
  %tview_58 = make_tensor_view %assume_11, shape = [%assume_48, %assume_49, %assume_50, %assume_51], strides = [%assume_assume_assume_53, %assume_assume_assume_55, %assume_assume_assume_57, 1] : tile<i32> -> tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_59, %blockId_y_60, %blockId_z_61 = get_tile_block_id : tile<i32>
  %cst_1_i32_62 = constant <i32: 1> : tile<i32>
  %1 = divi %blockId_y_60, %cst_1_i32_62 signed rounding<negative_inf> : tile<i32>
  %cst_1_i32_63 = constant <i32: 1> : tile<i32>
  %2 = remi %blockId_y_60, %cst_1_i32_63 signed : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %3 = cmpi less_than %2, %cst_0_i32, signed : tile<i32> -> tile<i1>
  %false = constant <i1: false> : tile<i1>
  %4 = xori %3, %false : tile<i1>
  %5 = cmpi not_equal %2, %cst_0_i32, signed : tile<i32> -> tile<i1>
  %6 = andi %4, %5 : tile<i1>
  %7 = addi %2, %cst_1_i32_63 : tile<i32>
  %8 = select %6, %7, %2 : tile<i1>, tile<i32>
  %cst_0_i32_64 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(1x1x128x128), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%1, %8, %blockId_x, %cst_0_i32_64] token = %0 : partition_view<tile=(1x1x128x128), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x128x128xf16>, token
  %reshape = reshape %tile : tile<1x1x128x128xf16> -> tile<128x128xf16>
  %cst_f32 = constant <f32: -1.000000e+30> : tile<128x1xf32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x1xf32>
  %cst_0_f32_65 = constant <f32: 0.000000e+00> : tile<128x128xf32>
  %cst_0_i32_66 = constant <i32: 0> : tile<i32>
  %cst_1_i32_67 = constant <i32: 1> : tile<i32>
  %cst_0_i32_68 = constant <i32: 0> : tile<i32>
  %pview_69 = make_partition_view %tview_36 : partition_view<tile=(1x1x128x128), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>, dim_map=[0, 1, 3, 2]>
  %cst_0_f32_70 = constant <f32: 0.000000e+00> : tile<128x128xf32>
  %cst_f32_71 = constant <f32: 1.250000e-01> : tile<f32>
  %reshape_72 = reshape %cst_f32_71 : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape_72 : tile<1x1xf32> -> tile<128x128xf32>
  %cst_0_i32_73 = constant <i32: 0> : tile<i32>
  %pview_74 = make_partition_view %tview_47 : partition_view<tile=(1x1x128x128), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>
  %for:3 = for %loopIdx in (%cst_0_i32_66 to %arg36, step %cst_1_i32_67) : tile<i32> iter_values(%iterArg0 = %cst_0_f32_65, %iterArg1 = %cst_0_f32, %iterArg2 = %cst_f32) -> (tile<128x128xf32>, tile<128x1xf32>, tile<128x1xf32>) {
    %tile_79, %result_token_80 = load_view_tko weak %pview_69[%1, %8, %cst_0_i32_68, %loopIdx] token = %0 : partition_view<tile=(1x1x128x128), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>, dim_map=[0, 1, 3, 2]>, tile<i32> -> tile<1x1x128x128xf16>, token
    %reshape_81 = reshape %tile_79 : tile<1x1x128x128xf16> -> tile<128x128xf16>
    %12 = mmaf %reshape, %reshape_81, %cst_0_f32_70 : tile<128x128xf16>, tile<128x128xf16>, tile<128x128xf32>
    %13 = mulf %12, %bcast  : tile<128x128xf32>
    %reduce = reduce %13 dim=1 identities=[0xFF800000 : f32] : tile<128x128xf32> -> tile<128xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %23 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
      yield %23 : tile<f32>
    }
    %reshape_82 = reshape %reduce : tile<128xf32> -> tile<128x1xf32>
    %14 = maxf %iterArg2, %reshape_82 : tile<128x1xf32>
    %bcast_83 = broadcast %14 : tile<128x1xf32> -> tile<128x128xf32>
    %15 = subf %13, %bcast_83  : tile<128x128xf32>
    %16 = exp %15  : tile<128x128xf32>
    %17 = subf %iterArg2, %14  : tile<128x1xf32>
    %18 = exp %17  : tile<128x1xf32>
    %reduce_84 = reduce %16 dim=1 identities=[0.000000e+00 : f32] : tile<128x128xf32> -> tile<128xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %23 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %23 : tile<f32>
    }
    %reshape_85 = reshape %reduce_84 : tile<128xf32> -> tile<128x1xf32>
    %19 = fma %iterArg1, %18, %reshape_85  : tile<128x1xf32>
    %tile_86, %result_token_87 = load_view_tko weak %pview_74[%1, %8, %loopIdx, %cst_0_i32_73] token = %0 : partition_view<tile=(1x1x128x128), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x128x128xf16>, token
    %reshape_88 = reshape %tile_86 : tile<1x1x128x128xf16> -> tile<128x128xf16>
    %20 = ftof %16  : tile<128x128xf32> -> tile<128x128xf16>
    %bcast_89 = broadcast %18 : tile<128x1xf32> -> tile<128x128xf32>
    %21 = mulf %iterArg0, %bcast_89  : tile<128x128xf32>
    %22 = mmaf %20, %reshape_88, %21 : tile<128x128xf16>, tile<128x128xf16>, tile<128x128xf32>
    continue %22, %19, %14 : tile<128x128xf32>, tile<128x1xf32>, tile<128x1xf32>
  }
  %bcast_75 = broadcast %for#1 : tile<128x1xf32> -> tile<128x128xf32>
  %9 = divf %for#0, %bcast_75  : tile<128x128xf32>
  %reshape_76 = reshape %9 : tile<128x128xf32> -> tile<1x1x128x128xf32>
  %10 = ftof %reshape_76  : tile<1x1x128x128xf32> -> tile<1x1x128x128xf16>
  %cst_0_i32_77 = constant <i32: 0> : tile<i32>
  %pview_78 = make_partition_view %tview_58 : partition_view<tile=(1x1x128x128), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>
  %11 = store_view_tko weak %10, %pview_78[%1, %8, %blockId_x, %cst_0_i32_77] token = %0 : tile<1x1x128x128xf16>, partition_view<tile=(1x1x128x128), tensor_view<?x?x?x?xf16, strides=[?,?,?,1]>>, tile<i32> -> token
  return
}
