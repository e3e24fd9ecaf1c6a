// The tensor-memory ops print and parse.  nv_tileas.read_tmem_accumulator: what tileas-tmem-accumulators puts
// after a K loop whose tcgen05 accumulator stays in tensor memory (its result has its
// operand's type: SameOperandsAndResultType).
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s | tileir-opt | filecheck %s

// CHECK-LABEL: func.func @read
// CHECK: %{{.*}} = nv_tileas.read_tmem_accumulator %{{.*}} {column = 64 : i64} : tensor<128x64xf32> -> tensor<128x64xf32>
func.func @read(%r: tensor<128x64xf32>) {
  %v = nv_tileas.read_tmem_accumulator %r {column = 64 : i64} : tensor<128x64xf32> -> tensor<128x64xf32>
  func.return
}

// An accumulator the loop scales row by row (nv_tileas.tmem_stored): its initial value
// written to tensor memory before the loop, the scaling by one factor per row inside it.
// CHECK-LABEL: func.func @write_and_scale
// CHECK: nv_tileas.write_tmem_accumulator %{{.*}} {column = 0 : i64} : tensor<128x64xf32>
// CHECK: nv_tileas.scale_tmem_accumulator %{{.*}}, %{{.*}} {column = 0 : i64} : tensor<128x64xf32>, tensor<128x1xf32>
func.func @write_and_scale(%init: tensor<128x64xf32>, %factor: tensor<128x1xf32>) {
  nv_tileas.write_tmem_accumulator %init {column = 0 : i64} : tensor<128x64xf32>
  nv_tileas.scale_tmem_accumulator %init, %factor {column = 0 : i64} : tensor<128x64xf32>, tensor<128x1xf32>
  func.return
}
