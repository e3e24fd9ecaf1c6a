// The bare form tileirdisasm prints (no module, no prefixes) is wrapped in
// `cuda_tile.module @kernels`, as NVIDIA's bytecode reader does.
// RUN: tileir-opt %s | filecheck %s

// CHECK: cuda_tile.module @kernels {
// CHECK-NEXT: entry @k(%arg0: tile<f32>) {
// CHECK-NEXT:   %0 = negf %arg0 : tile<f32>
// CHECK-NEXT:   return
entry @k(%arg0: tile<f32>) {
  %0 = negf %arg0 : tile<f32>
  return
}
