// nv_tileaa round trip: mem tokens, pointer arithmetic, assume, masked load/store, atomics (seed 004).
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// CHECK-LABEL: func.func @tokens() {
// CHECK-NEXT: %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK-NEXT: %t1 = nv_tileaa.create_mem_token {num_producers = 2 : i32} : !nv_tileaa.mem_token
// CHECK-NEXT: %t2 = nv_tileaa.join_mem_token %t0, %t1 : !nv_tileaa.mem_token
// CHECK-NEXT: "test.op"(%t2) : (!nv_tileaa.mem_token) -> ()
// CHECK-NEXT: func.return
// CHECK-NEXT: }
// CHECK-LABEL: func.func @memory(%p: !cuda_tile.ptr<f32>, %off: tensor<16xi32>, %m: tensor<16xi1>, %o: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
// CHECK-NEXT: %s = nv_tileaa.splat %p : !cuda_tile.ptr<f32> -> tensor<16x!cuda_tile.ptr<f32>>
// CHECK-NEXT: %q = nv_tileaa.addptr %s, %off : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi32>
// CHECK-NEXT: %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
// CHECK-NEXT: %x, %t1 = nv_tileaa.load weak %q : tensor<16x!cuda_tile.ptr<f32>> -> tensor<16xf32>
// CHECK-NEXT: %y, %t2 = nv_tileaa.load relaxed device %q, %m, %o token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
// CHECK-NEXT: %t3 = nv_tileaa.store weak %q, %x, %m token %t2 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
// CHECK-NEXT: %z, %t4 = nv_tileaa.atomic_rmw relaxed device addf %q, %y, %m token %t3 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
// CHECK-NEXT: %w, %t5 = nv_tileaa.atomic_cas acq_rel device %q, %x, %y token %t4 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xf32>
// CHECK-NEXT: func.return
// CHECK-NEXT: }

func.func @tokens() {
  %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %t1 = nv_tileaa.create_mem_token {num_producers = 2 : i32} : !nv_tileaa.mem_token
  %t2 = nv_tileaa.join_mem_token %t0, %t1 : !nv_tileaa.mem_token
  "test.op"(%t2) : (!nv_tileaa.mem_token) -> ()
  func.return
}
func.func @memory(%p: !cuda_tile.ptr<f32>, %off: tensor<16xi32>, %m: tensor<16xi1>, %o: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
  %s = nv_tileaa.splat %p : !cuda_tile.ptr<f32> -> tensor<16x!cuda_tile.ptr<f32>>
  %q = nv_tileaa.addptr %s, %off : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi32>
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
  %x, %t1 = nv_tileaa.load weak %q : tensor<16x!cuda_tile.ptr<f32>> -> tensor<16xf32>
  %y, %t2 = nv_tileaa.load relaxed device %q, %m, %o token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf32> -> tensor<16xf32>
  %t3 = nv_tileaa.store weak %q, %x, %m token %t2 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  %z, %t4 = nv_tileaa.atomic_rmw relaxed device addf %q, %y, %m token %t3 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xi1>
  %w, %t5 = nv_tileaa.atomic_cas acq_rel device %q, %x, %y token %t4 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xf32>
  func.return
}
