// convert-tileaa-to-tileas: nv_tileaa atomics become tileir's nv_tileas.atomic_rmw /
// atomic_cas on the same tile of pointers (the seed's tiled_atomic_rmw addresses a view
// at coordinates and has no mask).  Mode, compare, value, mask, order, scope, element
// types and the location carry over; weak reads as relaxed and a missing scope as gpu.
// The token follows the nv_tileaa one until tileas-insert-barriers drops it
// (transforms/tileas/insert_barriers.mlir, e2e/memory_order.test).
// RUN: tileir-opt %s --split-input-file -p convert-tileaa-to-tileas --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @rmw
// CHECK: %[[A:.*]], %[[T1:.*]] = nv_tileas.atomic_rmw add %x, %p mask %m token %t0 {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xi32>, tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi1> -> tensor<128xi32> loc([[L:#loc[0-9]+]])
// CHECK: %[[B:.*]], %[[T2:.*]] = nv_tileas.atomic_rmw umax %[[A]], %p token %[[T1]] {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope tl_blk>} : tensor<128xi32>, tensor<128x!cuda_tile.ptr<i32>> -> tensor<128xi32>
// CHECK: %[[F:.*]], %{{.*}} = nv_tileas.atomic_rmw addf %f, %q token %[[T2]] {mem_semantic = #nv_tileas<mem_semantic release>, mem_scope = #nv_tileas<mem_scope sys>} : tensor<128xbf16>, tensor<128x!cuda_tile.ptr<bf16>> -> tensor<128xbf16>
// CHECK: nv_tileas.atomic_rmw xchg %[[B]], %p {mem_semantic = #nv_tileas<mem_semantic acquire>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<128xi32>, tensor<128x!cuda_tile.ptr<i32>> -> tensor<128xi32>
// CHECK-NOT: nv_tileaa.atomic
// CHECK: [[L]] = loc("k.py":3:5)
func.func @rmw(%p: tensor<128x!cuda_tile.ptr<i32>>, %q: tensor<128x!cuda_tile.ptr<bf16>>, %x: tensor<128xi32>, %f: tensor<128xbf16>, %m: tensor<128xi1>) -> tensor<128xbf16> {
  %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %a, %t1 = nv_tileaa.atomic_rmw relaxed device add %p, %x, %m token %t0 : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>, tensor<128xi1> loc("k.py":3:5)
  %b, %t2 = nv_tileaa.atomic_rmw acq_rel tl_blk umax %p, %a token %t1 : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>
  %c, %t3 = nv_tileaa.atomic_rmw release sys addf %q, %f token %t2 : tensor<128x!cuda_tile.ptr<bf16>>, tensor<128xbf16>
  %d, %t4 = nv_tileaa.atomic_rmw acquire device xchg %p, %b : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>
  func.return %c : tensor<128xbf16>
}

// -----

// Compare-and-swap: compare before value, as nv_tileaa has them.  An atomic without a
// token whose token result is used takes a fresh token, so that what follows it still
// follows a read and a write.
// CHECK-LABEL: func.func @cas
// CHECK: %[[T:.*]] = nv_tileaa.create_mem_token
// CHECK-NEXT: %[[OLD:.*]], %[[T1:.*]] = nv_tileas.atomic_cas %c, %v, %p mask %m token %[[T]] {mem_semantic = #nv_tileas<mem_semantic acquire_release>, mem_scope = #nv_tileas<mem_scope gpu>} : tensor<16xf32>, tensor<16xf32>, tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1> -> tensor<16xf32>
// CHECK-NEXT: func.return %[[OLD]], %[[T1]]
// CHECK-NOT: nv_tileaa.atomic
func.func @cas(%p: tensor<16x!cuda_tile.ptr<f32>>, %c: tensor<16xf32>, %v: tensor<16xf32>, %m: tensor<16xi1>) -> (tensor<16xf32>, !nv_tileaa.mem_token) {
  %old, %t = nv_tileaa.atomic_cas acq_rel device %p, %c, %v, %m : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xf32>, tensor<16xi1>
  func.return %old, %t : tensor<16xf32>, !nv_tileaa.mem_token
}

// -----

// A scalar atomic (a rank-0 tile), as last_block_sum_i32 has.
// CHECK-LABEL: func.func @scalar
// CHECK: nv_tileas.atomic_rmw add %x, %p mask %m {mem_semantic = #nv_tileas<mem_semantic relaxed>, mem_scope = #nv_tileas<mem_scope gpu>} : i32, !cuda_tile.ptr<i32>, i1 -> i32
func.func @scalar(%p: !cuda_tile.ptr<i32>, %x: i32, %m: i1) -> i32 {
  %r, %t = nv_tileaa.atomic_rmw relaxed device add %p, %x, %m : !cuda_tile.ptr<i32>, i32, i1
  func.return %r : i32
}
