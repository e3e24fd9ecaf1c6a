// nv_tileas.read_tmem_accumulator prints and parses: what tileas-tmem-accumulators puts
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
