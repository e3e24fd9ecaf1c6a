entry @flash_attention_causal_bf16_Kt1_A4bf16_7v8l0_8t1_p16_A4bf16_7v8l0_8t1_p16_A4bf16_7v8l0_8t1_p16_A4bf16_7v8l0_8t1_p16(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<bf16>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<i32>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<ptr<bf16>>, %arg19: tile<i32>, %arg20: tile<i32>, %arg21: tile<i32>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<i32>, %arg26: tile<i32>, %arg27: tile<ptr<bf16>>, %arg28: tile<i32>, %arg29: tile<i32>, %arg30: tile<i32>, %arg31: tile<i32>, %arg32: tile<i32>, %arg33: tile<i32>, %arg34: tile<i32>, %arg35: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
  %assume_0 = assume div_by<8>, %arg5 : tile<i32>
  %assume_1 = assume div_by<8>, %arg6 : tile<i32>
  %assume_2 = assume div_by<8>, %arg7 : tile<i32>
  %assume_3 = assume div_by<16>, %arg9 : tile<ptr<bf16>>
  %assume_4 = assume div_by<8>, %arg14 : tile<i32>
  %assume_5 = assume div_by<8>, %arg15 : tile<i32>
  %assume_6 = assume div_by<8>, %arg16 : tile<i32>
  %assume_7 = assume div_by<16>, %arg18 : tile<ptr<bf16>>
  %assume_8 = assume div_by<8>, %arg23 : tile<i32>
  %assume_9 = assume div_by<8>, %arg24 : tile<i32>
  %assume_10 = assume div_by<8>, %arg25 : tile<i32>
  %assume_11 = assume div_by<16>, %arg27 : tile<ptr<bf16>>
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
  %tview = make_tensor_view %assume, shape = [%assume_18, %assume_19, %assume_20, %assume_21], strides = [%assume_assume_assume, %assume_assume_assume_23, %assume_assume_assume_25, 1] : tile<i32> -> tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>
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
  %tview_36 = make_tensor_view %assume_3, shape = [%assume_26, %assume_27, %assume_28, %assume_29], strides = [%assume_assume_assume_31, %assume_assume_assume_33, %assume_assume_assume_35, 1] : tile<i32> -> tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>
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
  %tview_47 = make_tensor_view %assume_7, shape = [%assume_37, %assume_38, %assume_39, %assume_40], strides = [%assume_assume_assume_42, %assume_assume_assume_44, %assume_assume_assume_46, 1] : tile<i32> -> tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>
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
  %tview_58 = make_tensor_view %assume_11, shape = [%assume_48, %assume_49, %assume_50, %assume_51], strides = [%assume_assume_assume_53, %assume_assume_assume_55, %assume_assume_assume_57, 1] : tile<i32> -> tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_59, %blockId_y_60, %blockId_z_61 = get_tile_block_id : tile<i32>
  %cst_2_i32 = constant <i32: 2> : tile<i32>
  %1 = divi %blockId_y_60, %cst_2_i32 signed rounding<negative_inf> : tile<i32>
  %cst_2_i32_62 = constant <i32: 2> : tile<i32>
  %2 = remi %blockId_y_60, %cst_2_i32_62 signed : tile<i32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %3 = cmpi less_than %2, %cst_0_i32, signed : tile<i32> -> tile<i1>
  %false = constant <i1: false> : tile<i1>
  %4 = xori %3, %false : tile<i1>
  %5 = cmpi not_equal %2, %cst_0_i32, signed : tile<i32> -> tile<i1>
  %6 = andi %4, %5 : tile<i1>
  %7 = addi %2, %cst_2_i32_62 : tile<i32>
  %8 = select %6, %7, %2 : tile<i1>, tile<i32>
  %cst_0_i32_63 = constant <i32: 0> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%1, %8, %blockId_x, %cst_0_i32_63] token = %0 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x64x64xbf16>, token
  %reshape = reshape %tile : tile<1x1x64x64xbf16> -> tile<64x64xbf16>
  %cst_f32 = constant <f32: -1.000000e+30> : tile<64x1xf32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<64x1xf32>
  %cst_0_f32_64 = constant <f32: 0.000000e+00> : tile<64x64xf32>
  %cst_0_i32_65 = constant <i32: 0> : tile<i32>
  %cst_1_i32_66 = constant <i32: 1> : tile<i32>
  %cst_0_i32_67 = constant <i32: 0> : tile<i32>
  %pview_68 = make_partition_view %tview_36 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>, dim_map=[0, 1, 3, 2]>
  %cst_0_f32_69 = constant <f32: 0.000000e+00> : tile<64x64xf32>
  %cst_f32_70 = constant <f32: 1.250000e-01> : tile<f32>
  %reshape_71 = reshape %cst_f32_70 : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape_71 : tile<1x1xf32> -> tile<64x64xf32>
  %cst_0_i32_72 = constant <i32: 0> : tile<i32>
  %pview_73 = make_partition_view %tview_47 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>>
  %for:3 = for %loopIdx in (%cst_0_i32_65 to %blockId_x, step %cst_1_i32_66) : tile<i32> iter_values(%iterArg0 = %cst_0_f32_64, %iterArg1 = %cst_0_f32, %iterArg2 = %cst_f32) -> (tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>) {
    %tile_96, %result_token_97 = load_view_tko weak %pview_68[%1, %8, %cst_0_i32_67, %loopIdx] token = %0 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>, dim_map=[0, 1, 3, 2]>, tile<i32> -> tile<1x1x64x64xbf16>, token
    %reshape_98 = reshape %tile_96 : tile<1x1x64x64xbf16> -> tile<64x64xbf16>
    %16 = mmaf %reshape, %reshape_98, %cst_0_f32_69 : tile<64x64xbf16>, tile<64x64xbf16>, tile<64x64xf32>
    %17 = mulf %16, %bcast  : tile<64x64xf32>
    %reduce = reduce %17 dim=1 identities=[0xFF800000 : f32] : tile<64x64xf32> -> tile<64xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %27 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
      yield %27 : tile<f32>
    }
    %reshape_99 = reshape %reduce : tile<64xf32> -> tile<64x1xf32>
    %18 = maxf %iterArg2, %reshape_99 : tile<64x1xf32>
    %bcast_100 = broadcast %18 : tile<64x1xf32> -> tile<64x64xf32>
    %19 = subf %17, %bcast_100  : tile<64x64xf32>
    %20 = exp %19  : tile<64x64xf32>
    %21 = subf %iterArg2, %18  : tile<64x1xf32>
    %22 = exp %21  : tile<64x1xf32>
    %reduce_101 = reduce %20 dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %27 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %27 : tile<f32>
    }
    %reshape_102 = reshape %reduce_101 : tile<64xf32> -> tile<64x1xf32>
    %23 = fma %iterArg1, %22, %reshape_102  : tile<64x1xf32>
    %tile_103, %result_token_104 = load_view_tko weak %pview_73[%1, %8, %loopIdx, %cst_0_i32_72] token = %0 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x64x64xbf16>, token
    %reshape_105 = reshape %tile_103 : tile<1x1x64x64xbf16> -> tile<64x64xbf16>
    %24 = ftof %20  : tile<64x64xf32> -> tile<64x64xbf16>
    %bcast_106 = broadcast %22 : tile<64x1xf32> -> tile<64x64xf32>
    %25 = mulf %iterArg0, %bcast_106  : tile<64x64xf32>
    %26 = mmaf %24, %reshape_105, %25 : tile<64x64xbf16>, tile<64x64xbf16>, tile<64x64xf32>
    continue %26, %23, %18 : tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>
  }
  %9 = iota : tile<64xi32>
  %reshape_74 = reshape %9 : tile<64xi32> -> tile<64x1xi32>
  %10 = iota : tile<64xi32>
  %reshape_75 = reshape %10 : tile<64xi32> -> tile<1x64xi32>
  %cst_1_i32_76 = constant <i32: 1> : tile<i32>
  %11 = addi %blockId_x, %cst_1_i32_76 : tile<i32>
  %cst_1_i32_77 = constant <i32: 1> : tile<i32>
  %bcast_78 = broadcast %reshape_74 : tile<64x1xi32> -> tile<64x64xi32>
  %bcast_79 = broadcast %reshape_75 : tile<1x64xi32> -> tile<64x64xi32>
  %12 = cmpi greater_than_or_equal %bcast_78, %bcast_79, signed : tile<64x64xi32> -> tile<64x64xi1>
  %cst_0_i32_80 = constant <i32: 0> : tile<i32>
  %pview_81 = make_partition_view %tview_36 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>, dim_map=[0, 1, 3, 2]>
  %cst_0_f32_82 = constant <f32: 0.000000e+00> : tile<64x64xf32>
  %cst_f32_83 = constant <f32: 1.250000e-01> : tile<f32>
  %reshape_84 = reshape %cst_f32_83 : tile<f32> -> tile<1x1xf32>
  %bcast_85 = broadcast %reshape_84 : tile<1x1xf32> -> tile<64x64xf32>
  %cst_f32_86 = constant <f32: -1.000000e+30> : tile<f32>
  %reshape_87 = reshape %cst_f32_86 : tile<f32> -> tile<1x1xf32>
  %bcast_88 = broadcast %reshape_87 : tile<1x1xf32> -> tile<64x64xf32>
  %cst_0_i32_89 = constant <i32: 0> : tile<i32>
  %pview_90 = make_partition_view %tview_47 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>>
  %for_91:3 = for %loopIdx in (%blockId_x to %11, step %cst_1_i32_77) : tile<i32> iter_values(%iterArg0 = %for#0, %iterArg1 = %for#1, %iterArg2 = %for#2) -> (tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>) {
    %tile_96, %result_token_97 = load_view_tko weak %pview_81[%1, %8, %cst_0_i32_80, %loopIdx] token = %0 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>, dim_map=[0, 1, 3, 2]>, tile<i32> -> tile<1x1x64x64xbf16>, token
    %reshape_98 = reshape %tile_96 : tile<1x1x64x64xbf16> -> tile<64x64xbf16>
    %16 = mmaf %reshape, %reshape_98, %cst_0_f32_82 : tile<64x64xbf16>, tile<64x64xbf16>, tile<64x64xf32>
    %17 = mulf %16, %bcast_85  : tile<64x64xf32>
    %18 = select %12, %17, %bcast_88 : tile<64x64xi1>, tile<64x64xf32>
    %reduce = reduce %18 dim=1 identities=[0xFF800000 : f32] : tile<64x64xf32> -> tile<64xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %28 = maxf %reduce_lhs, %reduce_rhs : tile<f32>
      yield %28 : tile<f32>
    }
    %reshape_99 = reshape %reduce : tile<64xf32> -> tile<64x1xf32>
    %19 = maxf %iterArg2, %reshape_99 : tile<64x1xf32>
    %bcast_100 = broadcast %19 : tile<64x1xf32> -> tile<64x64xf32>
    %20 = subf %18, %bcast_100  : tile<64x64xf32>
    %21 = exp %20  : tile<64x64xf32>
    %22 = subf %iterArg2, %19  : tile<64x1xf32>
    %23 = exp %22  : tile<64x1xf32>
    %reduce_101 = reduce %21 dim=1 identities=[0.000000e+00 : f32] : tile<64x64xf32> -> tile<64xf32> 
    (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
      %28 = addf %reduce_lhs, %reduce_rhs  : tile<f32>
      yield %28 : tile<f32>
    }
    %reshape_102 = reshape %reduce_101 : tile<64xf32> -> tile<64x1xf32>
    %24 = fma %iterArg1, %23, %reshape_102  : tile<64x1xf32>
    %tile_103, %result_token_104 = load_view_tko weak %pview_90[%1, %8, %loopIdx, %cst_0_i32_89] token = %0 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>>, tile<i32> -> tile<1x1x64x64xbf16>, token
    %reshape_105 = reshape %tile_103 : tile<1x1x64x64xbf16> -> tile<64x64xbf16>
    %25 = ftof %21  : tile<64x64xf32> -> tile<64x64xbf16>
    %bcast_106 = broadcast %23 : tile<64x1xf32> -> tile<64x64xf32>
    %26 = mulf %iterArg0, %bcast_106  : tile<64x64xf32>
    %27 = mmaf %25, %reshape_105, %26 : tile<64x64xbf16>, tile<64x64xbf16>, tile<64x64xf32>
    continue %27, %24, %19 : tile<64x64xf32>, tile<64x1xf32>, tile<64x1xf32>
  }
  %bcast_92 = broadcast %for_91#1 : tile<64x1xf32> -> tile<64x64xf32>
  %13 = divf %for_91#0, %bcast_92  : tile<64x64xf32>
  %reshape_93 = reshape %13 : tile<64x64xf32> -> tile<1x1x64x64xf32>
  %14 = ftof %reshape_93  : tile<1x1x64x64xf32> -> tile<1x1x64x64xbf16>
  %cst_0_i32_94 = constant <i32: 0> : tile<i32>
  %pview_95 = make_partition_view %tview_58 : partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>>
  %15 = store_view_tko weak %14, %pview_95[%1, %8, %blockId_x, %cst_0_i32_94] token = %0 : tile<1x1x64x64xbf16>, partition_view<tile=(1x1x64x64), tensor_view<?x?x?x?xbf16, strides=[?,?,?,1]>>, tile<i32> -> token
  return
}
