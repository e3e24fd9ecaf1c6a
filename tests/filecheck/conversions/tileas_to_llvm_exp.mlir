// convert-tileas-to-llvm: `exp` and `exp2` on the hardware exp2 (`ex2.approx`, SASS
// MUFU.EX2), as tileiras does, and divisions exactly as their rounding attribute says.
//   exp (rounding<full>, the default): x log2e = n + f, n = floor(x log2e) from one
//     round-down FMA onto the shifter 1.5 2^23 + 127 (n + 127 lands in the low
//     mantissa bits), clamped to [-126, 127]; f = x LOG2E_HI - n + x LOG2E_LO by two
//     FMAs; ex2.approx.ftz(f) times 2^n, the clamped word shifted left by 23.
//     Halves are widened, and the f32 result rounded back once.
//   exp rounding<approx>: the bare hardware exp2 of x log2e.
//   exp2: ex2.approx (.ftz with flush_to_zero).
//   divf: IEEE division (llvm.fdiv, PTX div.rn.f32) unless the op says approx/full.
// The accuracy is checked in tests/pytest/test_math_functions.py.
// RUN: tileir-as %s --gpu-name sm_80 --emit=llvm -o %t.ll
// RUN: filecheck %s --input-file=%t.ll
// RUN: tileir-as %s --gpu-name sm_80 --emit=ptx | filecheck %s --check-prefix=PTX

// CHECK-LABEL: llvm.func @exp_f32
// CHECK: %[[J0:.*]] = llvm.call_intrinsic "llvm.nvvm.fma.rm.f"(%[[X:.*]], %[[HI:.*]], %[[SHIFTER:.*]]) : (f32, f32, f32) -> f32
// CHECK: %[[J1:.*]] = llvm.call_intrinsic "llvm.maxnum.f32"(%[[J0]], %{{.*}})
// CHECK: %[[J:.*]] = llvm.call_intrinsic "llvm.minnum.f32"(%[[J1]], %{{.*}})
// CHECK: %[[N:.*]] = llvm.fsub %[[J]], %[[SHIFTER]] : f32
// CHECK: %[[NEGN:.*]] = llvm.fneg %[[N]] : f32
// CHECK: %[[U:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[X]], %[[HI]], %[[NEGN]])
// CHECK: %[[F:.*]] = llvm.call_intrinsic "llvm.fma.f32"(%[[X]], %{{.*}}, %[[U]])
// CHECK: %[[WORD:.*]] = llvm.bitcast %[[J]] : f32 to i32
// CHECK: %[[BITS:.*]] = llvm.shl %[[WORD]], %{{.*}} : i32
// CHECK: %[[SCALE:.*]] = llvm.bitcast %[[BITS]] : i32 to f32
// CHECK: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[F]])
// CHECK: llvm.fmul %[[E]], %[[SCALE]] : f32
// CHECK-NOT: llvm.func
// CHECK-NOT: llvm.fdiv
// PTX-LABEL: .entry exp_f32(
// PTX: fma.rm.f32
// PTX: ex2.approx.ftz.f32

// CHECK-LABEL: llvm.func @exp_approx_f32
// CHECK: %[[P:.*]] = llvm.fmul
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f"(%[[P]])
// CHECK-NOT: llvm.nvvm.fma.rm

// CHECK-LABEL: llvm.func @exp_f16
// CHECK: llvm.fpext %{{.*}} : f16 to f32
// CHECK: llvm.nvvm.fma.rm.f
// CHECK: llvm.nvvm.ex2.approx.ftz.f
// CHECK: llvm.fptrunc %{{.*}} : f32 to f16

// CHECK-LABEL: llvm.func @exp2_f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f"
// CHECK-LABEL: llvm.func @exp2_ftz_f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"

// CHECK-LABEL: llvm.func @divf_f32
// CHECK: llvm.fdiv %{{.*}}, %{{.*}} : f32
// CHECK-NOT: llvm.nvvm.div
// PTX-LABEL: .entry divf_f32(
// PTX: div.rn.f32
// CHECK-LABEL: llvm.func @divf_approx_f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.approx.f"
// CHECK-LABEL: llvm.func @divf_full_f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK-LABEL: llvm.func @tanh_approx_f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.tanh.approx.f32"

cuda_tile.module @math {
  entry @exp_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %r = exp %x0 : tile<2xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @exp_approx_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %r = exp %x0 rounding<approx> : tile<2xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @exp_f16(%p0: tile<ptr<f16>>, %p1: tile<ptr<f16>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf16, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf16, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf16, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf16, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf16, strides=[1]>>, tile<i32> -> tile<2xf16>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf16, strides=[1]>>, tile<i32> -> tile<2xf16>, token
    %r = exp %x0 : tile<2xf16>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf16>, partition_view<tile=(2), tensor_view<2xf16, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @exp2_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %r = exp2 %x0 : tile<2xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @exp2_ftz_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %r = exp2 %x0 flush_to_zero : tile<2xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @divf_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %r = divf %x0, %x1 : tile<2xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @divf_approx_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %r = divf %x0, %x1 rounding<approx> : tile<2xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @divf_full_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %r = divf %x0, %x1 rounding<full> : tile<2xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @tanh_approx_f32(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [2], strides = [1] : tensor_view<2xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>
    %x0, %t0 = load_view_tko weak %pv0[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %x1, %t1 = load_view_tko weak %pv1[%c0] : partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> tile<2xf32>, token
    %r = tanh %x0 rounding<approx> : tile<2xf32>
    %s = store_view_tko weak %r, %pv0[%c0] : tile<2xf32>, partition_view<tile=(2), tensor_view<2xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
