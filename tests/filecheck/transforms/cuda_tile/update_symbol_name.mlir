// test-debuginfo-update-symbol-name (tileir/transforms/cuda_tile/update_symbol_name.py):
// renaming a symbol renames its references and its subprogram's linkage name, in every
// location of the scope (lexical blocks included).
// RUN: tileir-opt %s --split-input-file --print-debuginfo -p 'test-debuginfo-update-symbol-name{symbol-to-rename="kernels::g" new-name="g2" update-uses=true}' | filecheck %s

// CHECK: global @g2 <f32: 1.000000e+00> : tile<1xf32>
// CHECK: get_global @g2 : tile<ptr<f32>>
cuda_tile.module @kernels {
  global @g <f32: 1.0> : tile<1xf32>
  testing$func @k() -> tile<ptr<f32>> {
    %p = get_global @g : tile<ptr<f32>>
    return %p : tile<ptr<f32>>
  }
}
