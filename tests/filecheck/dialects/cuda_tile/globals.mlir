// Globals and print_tko: visibility and constant keywords, defaults elided, string
// escapes.
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

cuda_tile.module @kernels {
  // CHECK: global constant @g1 <f32: [1.000000e+00, 2.000000e+00]> : tile<2xf32>
  global constant @g1 <f32 : [1.0, 2.0]> : !cuda_tile.tile<2xf32>
  // CHECK: global private @g2 alignment = 256 <i32: 42> : tile<1xi32>
  global private @g2 alignment = 256 <i32: [42]> : tile<1xi32>
  // CHECK: global @g3 <f16: [1.500000e+00, 2.500000e+00]> : tile<2xf16>
  global public @g3 <f16: [1.5, 2.5]> : tile<2xf16>
  // CHECK: global private constant @g4 <i64: 100> : tile<1xi64>
  global private constant @g4 alignment = 0 <i64: [100]> : tile<1xi64>

  // CHECK-LABEL: entry @uses
  entry @uses() {
    // CHECK: %0 = get_global @g1 : tile<ptr<f32>>
    %p = get_global @g1 : tile<ptr<f32>>
    // CHECK: %1 = print_tko "hello" -> token
    %t = print_tko "hello" -> token
    // CHECK: %2 = print_tko "p=%p, %%\0A", %0 token=%1 : tile<ptr<f32>> -> token
    %u = print_tko "p=%p, %%\n", %p token = %t : tile<ptr<f32>> -> token
    return
  }
}
