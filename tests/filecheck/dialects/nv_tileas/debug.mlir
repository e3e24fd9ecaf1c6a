// Debug: print and assert (tileir's ops, not in seed 003's roster; see
// tileir/dialects/nv_tileas/ops/debug.py).
// RUN: tileir-opt %s | tileir-opt --print-local-scope | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt --print-local-scope | filecheck %s
// RUN: tileir-opt %s -p cse,dce --print-local-scope | filecheck %s --check-prefix=KEPT

// A print of scalars, of a laid-out tensor with a scalar, of pointers and of nothing;
// an assertion on a tensor and on a scalar.
// RULE: print-arguments
// RULE: assert-condition
// CHECK-LABEL: func.func @debug
// CHECK: nv_tileas.print "n=%d x=%f\0A", %n, %x : i32, f32
// CHECK: nv_tileas.print "i=%d %u\0A", %t, %n : tensor<64xi32, #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>, i32
// CHECK: nv_tileas.print "%p\0A", %p : tensor<64x!cuda_tile.ptr<f16>>
// CHECK: nv_tileas.print "100%% done\0A"
// CHECK: nv_tileas.assert %ok, "in range" : tensor<64xi1>
// CHECK: nv_tileas.assert %b, "scalar" : i1
// Two equal prints stay two, and neither goes though nothing uses it.
// KEPT-LABEL: func.func @debug
// KEPT-COUNT-2: nv_tileas.print "n=%d x=%f\0A"
func.func @debug(%n: i32, %x: f32,
    %t: tensor<64xi32, #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>,
    %p: tensor<64x!cuda_tile.ptr<f16>>, %ok: tensor<64xi1>, %b: i1) {
  nv_tileas.print "n=%d x=%f\0A", %n, %x : i32, f32
  nv_tileas.print "n=%d x=%f\0A", %n, %x : i32, f32
  nv_tileas.print "i=%d %u\0A", %t, %n : tensor<64xi32, #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>>, i32
  nv_tileas.print "%p\0A", %p : tensor<64x!cuda_tile.ptr<f16>>
  nv_tileas.print "100%% done\0A"
  nv_tileas.assert %ok, "in range" : tensor<64xi1>
  nv_tileas.assert %b, "scalar" : i1
  func.return
}
