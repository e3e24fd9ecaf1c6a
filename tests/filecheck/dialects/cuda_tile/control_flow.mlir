// The counted loop and its terminator, with NVIDIA's block-argument names.
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

cuda_tile.module @kernels {
  // CHECK-LABEL: entry @loops
  entry @loops(%lb: tile<i32>, %ub: tile<i32>) {
    %step = constant <i32: 1> : tile<i32>
    %x = constant <f32: 0.0> : tile<4xf32>
    // An empty continue is implicit and not printed.
    // CHECK: for %loopIdx in (%arg0 to %arg1, step %cst_1_i32) : tile<i32> {
    // CHECK-NEXT: }
    for %i in (%lb to %ub, step %step) : tile<i32> {
    }
    // CHECK: %for = for %loopIdx in (%arg0 to %arg1, step %cst_1_i32) : tile<i32> iter_values(%iterArg0 = %cst_0_f32) -> (tile<4xf32>) {
    // CHECK-NEXT: %[[N:.*]] = negf %iterArg0 : tile<4xf32>
    // CHECK-NEXT: continue %[[N]] : tile<4xf32>
    %r = for %i in (%lb to %ub, step %step) : tile<i32> iter_values(%acc = %x) -> (tile<4xf32>) {
      %n = negf %acc : tile<4xf32>
      continue %n : tile<4xf32>
    }
    // CHECK: for unsigned %loopIdx in
    for unsigned %i in (%lb to %ub, step %step) : tile<i32> {
      continue
    }
    return
  }
}
