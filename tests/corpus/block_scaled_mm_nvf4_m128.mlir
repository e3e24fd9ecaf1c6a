entry @block_scaled_mm_nvf4_m128_Kt1_A2u8_1v16l0_2t1_p16_A2f8m3fn_1v8l0_2t1_p4_A2u8_1v16l0_2t1_p16_A2f8m3fn_1v8l0_2t1_p4_A2f32_1v4l0_2t1_p16_Si32(%arg0: tile<ptr<i8>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<f8E4M3FN>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<i8>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<ptr<f8E4M3FN>>, %arg16: tile<i32>, %arg17: tile<i32>, %arg18: tile<i32>, %arg19: tile<i32>, %arg20: tile<ptr<f32>>, %arg21: tile<i32>, %arg22: tile<i32>, %arg23: tile<i32>, %arg24: tile<i32>, %arg25: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<i8>>
  %assume_0 = assume div_by<16>, %arg3 : tile<i32>
  %assume_1 = assume div_by<4>, %arg5 : tile<ptr<f8E4M3FN>>
  %assume_2 = assume div_by<8>, %arg8 : tile<i32>
  %assume_3 = assume div_by<16>, %arg10 : tile<ptr<i8>>
  %assume_4 = assume div_by<16>, %arg13 : tile<i32>
  %assume_5 = assume div_by<4>, %arg15 : tile<ptr<f8E4M3FN>>
  %assume_6 = assume div_by<8>, %arg18 : tile<i32>
  %assume_7 = assume div_by<16>, %arg20 : tile<ptr<f32>>
  %assume_8 = assume div_by<4>, %arg23 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_9 = constant <i32: 1> : tile<i32>
  %cst_1_i32_10 = constant <i32: 1> : tile<i32>
  %cst_1_i32_11 = constant <i32: 1> : tile<i32>
  %cst_1_i32_12 = constant <i32: 1> : tile<i32>
  %assume_13 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_14 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<16>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_13, %assume_14], strides = [%assume_assume_assume, 1] : tile<i32> -> tensor_view<?x?xi8, strides=[?,1]>
  %assume_15 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_16 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_assume_17 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_18 = assume div_by<8>, %assume_assume_17 : tile<i32>
  %tview_19 = make_tensor_view %assume_1, shape = [%assume_15, %assume_16], strides = [%assume_assume_assume_18, 1] : tile<i32> -> tensor_view<?x?xf8E4M3FN, strides=[?,1]>
  %assume_20 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_21 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_assume_22 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_23 = assume div_by<16>, %assume_assume_22 : tile<i32>
  %tview_24 = make_tensor_view %assume_3, shape = [%assume_20, %assume_21], strides = [%assume_assume_assume_23, 1] : tile<i32> -> tensor_view<?x?xi8, strides=[?,1]>
  %assume_25 = assume bounded<0, ?>, %arg16 : tile<i32>
  %assume_26 = assume bounded<0, ?>, %arg17 : tile<i32>
  %assume_assume_27 = assume bounded<0, ?>, %assume_6 : tile<i32>
  %assume_assume_assume_28 = assume div_by<8>, %assume_assume_27 : tile<i32>
  %tview_29 = make_tensor_view %assume_5, shape = [%assume_25, %assume_26], strides = [%assume_assume_assume_28, 1] : tile<i32> -> tensor_view<?x?xf8E4M3FN, strides=[?,1]>
  %assume_30 = assume bounded<0, ?>, %arg21 : tile<i32>
  %assume_31 = assume bounded<0, ?>, %arg22 : tile<i32>
  %assume_assume_32 = assume bounded<0, ?>, %assume_8 : tile<i32>
  %assume_assume_assume_33 = assume div_by<4>, %assume_assume_32 : tile<i32>
  %tview_34 = make_tensor_view %assume_7, shape = [%assume_30, %assume_31], strides = [%assume_assume_assume_33, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_35, %blockId_y_36, %blockId_z_37 = get_tile_block_id : tile<i32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x32xf32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32_38 = constant <i32: 1> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xi8, strides=[?,1]>>
  %pview_39 = make_partition_view %tview_19 : partition_view<tile=(128x8), tensor_view<?x?xf8E4M3FN, strides=[?,1]>>
  %pview_40 = make_partition_view %tview_24 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xi8, strides=[?,1]>>
  %pview_41 = make_partition_view %tview_29 : partition_view<tile=(8x32), tensor_view<?x?xf8E4M3FN, strides=[?,1]>>
  %for = for %loopIdx in (%cst_0_i32 to %arg25, step %cst_1_i32_38) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<128x32xf32>) {
    %tile, %result_token = load_view_tko weak %pview[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xi8, strides=[?,1]>>, tile<i32> -> tile<128x64xi8>, token
    %reshape = reshape %tile : tile<128x64xi8> -> tile<8192xi8>
    %2 = unpack %reshape : tile<8192xi8> -> tile<16384xf4E2M1FN>
    %reshape_43 = reshape %2 : tile<16384xf4E2M1FN> -> tile<128x128xf4E2M1FN>
    %tile_44, %result_token_45 = load_view_tko weak %pview_39[%blockId_x, %loopIdx] token = %0 : partition_view<tile=(128x8), tensor_view<?x?xf8E4M3FN, strides=[?,1]>>, tile<i32> -> tile<128x8xf8E4M3FN>, token
    %tile_46, %result_token_47 = load_view_tko weak %pview_40[%blockId_y_36, %loopIdx] token = %0 : partition_view<tile=(32x64), padding_value = zero, tensor_view<?x?xi8, strides=[?,1]>>, tile<i32> -> tile<32x64xi8>, token
    %reshape_48 = reshape %tile_46 : tile<32x64xi8> -> tile<2048xi8>
    %3 = unpack %reshape_48 : tile<2048xi8> -> tile<4096xf4E2M1FN>
    %reshape_49 = reshape %3 : tile<4096xf4E2M1FN> -> tile<32x128xf4E2M1FN>
    %tile_50, %result_token_51 = load_view_tko weak %pview_41[%loopIdx, %blockId_y_36] token = %0 : partition_view<tile=(8x32), tensor_view<?x?xf8E4M3FN, strides=[?,1]>>, tile<i32> -> tile<8x32xf8E4M3FN>, token
    %4 = permute %reshape_49 [1, 0] : tile<32x128xf4E2M1FN> -> tile<128x32xf4E2M1FN>
    %5 = mmaf_scaled %reshape_43, %4, %iterArg0, %tile_44, %tile_50 : tile<128x128xf4E2M1FN>, tile<128x32xf4E2M1FN>, tile<128x32xf32>, tile<128x8xf8E4M3FN>, tile<8x32xf8E4M3FN>
    continue %5 : tile<128x32xf32>
  }
  %pview_42 = make_partition_view %tview_34 : partition_view<tile=(128x32), tensor_view<?x?xf32, strides=[?,1]>>
  %1 = store_view_tko weak %for, %pview_42[%blockId_x, %blockId_y_36] token = %0 : tile<128x32xf32>, partition_view<tile=(128x32), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
