// cuda_tile 13.4's insert and grid-dependency ops, as cuTile 1.7 writes them.
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// insert and the grid-dependency ops (13.4) print as tileirdisasm prints them; tileir
// does not lower them yet (convert-cuda-tile-to-tileaa says so), hence a testing$func.
// CHECK-LABEL: testing$func @insert_gdc
// CHECK: %[[T:.*]] = gdc_wait_tko token = %arg2 -> token
// CHECK: insert %arg0, %arg1[%{{.*}}] : tile<16xf32>, tile<64xf32>
// CHECK: gdc_launch_dependents_tko token = %[[T]] -> token
// CHECK: gdc_wait_tko -> token
cuda_tile.module @n {
  testing$func @insert_gdc(%arg0: tile<16xf32>, %arg1: tile<64xf32>, %arg2: token) -> (tile<64xf32>, token, token) {
    %t = gdc_wait_tko token = %arg2 -> token
    %c1 = constant <i32: 1> : tile<i32>
    %r = insert %arg0, %arg1[%c1] : tile<16xf32>, tile<64xf32>
    %u = gdc_launch_dependents_tko token = %t -> token
    %v = gdc_wait_tko -> token
    return %r, %u, %v : tile<64xf32>, token, token
  }
}
