// tileaa-canonicalize, pointer and masked-memory folds (seed 004 rows "Pointer
// arithmetic", "Masked load", "Masked store"): each rewrite and each safety
// condition that blocks it.
// RUN: tileir-opt %s --split-input-file -p tileaa-canonicalize | filecheck %s

// Seed 004 "Pointer arithmetic": addptr(addptr(p, a), b) -> addptr(p, a + b).  Both
// offsets are normalized to i64 element counts first (sign-extended: offsets are
// signed), so the sum cannot wrap where the two separate offsets would not.
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

// The same on tiles of pointers: two i32 offsets are both widened before adding.
// CHECK-LABEL: func.func @addptr_chain_tiles
// CHECK-NEXT: %[[A:.*]] = cuda_tile.exti %a signed : tensor<16xi32> -> tensor<16xi64>
// CHECK-NEXT: %[[B:.*]] = cuda_tile.exti %b signed : tensor<16xi32> -> tensor<16xi64>
// CHECK-NEXT: %[[SUM:.*]] = cuda_tile.addi %[[A]], %[[B]] : tensor<16xi64>
// CHECK-NEXT: %[[P:.*]] = nv_tileaa.addptr %p, %[[SUM]] : tensor<16x!cuda_tile.ptr<f16>>, tensor<16xi64>
// CHECK-NEXT: "test.op"(%[[P]])
func.func @addptr_chain_tiles(%p: tensor<16x!cuda_tile.ptr<f16>>, %a: tensor<16xi32>, %b: tensor<16xi32>) {
  %0 = nv_tileaa.addptr %p, %a : tensor<16x!cuda_tile.ptr<f16>>, tensor<16xi32>
  %1 = nv_tileaa.addptr %0, %b : tensor<16x!cuda_tile.ptr<f16>>, tensor<16xi32>
  "test.op"(%1) : (tensor<16x!cuda_tile.ptr<f16>>) -> ()
  func.return
}

// -----

// Element units are normalized before adding: across a ptr_to_ptr from f32 to f16
// the inner offset counts f32 elements, i.e. 2 f16 elements each.
// CHECK-LABEL: func.func @addptr_units
// CHECK-NEXT: %[[A:.*]] = cuda_tile.exti %a signed : i32 -> i64
// CHECK-NEXT: %[[TWO:.*]] = cuda_tile.constant <i64: 2> : i64
// CHECK-NEXT: %[[SCALED:.*]] = cuda_tile.muli %[[A]], %[[TWO]] : i64
// CHECK-NEXT: %[[B:.*]] = cuda_tile.exti %b signed : i32 -> i64
// CHECK-NEXT: %[[SUM:.*]] = cuda_tile.addi %[[SCALED]], %[[B]] : i64
// CHECK-NEXT: %[[BASE:.*]] = cuda_tile.ptr_to_ptr %p : ptr<f32> -> ptr<f16>
// CHECK-NEXT: %[[P:.*]] = nv_tileaa.addptr %[[BASE]], %[[SUM]] : !cuda_tile.ptr<f16>, i64
// CHECK-NEXT: "test.op"(%[[P]])
func.func @addptr_units(%p: !cuda_tile.ptr<f32>, %a: i32, %b: i32) {
  %0 = nv_tileaa.addptr %p, %a : !cuda_tile.ptr<f32>, i32
  %1 = cuda_tile.ptr_to_ptr %0 : !cuda_tile.ptr<f32> -> !cuda_tile.ptr<f16>
  %2 = nv_tileaa.addptr %1, %b : !cuda_tile.ptr<f16>, i32
  "test.op"(%2) : (!cuda_tile.ptr<f16>) -> ()
  func.return
}

// -----

// Blocked: an inner offset in f16 elements is not a whole number of f32 elements,
// so the two offsets have no common element unit and the chain stays.
// CHECK-LABEL: func.func @addptr_units_blocked
// CHECK-NEXT: %[[A:.*]] = nv_tileaa.addptr %p, %a : !cuda_tile.ptr<f16>, i32
// CHECK-NEXT: %[[C:.*]] = cuda_tile.ptr_to_ptr %[[A]] : ptr<f16> -> ptr<f32>
// CHECK-NEXT: %[[B:.*]] = nv_tileaa.addptr %[[C]], %b : !cuda_tile.ptr<f32>, i32
// CHECK-NEXT: "test.op"(%[[B]])
func.func @addptr_units_blocked(%p: !cuda_tile.ptr<f16>, %a: i32, %b: i32) {
  %0 = nv_tileaa.addptr %p, %a : !cuda_tile.ptr<f16>, i32
  %1 = cuda_tile.ptr_to_ptr %0 : !cuda_tile.ptr<f16> -> !cuda_tile.ptr<f32>
  %2 = nv_tileaa.addptr %1, %b : !cuda_tile.ptr<f32>, i32
  "test.op"(%2) : (!cuda_tile.ptr<f32>) -> ()
  func.return
}

// -----

