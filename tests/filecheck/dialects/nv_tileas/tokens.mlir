// The async token family: waits, futures, token bridging, placeholders.
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// RULE: future-types
// CHECK-LABEL: func.func @tokens
// CHECK: %[[F:.*]] = nv_tileas.async.to_async %{{.*}} : tile<64xf32> -> !async.value<tile<64xf32>>
// CHECK: nv_tileas.async.future_wait %[[F]] : !async.value<tile<64xf32>> -> tile<64xf32>
// CHECK: %[[T:.*]] = nv_tileas.async.token_to_async %{{.*}} : !nv_tileaa.mem_token -> !nv_tileas.async.token
// CHECK: %[[N:.*]] = nv_tileas.create_none : !nv_tileas.async.token
// CHECK: nv_tileas.create_none : !async.value<i32>
// CHECK: nv_tileas.create_none : !nv_tileaa.mem_token
// CHECK: nv_tileas.async.wait %[[T]], %[[N]], %[[F]] : !nv_tileas.async.token, !nv_tileas.async.token, !async.value<tile<64xf32>>
// CHECK: nv_tileas.async.wait{{$}}
// An empty wait followed by an op with results (the drain after a warp-specialized
// loop): the results are the next op's, not the wait's operands.
// CHECK-NEXT: %{{.*}}, %{{.*}} = "test.op"()
// CHECK-NEXT: nv_tileas.async.wait{{$}}
// CHECK-NEXT: %{{.*}} = nv_tileas.create_none : !nv_tileas.async.token
func.func @tokens(%v: !cuda_tile.tile<64xf32>, %m: !nv_tileaa.mem_token) {
  %f = nv_tileas.async.to_async %v : tile<64xf32> -> !async.value<tile<64xf32>>
  %x = nv_tileas.async.future_wait %f : !async.value<tile<64xf32>> -> tile<64xf32>
  %t = nv_tileas.async.token_to_async %m : !nv_tileaa.mem_token -> !nv_tileas.async.token
  %n = nv_tileas.create_none : !nv_tileas.async.token
  %e = nv_tileas.create_none : !async.value<i32>
  %mt = nv_tileas.create_none : !nv_tileaa.mem_token
  nv_tileas.async.wait %t, %n, %f : !nv_tileas.async.token, !nv_tileas.async.token, !async.value<tile<64xf32>>
  nv_tileas.async.wait
  %p, %q = "test.op"() : () -> (i32, i32)
  nv_tileas.async.wait
  %r = nv_tileas.create_none : !nv_tileas.async.token
  func.return
}
