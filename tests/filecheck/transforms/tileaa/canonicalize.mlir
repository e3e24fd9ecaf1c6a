// tileaa-canonicalize: the whole nv_tileaa canonicalization surface (seed 004,
// "Canonicalization Surface", "Pattern Driver") in one greedy driver, and the same
// fourteen patterns attached to their ops so xDSL's `canonicalize` runs them too.
// Per-area cases with their blocking conditions: canonicalize_{dot,memory,shape,
// regions,atomics}.mlir.
// RUN: tileir-opt %s --split-input-file -p tileaa-canonicalize | filecheck %s
// RUN: tileir-opt %s --split-input-file -p canonicalize | filecheck %s

// Shape and memory folds share one driver: broadcast(splat(false)) folds to a splat,
// which exposes the constant-false mask: the load becomes its fallback and its input
// token, then the store of that value disappears and hands the token on.
// CHECK-LABEL: func.func @shape_exposes_memory
// CHECK-NEXT: "test.op"(%other, %t)
// CHECK-NEXT: func.return
func.func @shape_exposes_memory(%p: tensor<8x16x!cuda_tile.ptr<f32>>, %other: tensor<8x16xf32>, %t: !nv_tileaa.mem_token) {
  %false = cuda_tile.constant <i1: false> : i1
  %s = nv_tileaa.splat %false : i1 -> tensor<1x16xi1>
  %m = nv_tileaa.broadcast %s : tensor<1x16xi1> -> tensor<8x16xi1>
  %x, %t1 = nv_tileaa.load weak %p, %m, %other token %t : tensor<8x16x!cuda_tile.ptr<f32>>, tensor<8x16xi1>, tensor<8x16xf32> -> tensor<8x16xf32>
  %t2 = nv_tileaa.store weak %p, %x, %m token %t1 : tensor<8x16x!cuda_tile.ptr<f32>>, tensor<8x16xf32>, tensor<8x16xi1>
  "test.op"(%x, %t2) : (tensor<8x16xf32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// One of each: dot with a zero multiplicand, addptr chain, assume over splat, select
// under splat, true masks, expand_dims/broadcast/view of a splat, extract through an
// elementwise op, queue.get and pragma pruning, atomic_rmw and atomic_cas identities.
// CHECK-LABEL: func.func @every_pattern
// CHECK-NEXT: %acc = cuda_tile.constant <i32: 3> : tensor<4x4xi32>
// CHECK-NEXT: %[[O1:.*]] = cuda_tile.exti %off signed : tensor<4xi32> -> tensor<4xi64>
// CHECK-NEXT: %[[O2:.*]] = cuda_tile.exti %off signed : tensor<4xi32> -> tensor<4xi64>
// CHECK-NEXT: %[[OFF:.*]] = cuda_tile.addi %[[O1]], %[[O2]] : tensor<4xi64>
// CHECK-NEXT: %p2 = nv_tileaa.addptr %p, %[[OFF]] : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi64>
// CHECK-NEXT: %[[AS:.*]] = nv_tileaa.assume %x, #cuda_tile.div_by<8> : i32
// CHECK-NEXT: %ax = nv_tileaa.splat %[[AS]] : i32 -> tensor<4xi32>
// CHECK-NEXT: %[[C:.*]] = nv_tileaa.splat %c : i1 -> tensor<4xi1>
// CHECK-NEXT: %[[T:.*]] = nv_tileaa.splat %x : i32 -> tensor<4xi32>
// CHECK-NEXT: %[[F:.*]] = nv_tileaa.splat %x : i32 -> tensor<4xi32>
// CHECK-NEXT: %ss = nv_tileaa.select %[[C]], %[[T]], %[[F]] : tensor<4xi1>, tensor<4xi32>
// CHECK-NEXT: %v, %t1 = nv_tileaa.load weak %p2 token %t : tensor<4x!cuda_tile.ptr<i32>> -> tensor<4xi32>
// CHECK-NEXT: %t2 = nv_tileaa.store weak %p2, %v token %t1 : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi32>
// CHECK-NEXT: %w = nv_tileaa.splat %x : i32 -> tensor<16xi32>
// CHECK-NEXT: %[[EA:.*]] = nv_tileaa.extract %a[%i, %i] : tensor<4x4xi32> -> tensor<2x2xi32>
// CHECK-NEXT: %[[EC:.*]] = nv_tileaa.extract %acc[%i, %i] : tensor<4x4xi32> -> tensor<2x2xi32>
// CHECK-NEXT: %ex = cuda_tile.addi %[[EA]], %[[EC]] : tensor<2x2xi32>
// CHECK-NEXT: %g = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<4xi32>> -> (tensor<4xi32>) {
// CHECK-NEXT: ^bb0(%slot: tensor<4xi32>):
// CHECK-NEXT: nv_tileaa.queue.yield %slot : tensor<4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: %pr = nv_tileaa.pragma -> (i32) attributes {ocgEnterDirectives = ["maxnreg=128"]} {
// CHECK-NEXT: nv_tileaa.yield %x : i32
// CHECK-NEXT: }
// CHECK-NEXT: %o, %t3 = nv_tileaa.load relaxed device %p2 token %t2 : tensor<4x!cuda_tile.ptr<i32>> -> tensor<4xi32>
// CHECK-NEXT: %o2, %t4 = nv_tileaa.load relaxed device %p2 token %t3 : tensor<4x!cuda_tile.ptr<i32>> -> tensor<4xi32>
// CHECK-NEXT: "test.op"(%ax, %ss, %w, %ex, %g, %pr, %o, %o2, %t4)
func.func @every_pattern(%p: tensor<4x!cuda_tile.ptr<i32>>, %off: tensor<4xi32>, %x: i32, %c: i1, %q: !nv_tileaa.queue<tensor<4xi32>>, %a: tensor<4x4xi32>, %i: i32, %t: !nv_tileaa.mem_token) {
  %zero8 = cuda_tile.constant <i8: 0> : tensor<4x4xi8>
  %acc = cuda_tile.constant <i32: 3> : tensor<4x4xi32>
  %d = nv_tileaa.dot %zero8, %zero8, %acc signed signed : tensor<4x4xi8>, tensor<4x4xi8>, tensor<4x4xi32>
  %p1 = nv_tileaa.addptr %p, %off : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi32>
  %p2 = nv_tileaa.addptr %p1, %off : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi32>
  %sx = nv_tileaa.splat %x : i32 -> tensor<4xi32>
  %ax = nv_tileaa.assume %sx, #cuda_tile.div_by<8> : tensor<4xi32>
  %sel = nv_tileaa.select %c, %x, %x : i1, i32
  %ss = nv_tileaa.splat %sel : i32 -> tensor<4xi32>
  %true = cuda_tile.constant <i1: true> : tensor<4xi1>
  %v, %t1 = nv_tileaa.load weak %p2, %true token %t : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi1> -> tensor<4xi32>
  %t2 = nv_tileaa.store weak %p2, %v, %true token %t1 : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi32>, tensor<4xi1>
  %e = nv_tileaa.expand_dims %sx {axis = 0 : i32} : tensor<4xi32> -> tensor<1x4xi32>
  %b = nv_tileaa.broadcast %e : tensor<1x4xi32> -> tensor<4x4xi32>
  %w = nv_tileaa.view %b : tensor<4x4xi32> -> tensor<16xi32>
  %sum = cuda_tile.addi %a, %d : tensor<4x4xi32>
  %ex = nv_tileaa.extract %sum[%i, %i] : tensor<4x4xi32> -> tensor<2x2xi32>
  %g:2 = nv_tileaa.queue.get %q {consumer_idx = 0 : i32} : !nv_tileaa.queue<tensor<4xi32>> -> (tensor<4xi32>, tensor<4xi32>) {
  ^bb0(%slot: tensor<4xi32>):
    nv_tileaa.queue.yield %slot, %slot : tensor<4xi32>, tensor<4xi32>
  }
  %pr:2 = nv_tileaa.pragma -> (i32, i32) attributes {ocgEnterDirectives = ["maxnreg=128"]} {
    nv_tileaa.yield %x, %x : i32, i32
  }
  %zero = cuda_tile.constant <i32: 0> : tensor<4xi32>
  %o, %t3 = nv_tileaa.atomic_rmw relaxed device add %p2, %zero token %t2 : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi32>
  %o2, %t4 = nv_tileaa.atomic_cas relaxed device %p2, %zero, %zero token %t3 : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi32>, tensor<4xi32>
  "test.op"(%ax, %ss, %w, %ex, %g#1, %pr#0, %o, %o2, %t4) : (tensor<4xi32>, tensor<4xi32>, tensor<16xi32>, tensor<2x2xi32>, tensor<4xi32>, i32, tensor<4xi32>, tensor<4xi32>, !nv_tileaa.mem_token) -> ()
  func.return
}
