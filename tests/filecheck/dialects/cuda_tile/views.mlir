// Views, tokens and the kernel shell: round-trip in NVIDIA's form and through the
// generic form.
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

cuda_tile.module @kernels {
  // CHECK-LABEL: entry @views(%arg0: tile<ptr<f32>>, %arg1: tile<i32>, %arg2: tile<i32>)
  // CHECK-SAME: optimization_hints=<sm_90 = {num_cta_in_cga = 2}, default = {}>
  entry @views(%base: tile<ptr<f32>>, %n: tile<i32>, %stride: tile<i32>) optimization_hints=<sm_90 = {num_cta_in_cga = 2}, default = {}> {
    // CHECK: %0 = make_token : token
    %tok = make_token : token
    // CHECK: %assume = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %b = assume div_by<16>, %base : tile<ptr<f32>>
    // CHECK: %assume_0 = assume bounded<0, ?>, %arg1 : tile<i32>
    %nn = assume bounded<0, ?>, %n : tile<i32>
    %ramp = iota : tile<8xi32>
    // CHECK: %[[R:.*]] = assume div_by<8, every 2 along 0>, %{{.*}} : tile<8xi32>
    %r2 = assume #cuda_tile.div_by<8, every 2 along 0>, %ramp : tile<8xi32>
    // CHECK: %tview = make_tensor_view %assume, shape = [%assume_0, 64], strides = [%arg2, 1] : tile<i32> -> tensor_view<?x64xf32, strides=[?,1]>
    %tv = make_tensor_view %b, shape = [%nn, 64], strides = [%stride, 1] : tile<i32> -> tensor_view<?x64xf32, strides=[?,1]>
    // CHECK: %tview_2 = make_tensor_view %assume, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf32, strides=[64,1]>
    %tv2 = make_tensor_view %b, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf32, strides=[64,1]>
    // CHECK: %pview = make_partition_view %tview : partition_view<tile=(16x32), padding_value = nan, tensor_view<?x64xf32, strides=[?,1]>>
    %pv = make_partition_view %tv : partition_view<tile=(16x32), padding_value = nan, tensor_view<?x64xf32, strides=[?,1]>>
    // CHECK: %pview_3 = make_partition_view %tview_2 : partition_view<tile=(4x8), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>
    %pv2 = make_partition_view %tv2 : partition_view<tile=(4x8), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>
    // CHECK: %blockId_x, %blockId_y, %blockId_z = get_tile_block_id : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    // CHECK: %gridSize_x, %gridSize_y, %gridSize_z = get_num_tile_blocks : tile<i32>
    %gx, %gy, %gz = get_num_tile_blocks : tile<i32>
    // CHECK: %2:2 = get_index_space_shape %pview : partition_view<tile=(16x32), padding_value = nan, tensor_view<?x64xf32, strides=[?,1]>> -> tile<i32>
    %shape:2 = get_index_space_shape %pv : partition_view<tile=(16x32), padding_value = nan, tensor_view<?x64xf32, strides=[?,1]>> -> tile<i32>
    // CHECK: %tile, %result_token = load_view_tko weak %pview[%blockId_x, %2#1] token = %0 optimization_hints = <default = {latency = 3}> inbounds = [false, true] : partition_view<tile=(16x32), padding_value = nan, tensor_view<?x64xf32, strides=[?,1]>>, tile<i32> -> tile<16x32xf32>, token
    %t, %t_tok = load_view_tko weak %pv[%bx, %shape#1] token = %tok optimization_hints = <default = {latency = 3}> inbounds = [false, true] : partition_view<tile=(16x32), padding_value = nan, tensor_view<?x64xf32, strides=[?,1]>>, tile<i32> -> tile<16x32xf32>, token
    // CHECK: %tile_4, %result_token_5 = load_view_tko relaxed device %pview_3[%blockId_y, %blockId_x] : partition_view<tile=(4x8), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>, tile<i32> -> tile<4x8xf32>, token
    %u, %u_tok = load_view_tko relaxed device %pv2[%by, %bx] : partition_view<tile=(4x8), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>, tile<i32> -> tile<4x8xf32>, token
    // CHECK: %3 = join_tokens %result_token, %result_token_5 : token
    %j = join_tokens %t_tok, %u_tok : token
    // CHECK: %4 = store_view_tko release sys %tile_4, %pview_3[%blockId_y, %blockId_x] token = %3 : tile<4x8xf32>, partition_view<tile=(4x8), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>, tile<i32> -> token
    %s = store_view_tko release sys %u, %pv2[%by, %bx] token = %j : tile<4x8xf32>, partition_view<tile=(4x8), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>, tile<i32> -> token
    // CHECK: %cst_1_i32 = constant <i32: 1> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    // CHECK: %cst_i32 = constant <i32: [0, 1, 2, 3]> : tile<4xi32>
    %c4 = constant <i32: [0, 1, 2, 3]> : tile<4xi32>
    // CHECK: %true = constant <i1: true> : tile<i1>
    %t1 = constant <i1: true> : tile<i1>
    // CHECK: %cst_NaN_f32 = constant <f32: 0x7FC00000> : tile<2x2xf32>
    %nan = constant <f32: 0x7FC00000> : tile<2x2xf32>
    // CHECK: %cst_f32 = constant <f32: 0.333333343> : tile<f32>
    %third = constant <f32: 0.333333343> : tile<f32>
    // CHECK: %cst_f16 = constant <f16: [[1.000000e+00, 2.500000e-01], [-0.000000e+00, 6.550400e+04]]> : tile<2x2xf16>
    %h = constant <f16: [[1.0, 0.25], [-0.0, 65504.0]]> : tile<2x2xf16>
    // CHECK: %[[OFF:.*]] = offset %assume, %arg1 : tile<ptr<f32>>, tile<i32> -> tile<ptr<f32>>
    %o = offset %b, %n : tile<ptr<f32>>, tile<i32> -> tile<ptr<f32>>
    // CHECK: return
    return
  }
}
