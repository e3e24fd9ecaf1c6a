// Token hop one (seed 004): make_token -> nv_tileaa.create_mem_token and
// join_tokens -> nv_tileaa.join_mem_token, one for one, with the ordering edges of
// the memory operations intact.
// RUN: tileir-opt %s -p convert-cuda-tile-to-tileaa | filecheck %s

// CHECK-LABEL: func.func @tokens
// CHECK-NEXT: %[[A:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK-NEXT: %[[B:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK-NEXT: %[[J:.*]] = nv_tileaa.join_mem_token %[[A]], %[[B]] : !nv_tileaa.mem_token
// CHECK: %{{.*}}, %[[LT:.*]] = nv_tileaa.load weak %{{.*}} token %[[J]]
// CHECK: %[[ST:.*]] = nv_tileaa.store weak %{{.*}}, %{{.*}} token %[[LT]]
// CHECK: nv_tileaa.join_mem_token %[[ST]], %[[A]] : !nv_tileaa.mem_token
// CHECK-NOT: cuda_tile.make_token
// CHECK-NOT: cuda_tile.join_tokens
cuda_tile.module @kernels {
  entry @tokens(%p: tile<ptr<f32>>) {
    %a = make_token : token
    %b = make_token : token
    %j = join_tokens %a, %b : token
    %tv = make_tensor_view %p, shape = [32], strides = [1] : tensor_view<32xf32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(32), tensor_view<32xf32, strides=[1]>>
    %z = constant <i32: 0> : tile<i32>
    %t, %lt = load_view_tko weak %pv[%z] token = %j : partition_view<tile=(32), tensor_view<32xf32, strides=[1]>>, tile<i32> -> tile<32xf32>, token
    %n = negf %t : tile<32xf32>
    %st = store_view_tko weak %n, %pv[%z] token = %lt : tile<32xf32>, partition_view<tile=(32), tensor_view<32xf32, strides=[1]>>, tile<i32> -> token
    %k = join_tokens %st, %a : token
    return
  }
}
