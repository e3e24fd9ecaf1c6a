entry @residual_cast_f16_Kt1_A1f16_1t1_p16_A1f16_1t1_p16_A1f32_1t1_p16_A1bf16_1t1_Sf32(%arg0: tile<ptr<f16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<ptr<f16>>, %arg4: tile<i32>, %arg5: tile<i32>, %arg6: tile<ptr<f32>>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<ptr<bf16>>, %arg10: tile<i32>, %arg11: tile<i32>, %arg12: tile<f32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<f16>>
  %assume_0 = assume div_by<16>, %arg3 : tile<ptr<f16>>
  %assume_1 = assume div_by<16>, %arg6 : tile<ptr<f32>>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_2 = constant <i32: 1> : tile<i32>
  %cst_1_i32_3 = constant <i32: 1> : tile<i32>
  %cst_1_i32_4 = constant <i32: 1> : tile<i32>
  %assume_5 = assume bounded<0, ?>, %arg1 : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_5], strides = [1] : tile<i32> -> tensor_view<?xf16, strides=[1]>
  %assume_6 = assume bounded<0, ?>, %arg4 : tile<i32>
  %tview_7 = make_tensor_view %assume_0, shape = [%assume_6], strides = [1] : tile<i32> -> tensor_view<?xf16, strides=[1]>
  %assume_8 = assume bounded<0, ?>, %arg7 : tile<i32>
  %tview_9 = make_tensor_view %assume_1, shape = [%assume_8], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
  %assume_10 = assume bounded<0, ?>, %arg10 : tile<i32>
  %tview_11 = make_tensor_view %arg9, shape = [%assume_10], strides = [1] : tile<i32> -> tensor_view<?xbf16, strides=[1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(256), tensor_view<?xf16, strides=[1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xf16, strides=[1]>>, tile<i32> -> tile<256xf16>, token
  %1 = ftof %tile  : tile<256xf16> -> tile<256xf32>
  %pview_12 = make_partition_view %tview_7 : partition_view<tile=(256), tensor_view<?xf16, strides=[1]>>
  %tile_13, %result_token_14 = load_view_tko weak %pview_12[%blockId_x] token = %0 : partition_view<tile=(256), tensor_view<?xf16, strides=[1]>>, tile<i32> -> tile<256xf16>, token
  %2 = ftof %tile_13  : tile<256xf16> -> tile<256xf32>
  %reshape = reshape %arg12 : tile<f32> -> tile<1xf32>
  %bcast = broadcast %reshape : tile<1xf32> -> tile<256xf32>
  %3 = fma %bcast, %2, %1  : tile<256xf32>
  %pview_15 = make_partition_view %tview_9 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
  %4 = store_view_tko weak %3, %pview_15[%blockId_x] token = %0 : tile<256xf32>, partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
  %5 = ftof %3  : tile<256xf32> -> tile<256xbf16>
  %pview_16 = make_partition_view %tview_11 : partition_view<tile=(256), tensor_view<?xbf16, strides=[1]>>
  %6 = store_view_tko weak %5, %pview_16[%blockId_x] token = %0 : tile<256xbf16>, partition_view<tile=(256), tensor_view<?xbf16, strides=[1]>>, tile<i32> -> token
  return
}
