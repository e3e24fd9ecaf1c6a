// convert-tileas-to-llvm: strength-reduced addresses of tiled loads and stores
// (affine_addresses.py, issue 13).  A pointer tile `splat(base) + row * stride + col`
// (cuTile's view of a strided 2-D array) gives each of a thread's access groups the
// thread's first address plus the group's offset: `mul.wide.u32` of the 32-bit stride
// by the constant row step in bytes, and one `add.s64`, not a 64-bit chain per group.
// A store through another base with the same offsets reuses the products.  Offsets
// computed in 32 bits with a runtime stride may wrap before they are extended: those
// keep one address per group; 32-bit offsets with constant strides that are known to
// fit become constant byte offsets.
// RUN: tileir-opt %s -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse,dce -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: filecheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// CHECK-LABEL: .visible .entry rows(
// CHECK: mad.lo.s64 [[P:%rd[0-9]+]], [[I:%rd[0-9]+]], 4,
// CHECK: mul.wide.u32 [[O1:%rd[0-9]+]], [[S:%r[0-9]+]], 32;
// CHECK-NEXT: add.s64 [[P1:%rd[0-9]+]], [[P]], [[O1]];
// CHECK: mul.wide.u32 [[O7:%rd[0-9]+]], [[S]], 224;
// CHECK-NEXT: add.s64 [[P7:%rd[0-9]+]], [[P]], [[O7]];
// CHECK: ld.global.v4.b32 {{.*}}, [[[P]]];
// CHECK: ld.global.v4.b32 {{.*}}, [[[P1]]];
// CHECK: ld.global.v4.b32 {{.*}}, [[[P7]]];
// CHECK: mad.lo.s64 [[Q:%rd[0-9]+]], [[I]], 4,
// CHECK-NEXT: add.s64 [[Q1:%rd[0-9]+]], [[Q]], [[O1]];
// CHECK: st.global.v4.b32 [[[Q]]]
// CHECK: st.global.v4.b32 [[[Q1]]]

