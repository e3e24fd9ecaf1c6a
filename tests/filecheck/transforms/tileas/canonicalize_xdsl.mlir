// The seed 000 patterns rooted on nv_tileas.extract_slice are attached to the op with
// HasCanonicalizationPatternsTrait, so xDSL's own `canonicalize` runs them too; the
// patterns rooted on scf.for / scf.if cannot be attached to xDSL's scf ops and run only in
// tileas-canonicalize.
// RUN: tileir-opt %s --split-input-file -p canonicalize | filecheck %s

// Simplify extract slice (xDSL's canonicalize also drops the dead constants).
// CHECK-LABEL: func.func @simplify_extract_slice
// CHECK-NEXT: %[[S:.*]] = nv_tileas.extract_slice %{{.*}}[0, 0][64, 64][1, 1] : tensor<128x128xf32> to tensor<64x64xf32>
// CHECK-NEXT: %[[C:.*]] = tensor.cast %[[S]] : tensor<64x64xf32> to tensor<?x?xf32>
// CHECK-NEXT: func.return %[[C]]
func.func @simplify_extract_slice(%src: tensor<128x128xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %slice = nv_tileas.extract_slice %src[%c0, %c0][%c64, %c64][%c1, %c1] : tensor<128x128xf32> to tensor<?x?xf32>
  func.return %slice : tensor<?x?xf32>
}

// -----

// Simplify extract from insert.
// CHECK-LABEL: func.func @extract_from_insert
// CHECK-SAME: (%[[X:[^:]*]]: tensor<?x?xf32>
// CHECK-NEXT: func.return %[[X]] : tensor<?x?xf32>
func.func @extract_from_insert(%x: tensor<?x?xf32>, %dst: tensor<64x64xf32>, %i: index, %j: index, %m: index, %n: index) -> tensor<?x?xf32> {
  %t = nv_tileas.insert_slice %x into %dst[%i, %j][%m, %n][1, 1] : tensor<?x?xf32> into tensor<64x64xf32>
  %y = nv_tileas.extract_slice %t[%i, %j][%m, %n][1, 1] : tensor<64x64xf32> to tensor<?x?xf32>
  func.return %y : tensor<?x?xf32>
}

// -----

// Swap view and extract slice.
// CHECK-LABEL: func.func @swap_view_and_extract_slice
// CHECK-NEXT: nv_tileas.extract_slice %{{.*}}[0, 0][32, 64][1, 1] : tensor<128x64x!cuda_tile.ptr<f32>> to tensor<32x64x!cuda_tile.ptr<f32>>
// CHECK-NEXT: nv_tileas.view
func.func @swap_view_and_extract_slice(%ptrs: tensor<128x64x!cuda_tile.ptr<f32>>) -> !nv_tileas.tiled_view<32x64xf32, gmem> {
  %v = nv_tileas.view %ptrs : tensor<128x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<128x64xf32, gmem>
  %s = nv_tileas.extract_slice %v[0, 0][32, 64][1, 1] : !nv_tileas.tiled_view<128x64xf32, gmem> to !nv_tileas.tiled_view<32x64xf32, gmem>
  func.return %s : !nv_tileas.tiled_view<32x64xf32, gmem>
}

// -----

// Not under xDSL's canonicalize: the scf.if decomposition (one shared allocation stays
// outside the branches).
// CHECK-LABEL: func.func @no_if_decomposition
// CHECK-NEXT: nv_tileas.alloc_tensor
// CHECK-NEXT: scf.if
// CHECK-NOT: nv_tileas.alloc_tensor
func.func @no_if_decomposition(%cond: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<16xf32> {
  %init = nv_tileas.alloc_tensor : tensor<16xf32>
  %r = scf.if %cond -> (tensor<16xf32>) {
    %v = nv_tileas.insert_slice %a into %init[0][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  } else {
    %v = nv_tileas.insert_slice %b into %init[4][4][1] : tensor<4xf32> into tensor<16xf32>
    scf.yield %v : tensor<16xf32>
  }
  func.return %r : tensor<16xf32>
}
