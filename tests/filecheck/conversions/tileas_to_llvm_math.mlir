// convert-tileas-to-llvm: cuda_tile's f32 math functions (sin, cos, tan, sinh, cosh,
// pow, atan2, remf) become tileir's accurate straight-line routines
// (tileir/conversions/tileas_to_llvm/{trig,math,remainder}_functions.py), never the
// hardware approximations: cuda_tile has no `rounding<approx>` on these ops, so no
// `sin`/`cos`/`lg2`/`ex2` approximation intrinsic may appear.  Halves are widened to
// f32 and rounded back once (f64: tileas_to_llvm_math_f64.mlir).  The accuracy is
// checked, in tests/pytest/test_math_functions.py.
// RUN: tileir-as %s --gpu-name sm_80 --emit=llvm -o %t.ll
// RUN: filecheck %s --input-file=%t.ll
// RUN: filecheck %s --check-prefix=NOAPPROX --input-file=%t.ll

// NOAPPROX-NOT: llvm.nvvm.sin.approx
// NOAPPROX-NOT: llvm.nvvm.cos.approx
// NOAPPROX-NOT: llvm.nvvm.lg2.approx
// NOAPPROX-NOT: llvm.nvvm.ex2.approx

// sin: Payne-Hanek reduction (words of 2/pi chosen by the exponent, 64-bit integer
// products), the remainder as an f32 pair, Taylor polynomials with FMA.
// CHECK-LABEL: llvm.func @sin_f32
// CHECK: llvm.mlir.constant(2734261102) : i64
// CHECK: llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i64
// CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK: llvm.sitofp %{{.*}} : i64 to f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.f2ll.rz"
// CHECK: llvm.call_intrinsic "llvm.fma.f32"
// CHECK: llvm.return

// CHECK-LABEL: llvm.func @cos_f32
// CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK: llvm.call_intrinsic "llvm.fma.f32"
// CHECK: llvm.return

// tan: the same reduction, then sin/cos as pairs divided with an FMA residual correction.
// CHECK-LABEL: llvm.func @tan_f32
// CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.approx.f"
// CHECK: llvm.return

// sinh, cosh: e^|x|/2 scaled by 2^(n-1) in two exact steps, plus or minus 1/(4 e^|x|/2).
// CHECK-LABEL: llvm.func @sinh_f32
// CHECK: llvm.call_intrinsic "llvm.rint.f32"
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.copysign.f32"
// CHECK: llvm.return
// CHECK-LABEL: llvm.func @cosh_f32
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK-NOT: llvm.call_intrinsic "llvm.copysign.f32"
// CHECK: llvm.return

// pow: log2 and 2^z in f64, rounded once to f32.
// CHECK-LABEL: llvm.func @pow_f32
// CHECK: llvm.fpext %{{.*}} : f32 to f64
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f64
// CHECK: llvm.call_intrinsic "llvm.rint.f64"
// CHECK: llvm.fptrunc %{{.*}} : f64 to f32
// CHECK: llvm.return

// atan2: one f64 division after reduction by the nearest eighth.
// CHECK-LABEL: llvm.func @atan2_f32
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f64
// CHECK-NOT: llvm.fdiv
// CHECK: llvm.fptrunc %{{.*}} : f64 to f32
// CHECK: llvm.return

// remf: exact long division in f64, ten steps of 28 quotient bits.
// CHECK-LABEL: llvm.func @remf_f32
// CHECK-COUNT-10: llvm.call_intrinsic "llvm.trunc.f64"
// CHECK-NOT: llvm.call_intrinsic "llvm.trunc.f64"
// CHECK: llvm.fptrunc %{{.*}} : f64 to f32
// CHECK: llvm.return

// Halves: computed in f32, rounded back once.
// CHECK-LABEL: llvm.func @sin_f16
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.mul %{{.*}}, %{{.*}} : i64
// CHECK: llvm.fptrunc %{{.*}} : f32 to f16
// CHECK: llvm.return

cuda_tile.module @math {
  entry @sin_f32(%p0: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %r = sin %x0 : tile<128xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @cos_f32(%p0: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %r = cos %x0 : tile<128xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @tan_f32(%p0: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %r = tan %x0 : tile<128xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @sinh_f32(%p0: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %r = sinh %x0 : tile<128xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @cosh_f32(%p0: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %r = cosh %x0 : tile<128xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @pow_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %tv1 = make_tensor_view %p1, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %r = pow %x0, %x1 : tile<128xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @atan2_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %tv1 = make_tensor_view %p1, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %r = atan2 %x0, %x1 : tile<128xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @remf_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %tv1 = make_tensor_view %p1, shape = [128], strides = [1] : tensor_view<128xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> tile<128xf32>, token
    %r = remf %x0, %x1 : tile<128xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf32>, partition_view<tile=(128), tensor_view<128xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @sin_f16(%p0: tile<ptr<f16>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [128], strides = [1] : tensor_view<128xf16, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(128), tensor_view<128xf16, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(128), tensor_view<128xf16, strides=[1]>>, tile<i32> -> tile<128xf16>, token
    %r = sin %x0 : tile<128xf16>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<128xf16>, partition_view<tile=(128), tensor_view<128xf16, strides=[1]>>, tile<i32> -> token
    return
  }
}
