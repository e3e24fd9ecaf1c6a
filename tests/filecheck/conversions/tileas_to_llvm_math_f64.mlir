// convert-tileas-to-llvm: cuda_tile's math functions on f64 become tileir's own
// straight-line f64 routines (tileir/conversions/tileas_to_llvm/
// {math,trig}_functions_f64.py): FMA arithmetic throughout, never computed in f32
// (no fptrunc/fpext) and no hardware approximation.  Accuracy (at most 0.58 ulp
// measured) is checked in tests/pytest/test_math_functions_f64.py.
// RUN: tileir-as %s --gpu-name sm_80 --emit=llvm -o %t.ll
// RUN: filecheck %s --input-file=%t.ll
// RUN: filecheck %s --check-prefix=F64ONLY --input-file=%t.ll

// F64ONLY-NOT: llvm.fptrunc
// F64ONLY-NOT: llvm.fpext
// F64ONLY-NOT: approx

// cosh (cuTile's ct.cosh on f64, as in its test suite): e^|x|/2 from an exact
// Cody-Waite reduction by ln 2 and a Taylor polynomial, scaled in two exact steps,
// plus 1/(4 e^|x|/2) corrected by its FMA residual.
// CHECK-LABEL: llvm.func @cosh_f64
// CHECK: llvm.call_intrinsic "llvm.rint.f64"
// CHECK: llvm.call_intrinsic "llvm.fma.f64"
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f64
// CHECK-NOT: llvm.call_intrinsic "llvm.copysign.f64"
// CHECK: llvm.return

// sin: Payne-Hanek reduction in 64-bit integers (a window of 2/pi chosen by a tree of
// selects, products low and high), the remainder converted to an f64 pair.
// CHECK-LABEL: llvm.func @sin_f64
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i64
// CHECK: llvm.call_intrinsic "llvm.nvvm.mulhi.ull"
// CHECK: llvm.sitofp %{{.*}} : i64 to f64
// CHECK: llvm.call_intrinsic "llvm.fma.f64"
// CHECK: llvm.return

// log: s = (m - 1)/(m + 1) as a pair, 2 atanh s with the leading levels in pairs.
// CHECK-LABEL: llvm.func @log_f64
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f64
// CHECK: llvm.call_intrinsic "llvm.fma.f64"
// CHECK: llvm.return

// remf: exact long division, 43 steps of 49 quotient bits (nearest quotient, one FMA).
// CHECK-LABEL: llvm.func @remf_f64
// CHECK-COUNT-43: llvm.call_intrinsic "llvm.rint.f64"
// CHECK-NOT: llvm.call_intrinsic "llvm.rint.f64"
// CHECK: llvm.return

cuda_tile.module @math {
  entry @cosh_f64(%p0: tile<ptr<f64>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf64, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
    %r = cosh %x0 : tile<128xf64>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf64>, partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @sin_f64(%p0: tile<ptr<f64>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf64, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
    %r = sin %x0 : tile<128xf64>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf64>, partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @log_f64(%p0: tile<ptr<f64>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf64, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
    %r = log %x0 : tile<128xf64>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf64>, partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @remf_f64(%p0: tile<ptr<f64>>, %p1: tile<ptr<f64>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf64, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
    %tv1 = make_tensor_view %p1, shape = [128], strides = [1] : tensor_view<128xf64, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> tile<128xf64>, token
    %r = remf %x0, %x1 : tile<128xf64>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf64>, partition_view<tile=(128), tensor_view<128xf64, strides=[1]>>, tile<i32> -> token
    return
  }
}
