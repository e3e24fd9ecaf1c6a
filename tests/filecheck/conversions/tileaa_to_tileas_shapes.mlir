// convert-tileaa-to-tileas: nv_tileaa shape ops become their nv_tileas forms
// (tileir/conversions/tileaa_shapes.py).  `expand_dims` becomes the seed's layout-family
// `nv_tileas.expand_dims` (seed 003) with the same operand, axis and result type; the
// layouts come later, from tileas-assign-layouts (transforms/tileas/assign_layouts.mlir,
// tileaa_to_tileas_shapes_corpus.test).
// RUN: tileir-opt %s --split-input-file -p convert-tileaa-to-tileas | filecheck %s

// Rows and columns of a 2-D index tile, and a scalar made a 1-element tile.
// CHECK-LABEL: func.func @expand
// CHECK: %[[R:.*]] = nv_tileas.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK: %[[C:.*]] = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
// CHECK: %[[S:.*]] = nv_tileas.expand_dims %s {axis = 0 : i32} : f32 -> tensor<1xf32>
// CHECK: func.return %[[R]], %[[C]], %[[S]]
// CHECK-NOT: nv_tileaa.expand_dims
func.func @expand(%r: tensor<16xi32>, %c: tensor<64xi32>, %s: f32) -> (tensor<16x1xi32>, tensor<1x64xi32>, tensor<1xf32>) {
  %r2 = nv_tileaa.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = nv_tileaa.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %s1 = nv_tileaa.expand_dims %s {axis = 0 : i32} : f32 -> tensor<1xf32>
  func.return %r2, %c2, %s1 : tensor<16x1xi32>, tensor<1x64xi32>, tensor<1xf32>
}

