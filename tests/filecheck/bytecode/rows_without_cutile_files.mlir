// Op-table rows (and the strided_view type) no cuTile export exercises: written, read back, and (in
// test_bytecode_write.py, with NVIDIA's tools) checked against tileirdisasm.
// RUN: tileir-opt %s -t tileirbc -o %t.tileirbc && tileir-opt %t.tileirbc | filecheck %s
// alloca exists from 13.3 on.
// RUN: not tileir-opt %s -t tileirbc --bytecode-version 13.2 -o %t.old.tileirbc 2>&1 | filecheck %s --check-prefix=OLD

cuda_tile.module @kernels {
  entry @k(%p: tile<ptr<f32>>, %a: tile<i32>) {
    %i = ptr_to_int %p : tile<ptr<f32>> -> tile<i64>
    %q = int_to_ptr %i : tile<i64> -> tile<ptr<f32>>
    %r = ptr_to_ptr %q : tile<ptr<f32>> -> tile<ptr<i32>>
    %h = mulhii %a, %a : tile<i32>
    %tv = make_tensor_view %p, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %s = get_tensor_shape %tv : tensor_view<128xf32, strides=[1]> -> tile<i32>
    %buf = alloca num_elem = 16, alignment = 16 : tile<ptr<f32>>
    %shared = alloca num_elem = 8, alignment = 32 global : tile<ptr<i32>>
    %tv2 = make_tensor_view %p, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %sv = make_strided_view %tv2 : strided_view<tile=(16x16), traversal_strides=[8,8], padding_value = nan, tensor_view<64x64xf32, strides=[64,1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %t, %tok = load_view_tko weak %sv[%c0, %c0] : strided_view<tile=(16x16), traversal_strides=[8,8], padding_value = nan, tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> tile<16x16xf32>, token
    %pv = make_partition_view %tv2 : partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>
    %red = atomic_red_view_tko relaxed device %pv[%c0, %c0], addf, %t token = %tok : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}

// CHECK:      %0 = ptr_to_int %arg0 : tile<ptr<f32>> -> tile<i64>
// CHECK-NEXT: %1 = int_to_ptr %0 : tile<i64> -> tile<ptr<f32>>
// CHECK-NEXT: %2 = ptr_to_ptr %1 : tile<ptr<f32>> -> tile<ptr<i32>>
// CHECK-NEXT: %3 = mulhii %arg1, %arg1 : tile<i32>
// CHECK-NEXT: %tview = make_tensor_view %arg0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
// CHECK-NEXT: %4 = get_tensor_shape %tview : tensor_view<128xf32, strides=[1]> -> tile<i32>
// CHECK-NEXT: %5 = alloca num_elem = 16, alignment = 16 : tile<ptr<f32>>
// CHECK-NEXT: %6 = alloca num_elem = 8, alignment = 32 global : tile<ptr<i32>>
// CHECK:      %sview = make_strided_view %tview_0 : strided_view<tile=(16x16), traversal_strides=[8,8], padding_value = nan, tensor_view<64x64xf32, strides=[64,1]>>
// CHECK:      %tile, %result_token = load_view_tko weak %sview[%cst_0_i32, %cst_0_i32]
// CHECK:      atomic_red_view_tko relaxed device %pview[%cst_0_i32, %cst_0_i32], addf, %tile token = %result_token

// OLD: rows_without_cutile_files.mlir:15:5: error: operation 'cuda_tile.alloca' is not available in bytecode version 13.2 (it needs 13.3)
