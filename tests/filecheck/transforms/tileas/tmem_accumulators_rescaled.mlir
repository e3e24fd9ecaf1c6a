// tileas-tmem-accumulators on sm_100a, an attention-like K loop (gemm_bf16_two_warpgroups
// with A loaded once before the loop, as attention's Q, and the accumulator scaled by
// one factor per row before each dot, as attention's O): the accumulator stays in tensor
// memory (nv_tileas.tmem_stored), written there before the loop, scaled there in it
// (the mulf becomes nv_tileas.scale_tmem_accumulator), read once after it; the dot
// accumulates into the loop's argument and is not in flight (the scaling reads what its
// last MMAs wrote); A is written to shared memory once (nv_tileas.staged_once = [0]).
// RUN: tileir-as %s --gpu-name sm_100a --emit=tileas --line-width 0 | filecheck %s

// CHECK: nv_tileas.write_tmem_accumulator %[[INIT:[a-z_0-9]+]] {column = 0 : i64} : tensor<128x128xf32
// CHECK: scf.for {{.*}}iter_args(%[[ARG:[a-zA-Z_0-9]+]] = %[[INIT]]
// CHECK-NOT: cuda_tile.mulf
// CHECK: nv_tileas.scale_tmem_accumulator %[[ARG]], %{{.*}} {column = 0 : i64} : tensor<128x128xf32, #[[L:[a-z0-9]+]]>, tensor<128x1xf32, #[[L]]>
// CHECK-NOT: cuda_tile.mulf
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %[[ARG]] {{{.*}}nv_tileas.tmem_resident, nv_tileas.tmem_stored, nv_tileas.staged_once = [0 : i64], atom = #nv_tileas<atom tcgen05_mma_bf16_bf16_f32>}
// CHECK: scf.yield
// CHECK: nv_tileas.read_tmem_accumulator %{{.*}} {nv_tileas.tmem_stored, column = 0 : i64}

entry @gemm_bf16_two_warpgroups_Kt1_A2bf16_1v8l0_2t1_p16_A2bf16_1v8l0_2t1_p16_A2f32_1v4l0_2t1_p16_Si32(%arg0: tile<ptr<bf16>>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i32>, %arg4: tile<i32>, %arg5: tile<ptr<bf16>>, %arg6: tile<i32>, %arg7: tile<i32>, %arg8: tile<i32>, %arg9: tile<i32>, %arg10: tile<ptr<f32>>, %arg11: tile<i32>, %arg12: tile<i32>, %arg13: tile<i32>, %arg14: tile<i32>, %arg15: tile<i32>) optimization_hints=<default = {}> {
  %0 = make_token : token
  %assume = assume div_by<16>, %arg0 : tile<ptr<bf16>>
  %assume_0 = assume div_by<8>, %arg3 : tile<i32>
  %assume_1 = assume div_by<16>, %arg5 : tile<ptr<bf16>>
  %assume_2 = assume div_by<8>, %arg8 : tile<i32>
  %assume_3 = assume div_by<16>, %arg10 : tile<ptr<f32>>
  %assume_4 = assume div_by<4>, %arg13 : tile<i32>
  %cst_1_i32 = constant <i32: 1> : tile<i32>
  %cst_1_i32_5 = constant <i32: 1> : tile<i32>
  %cst_1_i32_6 = constant <i32: 1> : tile<i32>
  %assume_7 = assume bounded<0, ?>, %arg1 : tile<i32>
  %assume_8 = assume bounded<0, ?>, %arg2 : tile<i32>
  %assume_assume = assume bounded<0, ?>, %assume_0 : tile<i32>
  %assume_assume_assume = assume div_by<8>, %assume_assume : tile<i32>
  %tview = make_tensor_view %assume, shape = [%assume_7, %assume_8], strides = [%assume_assume_assume, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
  %assume_9 = assume bounded<0, ?>, %arg6 : tile<i32>
  %assume_10 = assume bounded<0, ?>, %arg7 : tile<i32>
  %assume_assume_11 = assume bounded<0, ?>, %assume_2 : tile<i32>
  %assume_assume_assume_12 = assume div_by<8>, %assume_assume_11 : tile<i32>
  %tview_13 = make_tensor_view %assume_1, shape = [%assume_9, %assume_10], strides = [%assume_assume_assume_12, 1] : tile<i32> -> tensor_view<?x?xbf16, strides=[?,1]>
  %assume_14 = assume bounded<0, ?>, %arg11 : tile<i32>
  %assume_15 = assume bounded<0, ?>, %arg12 : tile<i32>
  %assume_assume_16 = assume bounded<0, ?>, %assume_4 : tile<i32>
  %assume_assume_assume_17 = assume div_by<4>, %assume_assume_16 : tile<i32>
  %tview_18 = make_tensor_view %assume_3, shape = [%assume_14, %assume_15], strides = [%assume_assume_assume_17, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
  %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
  %blockId_x_19, %blockId_y_20, %blockId_z_21 = get_tile_block_id : tile<i32>
  %cst_0_f32 = constant <f32: 0.000000e+00> : tile<128x128xf32>
  %cst_0_i32 = constant <i32: 0> : tile<i32>
  %cst_1_i32_22 = constant <i32: 1> : tile<i32>
  %pview = make_partition_view %tview : partition_view<tile=(128x32), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
  %pview_23 = make_partition_view %tview_13 : partition_view<tile=(32x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>
  %tile, %result_token = load_view_tko weak %pview[%blockId_x, %cst_0_i32] token = %0 : partition_view<tile=(128x32), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<128x32xbf16>, token
  %row = iota : tile<128xi32>
  %rowf = itof %row signed : tile<128xi32> -> tile<128xf32>
  %step = constant <f32: 0.0078125> : tile<128xf32>
  %base = constant <f32: 0.25> : tile<128xf32>
  %f = fma %rowf, %step, %base : tile<128xf32>
  %col = reshape %f : tile<128xf32> -> tile<128x1xf32>
  %fb = broadcast %col : tile<128x1xf32> -> tile<128x128xf32>
  %for = for %loopIdx in (%cst_0_i32 to %arg15, step %cst_1_i32_22) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<128x128xf32>) {
    %tile_25, %result_token_26 = load_view_tko weak %pview_23[%loopIdx, %blockId_y_20] token = %0 : partition_view<tile=(32x128), padding_value = zero, tensor_view<?x?xbf16, strides=[?,1]>>, tile<i32> -> tile<32x128xbf16>, token
    %s = mulf %iterArg0, %fb : tile<128x128xf32>
    %2 = mmaf %tile, %tile_25, %s : tile<128x32xbf16>, tile<32x128xbf16>, tile<128x128xf32>
    continue %2 : tile<128x128xf32>
  }
  %pview_24 = make_partition_view %tview_18 : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
  %1 = store_view_tko weak %for, %pview_24[%blockId_x, %blockId_y_20] token = %0 : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
  return
}