// Seed 004 "Masked load": a constant-false mask (here a splat of false) reads nothing,
// so the value is the fallback and the token the input token; a constant-true mask
// makes the load unmasked, keeping its semantics, scope and input token.
// CHECK-LABEL: func.func @masked_load
// CHECK-NEXT: %[[L:.*]], %[[LT:.*]] = nv_tileaa.load relaxed device %p token %t : tensor<16x!cuda_tile.ptr<f32>> -> tensor<16xf32>
// CHECK-NEXT: "test.op"(%other, %t, %[[L]], %[[LT]])
func.func @masked_load(%p: tensor<16x!cuda_tile.ptr<f32>>, %other: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
  %false = cuda_tile.constant <i1: false> : i1
  %true = cuda_tile.constant <i1: true> : i1
  %f = nv_tileaa.splat %false : i1 -> tensor<16xi1>
  %tr = nv_tileaa.splat %true : i1 -> tensor<16xi1>
  %0, %1 = nv_tileaa.load weak %p, %f, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  %2, %3 = nv_tileaa.load relaxed device %p, %tr, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  "test.op"(%0, %1, %2, %3) : (tensor<16xf32>, !nv_tileaa.mem_token, tensor<16xf32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// Without a fallback the masked-off value is undefined: zeros refine it.  Without an
// input token the load followed nothing, so a fresh token stands for it.
// CHECK-LABEL: func.func @masked_load_undefined
// CHECK-NEXT: %[[Z:.*]] = cuda_tile.constant <i32: 0> : tensor<16xi32>
// CHECK-NEXT: %[[T:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK-NEXT: "test.op"(%[[Z]], %[[T]])
func.func @masked_load_undefined(%p: tensor<16x!cuda_tile.ptr<i32>>) {
  %false = cuda_tile.constant <i1: false> : tensor<16xi1>
  %0, %1 = nv_tileaa.load weak %p, %false : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi1> -> tensor<16xi32>
  "test.op"(%0, %1) : (tensor<16xi32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// Blocked: a mask that is not constant, a constant mask that is not uniform, and an
// acquire load (it orders later accesses even when it reads nothing).
// CHECK-LABEL: func.func @masked_load_blocked
// CHECK: nv_tileaa.load weak %p, %m, %other token %t
// CHECK: nv_tileaa.load weak %p, %mixed, %other token %t
// CHECK: nv_tileaa.load acquire device %p, %false, %other token %t
func.func @masked_load_blocked(%p: tensor<16x!cuda_tile.ptr<f32>>, %m: tensor<16xi1>, %other: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
  %false = cuda_tile.constant <i1: false> : tensor<16xi1>
  %mixed = cuda_tile.constant <i1: [true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false]> : tensor<16xi1>
  %0, %1 = nv_tileaa.load weak %p, %m, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  %2, %3 = nv_tileaa.load weak %p, %mixed, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  %4, %5 = nv_tileaa.load acquire device %p, %false, %other token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  "test.op"(%0, %1, %2, %3, %4, %5) : (tensor<16xf32>, !nv_tileaa.mem_token, tensor<16xf32>, !nv_tileaa.mem_token, tensor<16xf32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// Seed 004 "Masked store": a constant-false store disappears and the users of its
// token see the input token; a constant-true store becomes unmasked.
// CHECK-LABEL: func.func @masked_store
// CHECK-NEXT: %[[S:.*]] = nv_tileaa.store relaxed device %p, %v token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>
// CHECK-NEXT: "test.op"(%t, %[[S]])
func.func @masked_store(%p: tensor<16x!cuda_tile.ptr<f32>>, %v: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
  %false = cuda_tile.constant <i1: false> : tensor<16xi1>
  %true = cuda_tile.constant <i1: true> : tensor<16xi1>
  %0 = nv_tileaa.store weak %p, %v, %false token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  %1 = nv_tileaa.store relaxed device %p, %v, %true token %0 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  "test.op"(%0, %1) : (!nv_tileaa.mem_token, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// A removed store without an input token hands on a fresh token.
// CHECK-LABEL: func.func @masked_store_no_token
// CHECK-NEXT: %[[T:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK-NEXT: "test.op"(%[[T]])
func.func @masked_store_no_token(%p: tensor<16x!cuda_tile.ptr<f32>>, %v: tensor<16xf32>) {
  %false = cuda_tile.constant <i1: false> : tensor<16xi1>
  %0 = nv_tileaa.store weak %p, %v, %false : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  "test.op"(%0) : (!nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// Blocked: a mask that is not constant, and a release store, whose side effect is
// more than the write (it orders the accesses before it).
// CHECK-LABEL: func.func @masked_store_blocked
// CHECK: %[[S:.*]] = nv_tileaa.store weak %p, %v, %m token %t
// CHECK: nv_tileaa.store release device %p, %v, %false token %[[S]]
func.func @masked_store_blocked(%p: tensor<16x!cuda_tile.ptr<f32>>, %v: tensor<16xf32>, %m: tensor<16xi1>, %t: !nv_tileaa.mem_token) {
  %false = cuda_tile.constant <i1: false> : tensor<16xi1>
  %0 = nv_tileaa.store weak %p, %v, %m token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  %1 = nv_tileaa.store release device %p, %v, %false token %0 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  "test.op"(%1) : (!nv_tileaa.mem_token) -> ()
  func.return
}