// CHECK-LABEL: .visible .entry narrow(
// CHECK-COUNT-8: mad.wide.s32 %rd{{[0-9]+}}, %r{{[0-9]+}}, 4,
// CHECK-NOT: mul.wide
// CHECK: mad.wide.s32 [[B:%rd[0-9]+]], %r{{[0-9]+}}, 4,
// CHECK-NEXT: add.s64 %rd{{[0-9]+}}, [[B]], 2048;
// CHECK: add.s64 [[B7:%rd[0-9]+]], [[B]], 14336;
// CHECK: st.global.v4.b32 [[[B]]]
// CHECK: st.global.v4.b32 [[[B7]]]
// A batched operand's pointers built as 1 x 64 x 64 and seen as 64 x 64 through a value
// view (a reshape that only drops the unit dimension, as a batched matmul's operand
// is): the view keeps each element's row and column, so the load is addressed from the
// first pointer as in @rows.
// CHECK-LABEL: .visible .entry unit_view(
// CHECK: ld.param.u32 [[US:%r[0-9]+]], [unit_view_param_2];
// CHECK: mul.wide.u32 [[UO1:%rd[0-9]+]], [[US]], 32;
// CHECK-NEXT: add.s64 [[UP1:%rd[0-9]+]], [[UP:%rd[0-9]+]], [[UO1]];
// CHECK: ld.global.v4.b32 {{.*}}, [[[UP]]];
// CHECK: ld.global.v4.b32 {{.*}}, [[[UP1]]];
builtin.module {
  func.func @rows(%p: !cuda_tile.ptr<f32>, %q: !cuda_tile.ptr<f32>, %stride: i32, %n: i32) attributes {nv_tileas.kernel} {
    %a = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
    %s = nv_tileas.assume %stride, #cuda_tile.div_by<4> : i32
    %s64 = cuda_tile.exti %s unsigned : i32 -> i64
    %r = cuda_tile.iota : tensor<64xi32>
    %r64 = cuda_tile.exti %r unsigned : tensor<64xi32> -> tensor<64xi64>
    %ss = nv_tileas.splat %s64 : i64 -> tensor<64xi64>
    %rs = cuda_tile.muli %r64, %ss : tensor<64xi64>
    %re = nv_tileas.expand_dims %rs {axis = 1 : i32} : tensor<64xi64> -> tensor<64x1xi64>
    %rb = nv_tileas.broadcast %re : tensor<64x1xi64> -> tensor<64x64xi64>
    %c = cuda_tile.iota : tensor<64xi32>
    %c64 = cuda_tile.exti %c unsigned : tensor<64xi32> -> tensor<64xi64>
    %ce = nv_tileas.expand_dims %c64 {axis = 0 : i32} : tensor<64xi64> -> tensor<1x64xi64>
    %cb = nv_tileas.broadcast %ce : tensor<1x64xi64> -> tensor<64x64xi64>
    %off = cuda_tile.addi %rb, %cb : tensor<64x64xi64>
    %sp = nv_tileas.splat %a : !cuda_tile.ptr<f32> -> tensor<64x64x!cuda_tile.ptr<f32>>
    %ptrs = nv_tileas.addptr %sp, %off : tensor<64x64x!cuda_tile.ptr<f32>>, tensor<64x64xi64>
    %ns = nv_tileas.splat %n : i32 -> tensor<64xi32>
    %in = cuda_tile.cmpi less_than %r, %ns, signed : tensor<64xi32> -> tensor<64xi1>
    %ie = nv_tileas.expand_dims %in {axis = 1 : i32} : tensor<64xi1> -> tensor<64x1xi1>
    %m = nv_tileas.broadcast %ie : tensor<64x1xi1> -> tensor<64x64xi1>
    %v = nv_tileas.view %ptrs : tensor<64x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<64x64xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %v[%c0, %c0] mask %m {atom = #nv_tileas<atom ldg_128b>, padding_value = 0.0 : f32} : !nv_tileas.tiled_view<64x64xf32, gmem>, tensor<64x64xi1> -> tensor<64x64xf32>
    %b = nv_tileas.assume %q, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
    %sq = nv_tileas.splat %b : !cuda_tile.ptr<f32> -> tensor<64x64x!cuda_tile.ptr<f32>>
    %qs = nv_tileas.addptr %sq, %off : tensor<64x64x!cuda_tile.ptr<f32>>, tensor<64x64xi64>
    %w = nv_tileas.view %qs : tensor<64x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<64x64xf32, gmem>
    nv_tileas.tiled_store %x, %w[%c0, %c0] mask %m {atom = #nv_tileas<atom stg_128b>} : tensor<64x64xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>, tensor<64x64xi1>
    func.return
  }
  func.func @narrow(%p: !cuda_tile.ptr<f32>, %stride: i32) attributes {nv_tileas.kernel} {
    %a = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
    %r = cuda_tile.iota : tensor<64xi32>
    %ss = nv_tileas.splat %stride : i32 -> tensor<64xi32>
    %rs = cuda_tile.muli %r, %ss : tensor<64xi32>
    %re = nv_tileas.expand_dims %rs {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %rb = nv_tileas.broadcast %re : tensor<64x1xi32> -> tensor<64x64xi32>
    %c = cuda_tile.iota : tensor<64xi32>
    %ce = nv_tileas.expand_dims %c {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
    %cb = nv_tileas.broadcast %ce : tensor<1x64xi32> -> tensor<64x64xi32>
    %off = cuda_tile.addi %rb, %cb : tensor<64x64xi32>
    %sp = nv_tileas.splat %a : !cuda_tile.ptr<f32> -> tensor<64x64x!cuda_tile.ptr<f32>>
    %ptrs = nv_tileas.addptr %sp, %off : tensor<64x64x!cuda_tile.ptr<f32>>, tensor<64x64xi32>
    %v = nv_tileas.view %ptrs : tensor<64x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<64x64xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %v[%c0, %c0] {atom = #nv_tileas<atom ldg_128b>, in_bounds = array<i1: true, true>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<64x64xf32>
    %c64 = cuda_tile.constant <i32: 64> : tensor<64xi32>
    %rk = cuda_tile.muli %r, %c64 : tensor<64xi32>
    %ke = nv_tileas.expand_dims %rk {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
    %kb = nv_tileas.broadcast %ke : tensor<64x1xi32> -> tensor<64x64xi32>
    %koff = cuda_tile.addi %kb, %cb : tensor<64x64xi32>
    %kp = nv_tileas.addptr %sp, %koff : tensor<64x64x!cuda_tile.ptr<f32>>, tensor<64x64xi32>
    %w = nv_tileas.view %kp : tensor<64x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<64x64xf32, gmem>
    nv_tileas.tiled_store %x, %w[%c0, %c0] {atom = #nv_tileas<atom stg_128b>, in_bounds = array<i1: true, true>} : tensor<64x64xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>
    func.return
  }
  func.func @unit_view(%p: !cuda_tile.ptr<f32>, %q: !cuda_tile.ptr<f32>, %stride: i32) attributes {nv_tileas.kernel} {
    %a = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
    %s = nv_tileas.assume %stride, #cuda_tile.div_by<4> : i32
    %s64 = cuda_tile.exti %s unsigned : i32 -> i64
    %r = cuda_tile.iota : tensor<64xi32>
    %r64 = cuda_tile.exti %r unsigned : tensor<64xi32> -> tensor<64xi64>
    %ss = nv_tileas.splat %s64 : i64 -> tensor<64xi64>
    %rs = cuda_tile.muli %r64, %ss : tensor<64xi64>
    %re = nv_tileas.expand_dims %rs {axis = 1 : i32} : tensor<64xi64> -> tensor<64x1xi64>
    %rb = nv_tileas.broadcast %re : tensor<64x1xi64> -> tensor<64x64xi64>
    %ce = nv_tileas.expand_dims %r64 {axis = 0 : i32} : tensor<64xi64> -> tensor<1x64xi64>
    %cb = nv_tileas.broadcast %ce : tensor<1x64xi64> -> tensor<64x64xi64>
    %off = cuda_tile.addi %rb, %cb : tensor<64x64xi64>
    %o3 = nv_tileas.view %off : tensor<64x64xi64> -> tensor<1x64x64xi64>
    %sp = nv_tileas.splat %a : !cuda_tile.ptr<f32> -> tensor<1x64x64x!cuda_tile.ptr<f32>>
    %p3 = nv_tileas.addptr %sp, %o3 : tensor<1x64x64x!cuda_tile.ptr<f32>>, tensor<1x64x64xi64>
    %ptrs = nv_tileas.view %p3 : tensor<1x64x64x!cuda_tile.ptr<f32>> -> tensor<64x64x!cuda_tile.ptr<f32>>
    %v = nv_tileas.view %ptrs : tensor<64x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<64x64xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %v[%c0, %c0] {atom = #nv_tileas<atom ldg_128b>, in_bounds = array<i1: true, true>} : !nv_tileas.tiled_view<64x64xf32, gmem> -> tensor<64x64xf32>
    %b = nv_tileas.assume %q, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>
    %sq = nv_tileas.splat %b : !cuda_tile.ptr<f32> -> tensor<64x64x!cuda_tile.ptr<f32>>
    %qs = nv_tileas.addptr %sq, %off : tensor<64x64x!cuda_tile.ptr<f32>>, tensor<64x64xi64>
    %w = nv_tileas.view %qs : tensor<64x64x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<64x64xf32, gmem>
    nv_tileas.tiled_store %x, %w[%c0, %c0] {atom = #nv_tileas<atom stg_128b>, in_bounds = array<i1: true, true>} : tensor<64x64xf32>, !nv_tileas.tiled_view<64x64xf32, gmem>
    func.return
  }
}
