// Globals: module-level variables and their addresses (tileir's ops, not in seed 003's
// roster; see tileir/dialects/nv_tileas/ops/globals.py).
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// A read-only table with an alignment, a private float global and a one-element lock;
// the address of each, a pointer to its element type.
// RULE: global-value
// RULE: get-global-symbol
// CHECK: nv_tileas.global @table dense<[1, 2, 3, 4]> : tensor<4xi32> {alignment = 16 : i64, constant}
// CHECK: nv_tileas.global @scale dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32> {sym_visibility = "private"}
// CHECK: nv_tileas.global @lock dense<1> : tensor<1xi32>
// CHECK-LABEL: func.func @addresses
// CHECK: nv_tileas.get_global @table : !cuda_tile.ptr<i32>
// CHECK: nv_tileas.get_global @scale : !cuda_tile.ptr<f32>
// CHECK: nv_tileas.get_global @lock : !cuda_tile.ptr<i32>
nv_tileas.global @table dense<[1, 2, 3, 4]> : tensor<4xi32> {alignment = 16 : i64, constant}
nv_tileas.global @scale dense<[0.5, 2.0]> : tensor<2xf32> {sym_visibility = "private"}
nv_tileas.global @lock dense<1> : tensor<1xi32>
func.func @addresses() {
  %t = nv_tileas.get_global @table : !cuda_tile.ptr<i32>
  %s = nv_tileas.get_global @scale : !cuda_tile.ptr<f32>
  %l = nv_tileas.get_global @lock : !cuda_tile.ptr<i32>
  func.return
}
