// reduce and scan: NVIDIA's printed form (`dim=`, typed identities, the argument
// list on its own line), block-argument names and result groups.
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

cuda_tile.module @kernels {
  // CHECK-LABEL: testing$func @reductions
  testing$func @reductions(%x: tile<8x16xf32>, %y: tile<8x16xi32>) {
    // CHECK: %reduce = reduce %arg0 dim=1 identities=[0.000000e+00 : f32] : tile<8x16xf32> -> tile<8xf32>
    // CHECK-NEXT: (%reduce_lhs: tile<f32>, %reduce_rhs: tile<f32>) {
    // CHECK-NEXT: %[[C:.*]] = addf %reduce_lhs, %reduce_rhs  : tile<f32>
    // CHECK-NEXT: yield %[[C]] : tile<f32>
    // CHECK-NEXT: }
    %s = reduce %x dim=1 identities=[0.000000e+0 : f32] : tile<8x16xf32> -> tile<8xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = addf %a, %b : tile<f32>
      yield %c : tile<f32>
    }
    // CHECK: %reduce_0:2 = reduce %arg0, %arg1 dim=0 identities=[0xFF800000 : f32, 0 : i32] : tile<8x16xf32>, tile<8x16xi32> -> tile<16xf32>, tile<16xi32>
    // CHECK-NEXT: (%reduce_lhs0: tile<f32>, %reduce_rhs0: tile<f32>, %reduce_lhs1: tile<i32>, %reduce_rhs1: tile<i32>) {
    %m:2 = reduce %x, %y dim=0 identities=[0xFF800000 : f32, 0 : i32] : tile<8x16xf32>, tile<8x16xi32> -> tile<16xf32>, tile<16xi32>
    (%a: !cuda_tile.tile<f32>, %b: tile<f32>, %i: tile<i32>, %j: tile<i32>) {
      %c = maxf %a, %b : tile<f32>
      %k = maxi %i, %j signed : tile<i32>
      yield %c, %k : tile<f32>, tile<i32>
    }
    // Scan bodies have no argument names: they continue the function's %argN.
    // CHECK: %[[SCAN:.*]] = scan %arg0 dim=1 reverse=true identities=[1.000000e+00 : f32] : tile<8x16xf32> -> tile<8x16xf32>
    // CHECK-NEXT: (%arg2: tile<f32>, %arg3: tile<f32>) {
    %t = scan %x dim=1 reverse=true identities=[1.0 : f32] : tile<8x16xf32> -> tile<8x16xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = mulf %a, %b : tile<f32>
      yield %c : tile<f32>
    }
    // CHECK: print_tko "max %f %i\0A", %reduce_0#0, %reduce_0#1 : tile<16xf32>, tile<16xi32> -> token
    %tok = print_tko "max %f %i\n", %m#0, %m#1 : tile<16xf32>, tile<16xi32> -> token
    return
  }
}
