// Text -> bytecode -> text: tileir-opt writes .tileirbc with -t tileirbc and reads it
// back; the bytecode version is chosen with --bytecode-version (default 13.4).
// RUN: tileir-opt %s -t tileirbc -o %t.tileirbc && tileir-opt %t.tileirbc | filecheck %s
// RUN: tileir-opt %s -t tileirbc --bytecode-version 13.2 -o %t.13_2.tileirbc && tileir-opt %t.13_2.tileirbc | filecheck %s
// RUN: tileir-opt %s -t 'tileirbc{bytecode-version="13.3"}' -o %t.13_3.tileirbc && tileir-opt %t.13_3.tileirbc | filecheck %s
// The op locations survive as debug info.
// RUN: tileir-opt %s -t tileirbc -o %t.g.tileirbc && tileir-opt %t.g.tileirbc --print-debuginfo | filecheck %s --check-prefix=LOC
// tanh's rounding mode exists from 13.2 on: 13.1 cannot say `approx`.
// RUN: not tileir-opt %s -t tileirbc --bytecode-version 13.1 -o %t.13_1.tileirbc 2>&1 | filecheck %s --check-prefix=V13_1

cuda_tile.module @kernels {
  entry @k(%a: tile<ptr<f32>>, %n: tile<i32>) {
    %tv = make_tensor_view %a, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>
    %x, %y, %z = get_tile_block_id : tile<i32>
    %t, %tok = load_view_tko weak %pv[%x] : partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %h = tanh %t rounding<approx> : tile<128xf32>
    %m = mulf %h, %t rounding<zero> : tile<128xf32>
    %tok2 = store_view_tko weak %m, %pv[%x] token = %tok : tile<128xf32>, partition_view<tile=(128), padding_value = zero, tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// CHECK:      cuda_tile.module @kernels {
// CHECK-NEXT:   entry @k(%arg0: tile<ptr<f32>>, %arg1: tile<i32>) {
// CHECK-NEXT:     %tview = make_tensor_view %arg0, shape = [%arg1], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
// CHECK:          %tile, %result_token = load_view_tko weak %pview[%blockId_x]
// CHECK-NEXT:     %0 = tanh %tile rounding<approx> : tile<128xf32>
// CHECK-NEXT:     %1 = mulf %0, %tile rounding<zero> : tile<128xf32>
// CHECK-NEXT:     %2 = store_view_tko weak %1, %pview[%blockId_x] token = %result_token
// CHECK-NEXT:     return

// LOC:      %0 = tanh %tile rounding<approx> : tile<128xf32> loc([[TANH:#loc[0-9]+]])
// LOC:      } loc([[ENTRY:#loc[0-9]+]])
// LOC-DAG:  [[ENTRY_FILE:#loc[0-9]+]] = loc("{{.*}}write.mlir":12:3)
// LOC-DAG:  [[TANH_FILE:#loc[0-9]+]] = loc("{{.*}}write.mlir":17:5)
// LOC-DAG:  #di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 12, name = "k", linkageName = "k", compileUnit = #di_compile_unit, scopeLine = 12>
// LOC-DAG:  [[TANH]] = #cuda_tile.di_loc<[[TANH_FILE]] in #di_subprogram>
// LOC-DAG:  [[ENTRY]] = #cuda_tile.di_loc<[[ENTRY_FILE]] in #di_subprogram>

// V13_1: write.mlir:17:5: error: attribute 'rounding_mode' requires bytecode version 13.2+, but targeting 13.1
