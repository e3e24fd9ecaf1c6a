// nv_tileas.make_global_view: the global tensor a TMA descriptor maps, from a pointer,
// its extents and the strides of its outer dimensions (tileas-tma-feeds builds one per
// operand it feeds by TMA).  The valid form round-trips; each broken one is rejected.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK-LABEL: func.func @view
// CHECK: %[[V:.*]] = nv_tileas.make_global_view %{{.*}} [%{{.*}}, %{{.*}}] strides [%{{.*}}] : !cuda_tile.ptr<bf16>, i32, i32, i64 -> !nv_tileas.tiled_view<?x?xbf16, gmem, strides = [?, 1]>
// CHECK: nv_tileas.make_tiled_tma_desc %[[V]] box
func.func @view(%p: !cuda_tile.ptr<bf16>, %m: i32, %n: i32, %s: i64) {
  %v = nv_tileas.make_global_view %p [%m, %n] strides [%s] : !cuda_tile.ptr<bf16>, i32, i32, i64 -> !nv_tileas.tiled_view<?x?xbf16, gmem, strides = [?, 1]>
  %c128 = arith.constant 128 : index
  %c32 = arith.constant 32 : index
  %d = nv_tileas.make_tiled_tma_desc %v box [%c128, %c32] {atom = #nv_tileas<atom tma_load_2d>, swizzle_mode = #nv_tileas<swizzle_mode 64B>, oob_mode = #nv_tileas<oob_mode zero>} : !nv_tileas.tiled_view<?x?xbf16, gmem, strides = [?, 1]> -> !nv_tileas.tma_desc
  func.return
}

// -----

func.func @element_type(%p: !cuda_tile.ptr<f16>, %m: i32, %n: i32, %s: i64) {
  // expected-error@+1 {{'nv_tileas.make_global_view' op the view's element type bf16 is not the pointer's f16}}
  %v = nv_tileas.make_global_view %p [%m, %n] strides [%s] : !cuda_tile.ptr<f16>, i32, i32, i64 -> !nv_tileas.tiled_view<?x?xbf16, gmem, strides = [?, 1]>
  func.return
}

// -----

func.func @residency(%p: !cuda_tile.ptr<f16>, %m: i32, %n: i32, %s: i64) {
  // expected-error@+1 {{'nv_tileas.make_global_view' op the view must reside in gmem, not smem}}
  %v = nv_tileas.make_global_view %p [%m, %n] strides [%s] : !cuda_tile.ptr<f16>, i32, i32, i64 -> !nv_tileas.tiled_view<?x?xf16, smem, strides = [?, 1]>
  func.return
}

// -----

func.func @extents(%p: !cuda_tile.ptr<f16>, %m: i32, %s: i64) {
  // expected-error@+1 {{'nv_tileas.make_global_view' op has 1 extents for a view of rank 2}}
  %v = nv_tileas.make_global_view %p [%m] strides [%s] : !cuda_tile.ptr<f16>, i32, i64 -> !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]>
  func.return
}

// -----

func.func @strides(%p: !cuda_tile.ptr<f16>, %m: i32, %n: i32, %s: i64) {
  // expected-error@+1 {{'nv_tileas.make_global_view' op has 2 strides; a view of rank 2 takes 1 (the innermost is 1)}}
  %v = nv_tileas.make_global_view %p [%m, %n] strides [%s, %s] : !cuda_tile.ptr<f16>, i32, i32, i64, i64 -> !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]>
  func.return
}

// -----

func.func @static_extent(%p: !cuda_tile.ptr<f16>, %m: i32, %n: i32, %s: i64) {
  // expected-error@+1 {{'nv_tileas.make_global_view' op the view's extents must be dynamic (`?`): they are operands}}
  %v = nv_tileas.make_global_view %p [%m, %n] strides [%s] : !cuda_tile.ptr<f16>, i32, i32, i64 -> !nv_tileas.tiled_view<64x?xf16, gmem, strides = [?, 1]>
  func.return
}

// -----

func.func @inner_stride(%p: !cuda_tile.ptr<f16>, %m: i32, %n: i32, %s: i64) {
  // expected-error@+1 {{'nv_tileas.make_global_view' op the view's strides must be [?, 1]}}
  %v = nv_tileas.make_global_view %p [%m, %n] strides [%s] : !cuda_tile.ptr<f16>, i32, i32, i64 -> !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, ?]>
  func.return
}
