// The tensor-slice family: mixed static/dynamic offsets, sizes and strides (seed 000's
// spellings), alloc_tensor with dynamic extents, and the async forms on futures.
// RUN: tileir-opt %s --split-input-file | tileir-opt --split-input-file | filecheck %s
// RUN: tileir-opt %s --split-input-file --print-op-generic | tileir-opt --split-input-file | filecheck %s

// RULE: slice-rank
// RULE: slice-sizes
// RULE: slice-bounds
// RULE: slice-types
// RULE: alloc-sizes
// CHECK-LABEL: func.func @mixed
// CHECK: %[[A:.*]] = nv_tileas.alloc_tensor(%{{.*}}) : tensor<?x64xf32>
// CHECK: nv_tileas.extract_slice %{{.*}}[%{{.*}}, 0][64, %{{.*}}][1, 2] : tensor<128x128xf32> to tensor<64x?xf32>
// CHECK: nv_tileas.extract_slice %{{.*}}[64, 0][64, 32][1, 4] : tensor<128x128xf32> to tensor<64x32xf32>
// CHECK: nv_tileas.insert_slice %{{.*}} into %[[A]][0, 0][%{{.*}}, 64][1, 1] : tensor<?x64xf32> into tensor<?x64xf32>
// CHECK: nv_tileas.extract_slice %{{.*}}[0, 0][0, 0][1, 1] : tensor<128x128xf32> to tensor<0x0xf32>
// CHECK: nv_tileas.extract_slice %{{.*}}[0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<?x64xf32>
func.func @mixed(%src: tensor<128x128xf32>, %i: index, %n: index, %m: index) {
  %a = nv_tileas.alloc_tensor(%m) : tensor<?x64xf32>
  %s = nv_tileas.extract_slice %src[%i, 0][64, %n][1, 2] : tensor<128x128xf32> to tensor<64x?xf32>
  // The last row/column touched: 64 + 63 = 127 and 0 + 31 * 4 = 124.
  %t = nv_tileas.extract_slice %src[64, 0][64, 32][1, 4] : tensor<128x128xf32> to tensor<64x32xf32>
  %u = nv_tileas.insert_slice %a into %a[0, 0][%m, 64][1, 1] : tensor<?x64xf32> into tensor<?x64xf32>
  %e = nv_tileas.extract_slice %src[0, 0][0, 0][1, 1] : tensor<128x128xf32> to tensor<0x0xf32>
  // A static size may give a less static extent.
  %l = nv_tileas.extract_slice %src[0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<?x64xf32>
  func.return
}

// -----

// CHECK-LABEL: func.func @futures
// CHECK: nv_tileas.async.extract_slice %{{.*}}[0, %{{.*}}][64, 64][1, 1] : !async.value<tensor<128x128xf32>> to !async.value<tensor<64x64xf32>>
// CHECK: nv_tileas.async.insert_slice %{{.*}} into %{{.*}}[0, 0][64, 64][1, 1] : !async.value<tensor<64x64xf32>> into !async.value<tensor<128x128xf32>>
// CHECK: nv_tileas.async.insert_slice %{{.*}} into %{{.*}}[64, 64][64, 64][1, 1] : tensor<64x64xf32> into !async.value<tensor<128x128xf32>>
func.func @futures(%f: !async.value<tensor<128x128xf32>>, %x: tensor<64x64xf32>, %j: index) {
  %s = nv_tileas.async.extract_slice %f[0, %j][64, 64][1, 1] : !async.value<tensor<128x128xf32>> to !async.value<tensor<64x64xf32>>
  %r = nv_tileas.async.insert_slice %s into %f[0, 0][64, 64][1, 1] : !async.value<tensor<64x64xf32>> into !async.value<tensor<128x128xf32>>
  %q = nv_tileas.async.insert_slice %x into %r[64, 64][64, 64][1, 1] : tensor<64x64xf32> into !async.value<tensor<128x128xf32>>
  func.return
}
