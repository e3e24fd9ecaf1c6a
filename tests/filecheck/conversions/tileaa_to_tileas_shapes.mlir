// convert-tileaa-to-tileas: nv_tileaa shape ops become their nv_tileas forms
// (tileir/conversions/tileaa_shapes.py).  `expand_dims` becomes the seed's layout-family
// `nv_tileas.expand_dims` (seed 003) with the same operand, axis and result type; the
// layouts come later, from tileas-assign-layouts (transforms/tileas/assign_layouts.mlir,
// tileaa_to_tileas_shapes_corpus.test).
// RUN: tileir-opt %s --split-input-file -p convert-tileaa-to-tileas | filecheck %s

// Rows and columns of a 2-D index tile, and a scalar made a 1-element tile.
// CHECK-LABEL: func.func @expand
// CHECK: %[[R:.*]] = nv_tileas.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK: %[[C:.*]] = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
// CHECK: %[[S:.*]] = nv_tileas.expand_dims %s {axis = 0 : i32} : f32 -> tensor<1xf32>
// CHECK: func.return %[[R]], %[[C]], %[[S]]
// CHECK-NOT: nv_tileaa.expand_dims
func.func @expand(%r: tensor<16xi32>, %c: tensor<64xi32>, %s: f32) -> (tensor<16x1xi32>, tensor<1x64xi32>, tensor<1xf32>) {
  %r2 = nv_tileaa.expand_dims %r {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %c2 = nv_tileaa.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %s1 = nv_tileaa.expand_dims %s {axis = 0 : i32} : f32 -> tensor<1xf32>
  func.return %r2, %c2, %s1 : tensor<16x1xi32>, tensor<1x64xi32>, tensor<1xf32>
}

// -----

// `extract` names a sub-tile by tile coordinates (i32, in units of the result's shape);
// `extract_slice` by element offsets (coordinate times the result's extent, in index
// arithmetic, constant coordinates included), the result's shape as sizes, strides 1.
// CHECK-LABEL: func.func @extract
// CHECK: %[[C1:.*]] = cuda_tile.constant <i32: 1> : i32
// CHECK: %[[I0:.*]] = arith.index_cast %i : i32 to index
// CHECK: %[[S0:.*]] = arith.constant 64 : index
// CHECK: %[[O0:.*]] = arith.muli %[[I0]], %[[S0]] : index
// CHECK: %[[I1:.*]] = arith.index_cast %[[C1]] : i32 to index
// CHECK: %[[S1:.*]] = arith.constant 32 : index
// CHECK: %[[O1:.*]] = arith.muli %[[I1]], %[[S1]] : index
// CHECK: %a = nv_tileas.extract_slice %x[%[[O0]], %[[O1]]][64, 32][1, 1] : tensor<64x64xf32> to tensor<64x32xf32>
// CHECK: arith.index_cast %j : i32 to index
// CHECK: %[[B:.*]] = nv_tileas.extract_slice %a[%{{.*}}, %{{.*}}][8, 32][1, 1] : tensor<64x32xf32> to tensor<8x32xf32>
// CHECK-NOT: nv_tileaa.extract
func.func @extract(%x: tensor<64x64xf32>, %i: i32, %j: i32) -> tensor<8x32xf32> {
  %c1 = cuda_tile.constant <i32: 1> : i32
  %a = nv_tileaa.extract %x[%i, %c1] : tensor<64x64xf32> -> tensor<64x32xf32>
  %b = nv_tileaa.extract %a[%j, %i] : tensor<64x32xf32> -> tensor<8x32xf32>
  func.return %b : tensor<8x32xf32>
}

// -----

// `splat` and `broadcast` become tileir's `nv_tileas.splat` / `nv_tileas.broadcast`
// (seed 003 has neither) with the same operand and type: a row offset splatted,
// rows and columns of a 2-D index tile broadcast, a pointer splatted.
// CHECK-LABEL: func.func @splat_broadcast
// CHECK: %[[PS:.*]] = nv_tileas.splat %d : i32 -> tensor<16xi32>
// CHECK: %[[R:.*]] = cuda_tile.muli %r, %[[PS]] : tensor<16xi32>
// CHECK: %[[R2:.*]] = nv_tileas.expand_dims %[[R]] {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
// CHECK: %[[RB:.*]] = nv_tileas.broadcast %[[R2]] : tensor<16x1xi32> -> tensor<16x64xi32>
// CHECK: %[[CB:.*]] = nv_tileas.broadcast %c : tensor<1x64xi32> -> tensor<16x64xi32>
// CHECK: %[[O:.*]] = cuda_tile.addi %[[RB]], %[[CB]] : tensor<16x64xi32>
// CHECK: %[[S:.*]] = nv_tileas.splat %a : !cuda_tile.ptr<f16> -> tensor<16x64x!cuda_tile.ptr<f16>>
// CHECK: func.return %[[S]], %[[O]]
// CHECK-NOT: nv_tileaa.splat
// CHECK-NOT: nv_tileaa.broadcast
func.func @splat_broadcast(%a: !cuda_tile.ptr<f16>, %d: i32, %r: tensor<16xi32>, %c: tensor<1x64xi32>) -> (tensor<16x64x!cuda_tile.ptr<f16>>, tensor<16x64xi32>) {
  %ps = nv_tileaa.splat %d : i32 -> tensor<16xi32>
  %rm = cuda_tile.muli %r, %ps : tensor<16xi32>
  %r2 = nv_tileaa.expand_dims %rm {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>
  %rb = nv_tileaa.broadcast %r2 : tensor<16x1xi32> -> tensor<16x64xi32>
  %cb = nv_tileaa.broadcast %c : tensor<1x64xi32> -> tensor<16x64xi32>
  %o = cuda_tile.addi %rb, %cb : tensor<16x64xi32>
  %s = nv_tileaa.splat %a : !cuda_tile.ptr<f16> -> tensor<16x64x!cuda_tile.ptr<f16>>
  func.return %s, %o : tensor<16x64x!cuda_tile.ptr<f16>>, tensor<16x64xi32>
}

// -----

// `view` (cuda_tile's `reshape` of a tile) becomes the seed's value view (seed 003 layout
// family: a tensor result, no indices) with the same operand and type; to rank 0 too,
// the element of a one-element tile.
// CHECK-LABEL: func.func @view
// CHECK: %[[V:.*]] = nv_tileas.view %x : tensor<1x64x64xf16> -> tensor<64x64xf16>
// CHECK: %[[S:.*]] = nv_tileas.view %y : tensor<1xf32> -> f32
// CHECK: func.return %[[V]], %[[S]]
// CHECK-NOT: nv_tileaa.view
func.func @view(%x: tensor<1x64x64xf16>, %y: tensor<1xf32>) -> (tensor<64x64xf16>, f32) {
  %v = nv_tileaa.view %x : tensor<1x64x64xf16> -> tensor<64x64xf16>
  %s = nv_tileaa.view %y : tensor<1xf32> -> f32
  func.return %v, %s : tensor<64x64xf16>, f32
}

// -----

// cuda_tile `permute` becomes the seed's `shuffle` (seed 003 layout family) with the same
// permutation (result dimension k is source dimension permutation[k]).
// CHECK-LABEL: func.func @permute
// CHECK: %[[T:.*]] = nv_tileas.shuffle %x {permutation = array<i64: 1, 0>} : tensor<64x32xf16> -> tensor<32x64xf16>
// CHECK: %[[P:.*]] = nv_tileas.shuffle %y {permutation = array<i64: 2, 0, 1>} : tensor<4x8x16xf32> -> tensor<16x4x8xf32>
// CHECK: func.return %[[T]], %[[P]]
// CHECK-NOT: cuda_tile.permute
func.func @permute(%x: tensor<64x32xf16>, %y: tensor<4x8x16xf32>) -> (tensor<32x64xf16>, tensor<16x4x8xf32>) {
  %t = cuda_tile.permute %x [1, 0] : tensor<64x32xf16> -> tensor<32x64xf16>
  %p = cuda_tile.permute %y [2, 0, 1] : tensor<4x8x16xf32> -> tensor<16x4x8xf32>
  func.return %t, %p : tensor<32x64xf16>, tensor<16x4x8xf32>
}

// -----

// `pack` / `unpack` (13.3) see the bytes of a rank-1 tile as another element type: the
// seed's `reinterpret` (seed 003 layout family, the same bits seen as another tile type),
// same operand and type.
// CHECK-LABEL: func.func @pack_unpack
// CHECK: %[[B:.*]] = nv_tileas.reinterpret %x : tensor<64xf16> -> tensor<128xi8>
// CHECK: %[[H:.*]] = nv_tileas.reinterpret %[[B]] : tensor<128xi8> -> tensor<64xf16>
// CHECK: func.return %[[H]]
// CHECK-NOT: cuda_tile.pack
// CHECK-NOT: cuda_tile.unpack
func.func @pack_unpack(%x: tensor<64xf16>) -> tensor<64xf16> {
  %b = cuda_tile.pack %x : tensor<64xf16> -> tensor<128xi8>
  %h = cuda_tile.unpack %b : tensor<128xi8> -> tensor<64xf16>
  func.return %h : tensor<64xf16>
}

// -----

// `insert` (13.4) replaces a block of the destination named by tile coordinates (i32, in
// units of the source's shape): the seed's `insert_slice` (seed 003 slice family) at
// element offsets, as `extract` (coordinate times the source's extent, constant
// coordinates included), the source's shape as sizes, strides 1.  A rank-0 destination
// is one block: the source itself.
// CHECK-LABEL: func.func @insert
// CHECK: %[[C1:.*]] = cuda_tile.constant <i32: 1> : i32
// CHECK: %[[I0:.*]] = arith.index_cast %i : i32 to index
// CHECK: %[[S0:.*]] = arith.constant 16 : index
// CHECK: %[[O0:.*]] = arith.muli %[[I0]], %[[S0]] : index
// CHECK: %[[I1:.*]] = arith.index_cast %[[C1]] : i32 to index
// CHECK: %[[S1:.*]] = arith.constant 32 : index
// CHECK: %[[O1:.*]] = arith.muli %[[I1]], %[[S1]] : index
// CHECK: %r = nv_tileas.insert_slice %x into %d[%[[O0]], %[[O1]]][16, 32][1, 1] : tensor<16x32xf32> into tensor<64x64xf32>
// CHECK: func.return %r, %s : tensor<64x64xf32>, f32
// CHECK-NOT: cuda_tile.insert
func.func @insert(%x: tensor<16x32xf32>, %d: tensor<64x64xf32>, %i: i32, %s: f32, %e: f32) -> (tensor<64x64xf32>, f32) {
  %c1 = cuda_tile.constant <i32: 1> : i32
  %r = cuda_tile.insert %x, %d[%i, %c1] : tensor<16x32xf32>, tensor<64x64xf32>
  %t = cuda_tile.insert %s, %e[] : f32, f32
  func.return %r, %t : tensor<64x64xf32>, f32
}

// -----

// `cat` has no seed op: a fresh tile (`alloc_tensor`) filled by an insertion chain, the
// first operand at the origin, the second shifted along the dimension (static offsets),
// each operand's shape as sizes, strides 1.
// CHECK-LABEL: func.func @cat
// CHECK: %[[T:.*]] = nv_tileas.alloc_tensor : tensor<16x48xf32>
// CHECK: %[[A:.*]] = nv_tileas.insert_slice %a into %[[T]][0, 0][16, 32][1, 1] : tensor<16x32xf32> into tensor<16x48xf32>
// CHECK: %[[C:.*]] = nv_tileas.insert_slice %b into %[[A]][0, 32][16, 16][1, 1] : tensor<16x16xf32> into tensor<16x48xf32>
// CHECK: %[[R:.*]] = nv_tileas.alloc_tensor : tensor<24x8xf32>
// CHECK: %[[U:.*]] = nv_tileas.insert_slice %u into %[[R]][0, 0][8, 8][1, 1] : tensor<8x8xf32> into tensor<24x8xf32>
// CHECK: %[[V:.*]] = nv_tileas.insert_slice %v into %[[U]][8, 0][16, 8][1, 1] : tensor<16x8xf32> into tensor<24x8xf32>
// CHECK: func.return %[[C]], %[[V]]
// CHECK-NOT: cuda_tile.cat
func.func @cat(%a: tensor<16x32xf32>, %b: tensor<16x16xf32>, %u: tensor<8x8xf32>, %v: tensor<16x8xf32>) -> (tensor<16x48xf32>, tensor<24x8xf32>) {
  %c = cuda_tile.cat %a, %b dim = 1 : tensor<16x32xf32>, tensor<16x16xf32> -> tensor<16x48xf32>
  %r = cuda_tile.cat %u, %v dim = 0 : tensor<8x8xf32>, tensor<16x8xf32> -> tensor<24x8xf32>
  func.return %c, %r : tensor<16x48xf32>, tensor<24x8xf32>
}
