// tileaa-drop-unit-dims: a store of expand_dims(v) (a 2-D result stored through a
// 1xMxN tile, as cuTile's batched kernels do) stores v itself through pointer and mask
// tiles rebuilt without the unit dimension; nothing else changes.
// RUN: tileir-opt %s --split-input-file -p tileaa-drop-unit-dims,dce | filecheck %s

// The pointer chain (splat + expand_dims/broadcast offsets) and the mask are rebuilt at
// rank 2; expand_dims of the dropped axis gives its source back.
// CHECK-LABEL: func.func @batched_store
// CHECK-NOT:     tensor<1x8x16
// CHECK:         %[[P:.*]] = nv_tileaa.addptr %{{.*}}, %{{.*}} : tensor<8x16x!cuda_tile.ptr<f32>>, tensor<8x16xi64>
// CHECK:         %[[M:.*]] = nv_tileaa.broadcast %{{.*}} : tensor<8x1xi1> -> tensor<8x16xi1>
// CHECK-NEXT:    %{{.*}} = nv_tileaa.store weak %[[P]], %v, %[[M]] token %tok : tensor<8x16x!cuda_tile.ptr<f32>>, tensor<8x16xf32>, tensor<8x16xi1>
func.func @batched_store(%base: !cuda_tile.ptr<f32>, %v: tensor<8x16xf32>, %rows: tensor<8xi64>, %cols: tensor<16xi64>, %ok: tensor<8xi1>, %tok: !nv_tileaa.mem_token) {
  %r0 = nv_tileaa.expand_dims %rows {axis = 0 : i32} : tensor<8xi64> -> tensor<1x8xi64>
  %r1 = nv_tileaa.expand_dims %r0 {axis = 2 : i32} : tensor<1x8xi64> -> tensor<1x8x1xi64>
  %r = nv_tileaa.broadcast %r1 : tensor<1x8x1xi64> -> tensor<1x8x16xi64>
  %c0 = nv_tileaa.expand_dims %cols {axis = 0 : i32} : tensor<16xi64> -> tensor<1x16xi64>
  %c1 = nv_tileaa.expand_dims %c0 {axis = 1 : i32} : tensor<1x16xi64> -> tensor<1x1x16xi64>
  %c = nv_tileaa.broadcast %c1 : tensor<1x1x16xi64> -> tensor<1x8x16xi64>
  %off = cuda_tile.addi %r, %c : tensor<1x8x16xi64>
  %s = nv_tileaa.splat %base : !cuda_tile.ptr<f32> -> tensor<1x8x16x!cuda_tile.ptr<f32>>
  %p = nv_tileaa.addptr %s, %off : tensor<1x8x16x!cuda_tile.ptr<f32>>, tensor<1x8x16xi64>
  %m0 = nv_tileaa.expand_dims %ok {axis = 0 : i32} : tensor<8xi1> -> tensor<1x8xi1>
  %m1 = nv_tileaa.expand_dims %m0 {axis = 2 : i32} : tensor<1x8xi1> -> tensor<1x8x1xi1>
  %m = nv_tileaa.broadcast %m1 : tensor<1x8x1xi1> -> tensor<1x8x16xi1>
  %e = nv_tileaa.expand_dims %v {axis = 0 : i32} : tensor<8x16xf32> -> tensor<1x8x16xf32>
  %t = nv_tileaa.store weak %p, %e, %m token %tok : tensor<1x8x16x!cuda_tile.ptr<f32>>, tensor<1x8x16xf32>, tensor<1x8x16xi1>
  "test.op"(%t) : (!nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// A pointer tile that is not built from shape and elementwise ops is reshaped with a
// view (which keeps the element order); a value stored without expand_dims is left alone.
// CHECK-LABEL: func.func @opaque_pointers
// CHECK:         %[[V:.*]] = nv_tileaa.view %p : tensor<1x4x!cuda_tile.ptr<f32>> -> tensor<4x!cuda_tile.ptr<f32>>
// CHECK-NEXT:    nv_tileaa.store weak %[[V]], %v : tensor<4x!cuda_tile.ptr<f32>>, tensor<4xf32>
// CHECK-NEXT:    nv_tileaa.store weak %p, %w : tensor<1x4x!cuda_tile.ptr<f32>>, tensor<1x4xf32>
func.func @opaque_pointers(%p: tensor<1x4x!cuda_tile.ptr<f32>>, %v: tensor<4xf32>, %w: tensor<1x4xf32>) {
  %e = nv_tileaa.expand_dims %v {axis = 0 : i32} : tensor<4xf32> -> tensor<1x4xf32>
  %t0 = nv_tileaa.store weak %p, %e : tensor<1x4x!cuda_tile.ptr<f32>>, tensor<1x4xf32>
  %t1 = nv_tileaa.store weak %p, %w : tensor<1x4x!cuda_tile.ptr<f32>>, tensor<1x4xf32>
  func.return
}

// -----

// A 1-element store (dropping the axis would leave a rank-0 tile) is left alone.
// CHECK-LABEL: func.func @single_element
// CHECK:         nv_tileaa.expand_dims
// CHECK-NEXT:    nv_tileaa.store weak %p, %{{.*}} : tensor<1x!cuda_tile.ptr<f32>>, tensor<1xf32>
func.func @single_element(%p: tensor<1x!cuda_tile.ptr<f32>>, %v: tensor<f32>) {
  %e = nv_tileaa.expand_dims %v {axis = 0 : i32} : tensor<f32> -> tensor<1xf32>
  %t = nv_tileaa.store weak %p, %e : tensor<1x!cuda_tile.ptr<f32>>, tensor<1xf32>
  func.return
}

// -----

// Elementwise ops between the expand_dims and the store (cuTile's
// `acc.reshape((1, M, N)).astype(ct.float16)`) are rebuilt at the value's own rank.
// CHECK-LABEL: func.func @expanded_then_converted
// CHECK:         %[[T:.*]] = cuda_tile.ftof %v : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-NEXT:    nv_tileaa.store weak %{{.*}}, %[[T]] : tensor<4x8x!cuda_tile.ptr<f16>>, tensor<4x8xf16>
func.func @expanded_then_converted(%base: !cuda_tile.ptr<f16>, %v: tensor<4x8xf32>) {
  %s = nv_tileaa.splat %base : !cuda_tile.ptr<f16> -> tensor<1x4x8x!cuda_tile.ptr<f16>>
  %e = nv_tileaa.expand_dims %v {axis = 0 : i32} : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %h = cuda_tile.ftof %e : tensor<1x4x8xf32> -> tensor<1x4x8xf16>
  %t = nv_tileaa.store weak %s, %h : tensor<1x4x8x!cuda_tile.ptr<f16>>, tensor<1x4x8xf16>
  func.return
}
