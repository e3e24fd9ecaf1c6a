// nv_tileas.dot with the atoms tileas-select-dot-atoms chooses (the catalog beyond the
// seed's: every mma.sync and wgmma family tileir lowers, wgmma at each N, the
// widened 8-bit float mma.sync of sm_80, the CUDA-core `fma` atoms), and batched dots.
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

// RULE: dot-atom
// RULE: dot-shapes
// CHECK-LABEL: func.func @dot_atoms
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %{{.*}} {atom = #nv_tileas<atom wgmma_m64n64k16_f16_f16_f32>} : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %{{.*}} {atom = #nv_tileas<atom mma_u8_s8_s32>} : tensor<64x32xi8>, tensor<32x64xi8>, tensor<64x64xi32> -> tensor<64x64xi32>
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %{{.*}} {atom = #nv_tileas<atom wgmma_m64n64k32_s8_u8_s32>} : tensor<64x32xi8>, tensor<32x64xi8>, tensor<64x64xi32> -> tensor<64x64xi32>
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %{{.*}} {fast_acc, atom = #nv_tileas<atom mma_e4m3_e5m2_f16_via_f16>} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E5M2>, tensor<64x64xf16> -> tensor<64x64xf16>
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %{{.*}} {atom = #nv_tileas<atom mma_tf32_tf32_f32>} : tensor<64x32xtf32>, tensor<32x64xtf32>, tensor<64x64xf32> -> tensor<64x64xf32>
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %{{.*}} {atom = #nv_tileas<atom fma>} : tensor<2x4x8xf64>, tensor<2x8x4xf64>, tensor<2x4x4xf64> -> tensor<2x4x4xf64>
// CHECK: nv_tileas.dot %{{.*}}, %{{.*}}, %{{.*}} {atom = #nv_tileas<atom fma_s8_u8_s32>} : tensor<2x2xi8>, tensor<2x2xi8>, tensor<2x2xi32> -> tensor<2x2xi32>
func.func @dot_atoms(%h: tensor<64x32xf16>, %hb: tensor<32x64xf16>, %hc: tensor<64x64xf32>,
                     %i: tensor<64x32xi8>, %ib: tensor<32x64xi8>, %ic: tensor<64x64xi32>,
                     %e: tensor<64x32xf8E4M3FN>, %eb: tensor<32x64xf8E5M2>, %ec: tensor<64x64xf16>,
                     %t: tensor<64x32xtf32>, %tb: tensor<32x64xtf32>,
                     %d: tensor<2x4x8xf64>, %db: tensor<2x8x4xf64>, %dc: tensor<2x4x4xf64>,
                     %s: tensor<2x2xi8>, %sc: tensor<2x2xi32>) {
  %0 = nv_tileas.dot %h, %hb, %hc {atom = #nv_tileas<atom wgmma_m64n64k16_f16_f16_f32>} : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  %1 = nv_tileas.dot %i, %ib, %ic {atom = #nv_tileas<atom mma_u8_s8_s32>} : tensor<64x32xi8>, tensor<32x64xi8>, tensor<64x64xi32> -> tensor<64x64xi32>
  %2 = nv_tileas.dot %i, %ib, %ic {atom = #nv_tileas<atom wgmma_m64n64k32_s8_u8_s32>} : tensor<64x32xi8>, tensor<32x64xi8>, tensor<64x64xi32> -> tensor<64x64xi32>
  %3 = nv_tileas.dot %e, %eb, %ec {fast_acc, atom = #nv_tileas<atom mma_e4m3_e5m2_f16_via_f16>} : tensor<64x32xf8E4M3FN>, tensor<32x64xf8E5M2>, tensor<64x64xf16> -> tensor<64x64xf16>
  %4 = nv_tileas.dot %t, %tb, %hc {atom = #nv_tileas<atom mma_tf32_tf32_f32>} : tensor<64x32xtf32>, tensor<32x64xtf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  %5 = nv_tileas.dot %d, %db, %dc {atom = #nv_tileas<atom fma>} : tensor<2x4x8xf64>, tensor<2x8x4xf64>, tensor<2x4x4xf64> -> tensor<2x4x4xf64>
  %6 = nv_tileas.dot %s, %s, %sc {atom = #nv_tileas<atom fma_s8_u8_s32>} : tensor<2x2xi8>, tensor<2x2xi8>, tensor<2x2xi32> -> tensor<2x2xi32>
  func.return
}
