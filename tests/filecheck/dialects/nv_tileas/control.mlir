// Control and metadata: pragma with optimizer directives, program-id cancellation.
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// RULE: pragma-directives
// RULE: region-yield-types
// CHECK-LABEL: func.func @control
// CHECK: %{{.*}} = nv_tileas.pragma -> (tensor<128xf32>) attributes {ocgEnterDirectives = ["maxnreg=128"], ocgLeaveDirectives = ["maxnreg=default"]} {
// CHECK-NEXT: nv_tileas.yield %{{.*}} : tensor<128xf32>
// CHECK: nv_tileas.pragma attributes {ocgEnterDirectives = ["unroll"]} {
// CHECK: nv_tileas.cancel_next_program_id : i1, i32
// CHECK: nv_tileas.async.cancel_next_program_id : !async.value<i1>, !async.value<i32>
func.func @control(%x: tensor<128xf32>) {
  %r = nv_tileas.pragma -> (tensor<128xf32>) attributes {ocgEnterDirectives = ["maxnreg=128"], ocgLeaveDirectives = ["maxnreg=default"]} {
    nv_tileas.yield %x : tensor<128xf32>
  }
  nv_tileas.pragma attributes {ocgEnterDirectives = ["unroll"]} {
    nv_tileas.yield
  }
  %ok, %pid = nv_tileas.cancel_next_program_id : i1, i32
  %fok, %fpid = nv_tileas.async.cancel_next_program_id : !async.value<i1>, !async.value<i32>
  func.return
}
