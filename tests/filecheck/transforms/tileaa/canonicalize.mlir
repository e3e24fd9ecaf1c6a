// tileaa-canonicalize (seed 004, canonicalization surface): shape folds around
// splats, addptr chains, and masked loads and stores with constant masks.
// RUN: tileir-opt %s --split-input-file -p tileaa-canonicalize | filecheck %s

// Shape wrappers around a splat fold into one splat of the final type.
// CHECK-LABEL: func.func @shape_folds
// CHECK-NEXT: %[[S:.*]] = nv_tileaa.splat %x : f32 -> tensor<8x16xf32>
// CHECK-NEXT: %[[E:.*]] = nv_tileaa.splat %x : f32 -> tensor<1x16xf32>
// CHECK-NEXT: %[[V:.*]] = nv_tileaa.splat %x : f32 -> tensor<128xf32>
// CHECK-NEXT: "test.op"(%[[S]], %[[E]], %[[V]])
func.func @shape_folds(%x: f32) {
  %0 = nv_tileaa.splat %x : f32 -> tensor<1x16xf32>
  %1 = nv_tileaa.broadcast %0 : tensor<1x16xf32> -> tensor<8x16xf32>
  %2 = nv_tileaa.splat %x : f32 -> tensor<16xf32>
  %3 = nv_tileaa.expand_dims %2 {axis = 0 : i32} : tensor<16xf32> -> tensor<1x16xf32>
  %4 = nv_tileaa.view %1 : tensor<8x16xf32> -> tensor<128xf32>
  "test.op"(%1, %3, %4) : (tensor<8x16xf32>, tensor<1x16xf32>, tensor<128xf32>) -> ()
  func.return
}

// -----

// A chain of views folds into one; a view to its own type disappears.  Blocked: a
// view of a non-splat, non-view value stays.
// CHECK-LABEL: func.func @view_chain
// CHECK-NEXT: %[[V:.*]] = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<32xf32>
// CHECK-NEXT: "test.op"(%[[V]], %t)
func.func @view_chain(%t: tensor<4x8xf32>) {
  %0 = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = nv_tileaa.view %0 : tensor<2x16xf32> -> tensor<32xf32>
  %2 = nv_tileaa.view %t : tensor<4x8xf32> -> tensor<4x8xf32>
  "test.op"(%1, %2) : (tensor<32xf32>, tensor<4x8xf32>) -> ()
  func.return
}

// -----

// addptr(addptr(p, a), b) -> addptr(p, a + b); the i32 offset is sign-extended to
// the i64 unit first.
// CHECK-LABEL: func.func @addptr_chain
// CHECK-NEXT: %[[X:.*]] = cuda_tile.exti %a signed : i32 -> i64
// CHECK-NEXT: %[[SUM:.*]] = cuda_tile.addi %[[X]], %b : i64
// CHECK-NEXT: %[[P:.*]] = nv_tileaa.addptr %p, %[[SUM]] : !cuda_tile.ptr<f32>, i64
// CHECK-NEXT: "test.op"(%[[P]])
func.func @addptr_chain(%p: !cuda_tile.ptr<f32>, %a: i32, %b: i64) {
  %0 = nv_tileaa.addptr %p, %a : !cuda_tile.ptr<f32>, i32
  %1 = nv_tileaa.addptr %0, %b : !cuda_tile.ptr<f32>, i64
  "test.op"(%1) : (!cuda_tile.ptr<f32>) -> ()
  func.return
}

// -----

// Blocked: pointers to different element types are not fused.
// CHECK-LABEL: func.func @addptr_chain_blocked
// CHECK: nv_tileaa.addptr %p, %a : !cuda_tile.ptr<f32>, i32
// CHECK: nv_tileaa.addptr %{{.*}}, %b : !cuda_tile.ptr<f16>, i32
func.func @addptr_chain_blocked(%p: !cuda_tile.ptr<f32>, %a: i32, %b: i32) {
  %0 = nv_tileaa.addptr %p, %a : !cuda_tile.ptr<f32>, i32
  %1 = cuda_tile.ptr_to_ptr %0 : !cuda_tile.ptr<f32> -> !cuda_tile.ptr<f16>
  %2 = nv_tileaa.addptr %1, %b : !cuda_tile.ptr<f16>, i32
  "test.op"(%2) : (!cuda_tile.ptr<f16>) -> ()
  func.return
}

// -----

// A constant-false masked load reads nothing: the fallback and the input token.
// A constant-true mask makes it unmasked.
// CHECK-LABEL: func.func @masked_load
// CHECK-NEXT: %[[L:.*]], %[[LT:.*]] = nv_tileaa.load weak %p token %t : tensor<16x!cuda_tile.ptr<f32>> -> tensor<16xf32>
// CHECK-NEXT: "test.op"(%other, %t, %[[L]], %[[LT]])
func.func @masked_load(%p: tensor<16x!cuda_tile.ptr<f32>>, %other: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
  %false = cuda_tile.constant <i1: false> : i1
  %true = cuda_tile.constant <i1: true> : i1
  %f = nv_tileaa.splat %false : i1 -> tensor<16xi1>
  %tr = nv_tileaa.splat %true : i1 -> tensor<16xi1>
  %0, %1 = nv_tileaa.load weak %p, %f, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  %2, %3 = nv_tileaa.load weak %p, %tr, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  "test.op"(%0, %1, %2, %3) : (tensor<16xf32>, !nv_tileaa.mem_token, tensor<16xf32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// Blocked: a mask that is not constant keeps the load masked.
// CHECK-LABEL: func.func @masked_load_blocked
// CHECK: nv_tileaa.load weak %p, %m, %other token %t
func.func @masked_load_blocked(%p: tensor<16x!cuda_tile.ptr<f32>>, %m: tensor<16xi1>, %other: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
  %0, %1 = nv_tileaa.load weak %p, %m, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  "test.op"(%0, %1) : (tensor<16xf32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// A constant-false masked store disappears and its token users see the input token;
// a constant-true one becomes unmasked.
// CHECK-LABEL: func.func @masked_store
// CHECK-NEXT: %[[S:.*]] = nv_tileaa.store weak %p, %v token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>
// CHECK-NEXT: "test.op"(%t, %[[S]])
func.func @masked_store(%p: tensor<16x!cuda_tile.ptr<f32>>, %v: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
  %false = cuda_tile.constant <i1: false> : tensor<16xi1>
  %true = cuda_tile.constant <i1: true> : tensor<16xi1>
  %0 = nv_tileaa.store weak %p, %v, %false token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  %1 = nv_tileaa.store weak %p, %v, %true token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  "test.op"(%0, %1) : (!nv_tileaa.mem_token, !nv_tileaa.mem_token) -> ()
  func.return
}
