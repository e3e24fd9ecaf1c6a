entry @bool_mask_rows_Kt1_A2f32_1v16l0_2t1_3i16_p16_A2b8_1v16l0_2t1_3i16_p16_A2f32_1v16l0_2t1_3i16_p16_A2b8_1v16l0_2t1_3i16_p16_A2i32_1v16l0_2t1_3i16_p16(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<i1>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<i1>>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<ptr<i32>>, %arg21: tile<i32>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
  %assume_0 = assume div_by<16>, %arg1 : tile<i32>
  %assume_1 = assume div_by<16>, %arg2 : tile<i32>
  %assume_2 = assume div_by<16>, %arg3 : tile<i32>
  %assume_3 = assume div_by<16>, %arg5 : tile<ptr<i1>>
  %assume_4 = assume div_by<16>, %arg6 : tile<i32>
  %assume_5 = assume div_by<16>, %arg7 : tile<i32>
  %assume_6 = assume div_by<16>, %arg8 : tile<i32>
  %assume_7 = assume div_by<16>, %arg10 : tile<ptr<f32>>
  %assume_8 = assume div_by<16>, %arg11 : tile<i32>
  %assume_9 = assume div_by<16>, %arg12 : tile<i32>
  %assume_10 = assume div_by<16>, %arg13 : tile<i32>
  %assume_11 = assume div_by<16>, %arg15 : tile<ptr<i1>>
  %assume_12 = assume div_by<16>, %arg16 : tile<i32>
  %assume_13 = assume div_by<16>, %arg17 : tile<i32>
  %assume_14 = assume div_by<16>, %arg18 : tile<i32>
  %assume_15 = assume div_by<16>, %arg20 : tile<ptr<i32>>
  %assume_16 = assume div_by<16>, %arg21 : tile<i32>
  %assume_17 = assume div_by<16>, %arg22 : tile<i32>
  %assume_18 = assume div_by<16>, %arg23 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_19 = constant <i32: 1> : tile<i32>
  %cst_1_i32_20 = constant <i32: 1> : tile<i32>
  %cst_1_i32_21 = constant <i32: 1> : tile<i32>
  %cst_1_i32_22 = constant <i32: 1> : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
  %assume_assume_23 = assume bounded<0, ?>, %assume_1 : tile<i32>
  %assume_assume_assume_24 = assume div_by<16>, %assume_assume_23 : tile<i32>
  %assume_assume_25 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_26 = assume div_by<16>, %assume_assume_25 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_assume_assume, %assume_assume_assume_24], strides = [%assume_assume_assume_26, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_assume_27 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_28 = assume div_by<16>, %assume_assume_27 : tile<i32>
  %assume_assume_29 = assume bounded<0, ?>, %assume_5 : tile<i32>
  %assume_assume_assume_30 = assume div_by<16>, %assume_assume_29 : tile<i32>
  %assume_assume_31 = assume bounded<0, ?>, %assume_6 : tile<i32>
  %assume_assume_assume_32 = assume div_by<16>, %assume_assume_31 : tile<i32>
  %tview_33 = make_tensor_view %assume_3, shape = [%assume_assume_assume_28, %assume_assume_assume_30], strides = [%assume_assume_assume_32, 1] : tile<i32> -> tensor_view<?x?xi1, strides=[?,1]>
  %assume_assume_34 = assume bounded<0, ?>, %assume_8 : tile<i32>
  %assume_assume_assume_35 = assume div_by<16>, %assume_assume_34 : tile<i32>
  %assume_assume_36 = assume bounded<0, ?>, %assume_9 : tile<i32>
  %assume_assume_assume_37 = assume div_by<16>, %assume_assume_36 : tile<i32>
  %assume_assume_38 = assume bounded<0, ?>, %assume_10 : tile<i32>
  %assume_assume_assume_39 = assume div_by<16>, %assume_assume_38 : tile<i32>
  %tview_40 = make_tensor_view %assume_7, shape = [%assume_assume_assume_35, %assume_assume_assume_37], strides = [%assume_assume_assume_39, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %assume_assume_41 = assume bounded<0, ?>, %assume_12 : tile<i32>
  %assume_assume_assume_42 = assume div_by<16>, %assume_assume_41 : tile<i32>
  %assume_assume_43 = assume bounded<0, ?>, %assume_13 : tile<i32>
  %assume_assume_assume_44 = assume div_by<16>, %assume_assume_43 : tile<i32>
  %assume_assume_45 = assume bounded<0, ?>, %assume_14 : tile<i32>
  %assume_assume_assume_46 = assume div_by<16>, %assume_assume_45 : tile<i32>
  %tview_47 = make_tensor_view %assume_11, shape = [%assume_assume_assume_42, %assume_assume_assume_44], strides = [%assume_assume_assume_46, 1] : tile<i32> -> tensor_view<?x?xi1, strides=[?,1]>
  %assume_assume_48 = assume bounded<0, ?>, %assume_16 : tile<i32>
  %assume_assume_assume_49 = assume div_by<16>, %assume_assume_48 : tile<i32>
  %assume_assume_50 = assume bounded<0, ?>, %assume_17 : tile<i32>
  %assume_assume_assume_51 = assume div_by<16>, %assume_assume_50 : tile<i32>
  %assume_assume_52 = assume bounded<0, ?>, %assume_18 : tile<i32>
  %assume_assume_assume_53 = assume div_by<16>, %assume_assume_52 : tile<i32>
  %tview_54 = make_tensor_view %assume_15, shape = [%assume_assume_assume_49, %assume_assume_assume_51], strides = [%assume_assume_assume_53, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_55, %blockId_y_56, %blockId_z_57 = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %blockId_y_56] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x64xf32>, token
  %pview_58 = make_partition_view %tview_33 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xi1, strides=[?,1]>>
  %tile_59, %result_token_60 = load_view_tko weak %pview_58[%blockId_x, %blockId_y_56] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xi1, strides=[?,1]>>, tile<i32> -> tile<32x64xi1>, token
  %1 = negf %tile : tile<32x64xf32>
  %2 = select %tile_59, %tile, %1 : tile<32x64xi1>, tile<32x64xf32>
  %pview_61 = make_partition_view %tview_40 : partition_view<tile=(32x64), tensor_view<?x?xf32, strides=[?,1]>>
  %3 = store_view_tko weak %2, %pview_61[%blockId_x, %blockId_y_56] token = %0 : tile<32x64xf32>, partition_view<tile=(32x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<f32>
  %reshape = reshape %cst_0_f32 : tile<f32> -> tile<1x1xf32>
  %bcast = broadcast %reshape : tile<1x1xf32> -> tile<32x64xf32>
  %4 = cmpf greater_than ordered %tile, %bcast : tile<32x64xf32> -> tile<32x64xi1>
  %pview_62 = make_partition_view %tview_47 : partition_view<tile=(32x64), tensor_view<?x?xi1, strides=[?,1]>>
  %5 = store_view_tko weak %4, %pview_62[%blockId_x, %blockId_y_56] token = %0 : tile<32x64xi1>, partition_view<tile=(32x64), tensor_view<?x?xi1, strides=[?,1]>>, tile<i32> -> token
  %6 = exti %tile_59 unsigned : tile<32x64xi1> -> tile<32x64xi32>
  %7 = scan %6 dim=1 reverse=false identities=[0 : i32] : tile<32x64xi32> -> tile<32x64xi32> 
  (%arg25: tile<i32>, %arg26: tile<i32>) {
    %9 = addi %arg25, %arg26 : tile<i32>
    yield %9 : tile<i32>
  }
  %pview_63 = make_partition_view %tview_54 : partition_view<tile=(32x64), tensor_view<?x?xi32, strides=[?,1]>>
  %8 = store_view_tko weak %7, %pview_63[%blockId_x, %blockId_y_56] token = %0 : tile<32x64xi32>, partition_view<tile=(32x64), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> token
  return
}
