// The 13.3 views (strided_view, gather_scatter_view) and atomic_red_view_tko.
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

cuda_tile.module @kernels {
  // CHECK-LABEL: entry @views
  entry @views(%base: tile<ptr<f32>>, %n: tile<i32>) {
    // CHECK: %tview = make_tensor_view %arg0, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %tv = make_tensor_view %base, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    // CHECK: %sview = make_strided_view %tview : strided_view<tile=(16x16), traversal_strides=[8,8], tensor_view<64x64xf32, strides=[64,1]>>
    %sv = make_strided_view %tv : strided_view<tile=(16x16), traversal_strides=[8,8], tensor_view<64x64xf32, strides=[64,1]>>
    // CHECK: %gsview = make_gather_scatter_view %tview : gather_scatter_view<tile=(4x16), padding_value = zero, tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>
    %gv = make_gather_scatter_view %tv : gather_scatter_view<tile=(4x16), padding_value = zero, tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>
    // CHECK: %cst_0_i32 = constant <i32: 0> : tile<i32>
    %c0 = constant <i32: 0> : tile<i32>
    // CHECK: %0 = iota : tile<4xi32>
    %rows = iota : tile<4xi32>
    // CHECK: %tile, %result_token = load_view_tko weak %sview[%cst_0_i32, %cst_0_i32] : strided_view<tile=(16x16), traversal_strides=[8,8], tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> tile<16x16xf32>, token
    %t, %tok = load_view_tko weak %sv[%c0, %c0] : strided_view<tile=(16x16), traversal_strides=[8,8], tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> tile<16x16xf32>, token
    // CHECK: %tile_0, %result_token_1 = load_view_tko weak %gsview[%0, %cst_0_i32] : gather_scatter_view<tile=(4x16), padding_value = zero, tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>, tile<4xi32>, tile<i32> -> tile<4x16xf32>, token
    %g, %tok2 = load_view_tko weak %gv[%rows, %c0] : gather_scatter_view<tile=(4x16), padding_value = zero, tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>, tile<4xi32>, tile<i32> -> tile<4x16xf32>, token
    // CHECK: %1:2 = get_index_space_shape %sview : strided_view<tile=(16x16), traversal_strides=[8,8], tensor_view<64x64xf32, strides=[64,1]>> -> tile<i32>
    %s:2 = get_index_space_shape %sv : strided_view<tile=(16x16), traversal_strides=[8,8], tensor_view<64x64xf32, strides=[64,1]>> -> tile<i32>
    // CHECK: %pview = make_partition_view %tview : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>
    %pv = make_partition_view %tv : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>
    // CHECK: %cst_1_f32 = constant <f32: 1.000000e+00> : tile<16x16xf32>
    %v = constant <f32: 1.0> : tile<16x16xf32>
    // CHECK: %2 = atomic_red_view_tko relaxed device %pview[%cst_0_i32, %cst_0_i32], addf, %cst_1_f32 : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    %r = atomic_red_view_tko relaxed device %pv[%c0, %c0], addf, %v : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
