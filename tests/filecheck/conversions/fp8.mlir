// 8-bit floats: convert-cuda-tile-to-tileaa rewrites mmaf_scaled into one bf16
// nv_tileaa.dot per 32-wide K group (tileir/conversions/scaled_mma.py), chained through
// the accumulator: the group's operand block and scales are extracted, converted to
// f32, multiplied by the broadcast scale and held in bf16 (exactly), so the tensor
// cores compute them.  convert-tileas-to-llvm holds 8-bit floats
// as i8 registers and converts them with integer operations (fp8.py): no fp8 `cvt`,
// the same code on every target.  Values are checked in tests/pytest/test_fp8_codegen.py.
// RUN: tileir-opt %s -p convert-cuda-tile-to-tileaa | filecheck %s --check-prefix=LIFT
// RUN: tileir-as %s --gpu-name sm_90a --emit=llvm -o %t.ll
// RUN: filecheck %s --check-prefix=LLVM --input-file=%t.ll

// LIFT-LABEL: func.func @scaled
// LIFT-NOT: mmaf_scaled
// LIFT: %[[A0:.*]] = nv_tileaa.extract %a[%{{.*}}, %{{.*}}] : tensor<16x64xf8E4M3FN> -> tensor<16x32xf8E4M3FN>
// LIFT: %[[AF0:.*]] = cuda_tile.ftof %[[A0]]  : tensor<16x32xf8E4M3FN> -> tensor<16x32xf32>
// LIFT: %[[SA0:.*]] = nv_tileaa.extract %sa[%{{.*}}, %{{.*}}] : tensor<16x2xf8E8M0FNU> -> tensor<16x1xf8E8M0FNU>
// LIFT: %[[SAF0:.*]] = cuda_tile.ftof %[[SA0]]  : tensor<16x1xf8E8M0FNU> -> tensor<16x1xf32>
// LIFT: %[[SAB0:.*]] = nv_tileaa.broadcast %[[SAF0]] : tensor<16x1xf32> -> tensor<16x32xf32>
// LIFT: %[[AM0:.*]] = cuda_tile.mulf %[[AF0]], %[[SAB0]]  : tensor<16x32xf32>
// LIFT: %[[AS0:.*]] = cuda_tile.ftof %[[AM0]]  : tensor<16x32xf32> -> tensor<16x32xbf16>
// LIFT: nv_tileaa.extract %b[%{{.*}}, %{{.*}}] : tensor<64x8xf8E4M3FN> -> tensor<32x8xf8E4M3FN>
// LIFT: nv_tileaa.extract %sb[%{{.*}}, %{{.*}}] : tensor<2x8xf8E8M0FNU> -> tensor<1x8xf8E8M0FNU>
// LIFT: nv_tileaa.broadcast %{{.*}} : tensor<1x8xf32> -> tensor<32x8xf32>
// LIFT: %[[BM0:.*]] = cuda_tile.mulf %{{.*}}, %{{.*}}  : tensor<32x8xf32>
// LIFT: %[[BS0:.*]] = cuda_tile.ftof %[[BM0]]  : tensor<32x8xf32> -> tensor<32x8xbf16>
// LIFT: %[[D0:.*]] = nv_tileaa.dot %[[AS0]], %[[BS0]], %c : tensor<16x32xbf16>, tensor<32x8xbf16>, tensor<16x8xf32>
// LIFT: nv_tileaa.extract %a[%{{.*}}, %{{.*}}] : tensor<16x64xf8E4M3FN> -> tensor<16x32xf8E4M3FN>
// LIFT: %r = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[D0]] : tensor<16x32xbf16>, tensor<32x8xbf16>, tensor<16x8xf32>
// LIFT-NOT: nv_tileaa.dot
// LIFT: nv_tileaa.store weak %{{.*}}, %r

// LLVM-LABEL: llvm.func @widen
// LLVM: %[[X:.*]] = llvm.inline_asm "{\0Ald.global.s8 $0, [$1];\0A}", "=h,l" %{{.*}} : (!llvm.ptr<1>) -> i8
// LLVM: llvm.zext %[[X]] : i8 to i32
// LLVM: llvm.mlir.constant(20 : i32) : i32
// LLVM: llvm.fmul %{{.*}}, %{{.*}} : f32
// LLVM: llvm.mlir.constant(2143289344 : i32) : i32
// LLVM: %y = llvm.bitcast %{{.*}} : i32 to f32
// LLVM-NOT: e4m3
// LLVM-LABEL: llvm.func @narrow
// LLVM: llvm.call_intrinsic "llvm.umin.i32"
// LLVM: llvm.trunc %{{.*}} : i32 to i8
// LLVM-NOT: e4m3
// LLVM-LABEL: llvm.return
cuda_tile.module @m {
  entry @scaled(%o: tile<ptr<f32>>) {
    %a = constant <f8E4M3FN: 1.5> : tile<16x64xf8E4M3FN>
    %b = constant <f8E4M3FN: -2.0> : tile<64x8xf8E4M3FN>
    %c = constant <f32: 0.0> : tile<16x8xf32>
    %sa = constant <f8E8M0FNU: 2.0> : tile<16x2xf8E8M0FNU>
    %sb = constant <f8E8M0FNU: 0.5> : tile<2x8xf8E8M0FNU>
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<16x64xf8E4M3FN>, tile<64x8xf8E4M3FN>, tile<16x8xf32>, tile<16x2xf8E8M0FNU>, tile<2x8xf8E8M0FNU>
    %p = reshape %o : tile<ptr<f32>> -> tile<1x1xptr<f32>>
    %pb = broadcast %p : tile<1x1xptr<f32>> -> tile<16x8xptr<f32>>
    %t = store_ptr_tko weak %pb, %r : tile<16x8xptr<f32>>, tile<16x8xf32> -> token
    return
  }
  entry @widen(%i: tile<ptr<f8E4M3FN>>, %o: tile<ptr<f32>>) {
    %x, %t0 = load_ptr_tko weak %i : tile<ptr<f8E4M3FN>> -> tile<f8E4M3FN>, token
    %y = ftof %x : tile<f8E4M3FN> -> tile<f32>
    %t1 = store_ptr_tko weak %o, %y : tile<ptr<f32>>, tile<f32> -> token
    return
  }
  entry @narrow(%i: tile<ptr<f32>>, %o: tile<ptr<f8E5M2>>) {
    %x, %t0 = load_ptr_tko weak %i : tile<ptr<f32>> -> tile<f32>, token
    %y = ftof %x : tile<f32> -> tile<f8E5M2>
    %t1 = store_ptr_tko weak %o, %y : tile<ptr<f8E5M2>>, tile<f8E5M2> -> token
    return
  }
}
