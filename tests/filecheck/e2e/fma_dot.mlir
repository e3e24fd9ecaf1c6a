// The CUDA-core dot (`fma_dot.py`): f32 operands go through shared memory, whose rows
// are padded to a multiple of 16 bytes, and each thread reads them with 16-byte loads:
// a row of A four K steps at a time, a K row of B four accumulator columns at a time.
// In the FFT-shaped 2x16x16 by 2x16x64 batched dot below, each thread holds one row
// of the accumulator, four runs of four columns (16 elements): 256 FMAs per thread
// from 4 (A: 16 K steps of its row) + 16 x 4 (B) = 68 `ld.shared.v4.b32` and not one
// scalar load (it was 16 x (1 + 16) = 272 `ld.shared.b32`).
// RUN: tileir-as %s --gpu-name sm_80 -o %t.sm80.ptx
// RUN: filecheck %s --input-file=%t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: tileir-as %s --gpu-name sm_100 -o %t.sm100.ptx
// RUN: filecheck %s --input-file=%t.sm100.ptx

// CHECK-LABEL: .visible .entry batched_f32_dot(
// CHECK-NOT: ld.shared.b32
// CHECK-COUNT-68: ld.shared.v4.b32
// CHECK-NOT: ld.shared
// CHECK: ret;
cuda_tile.module @fma_dot {
  entry @batched_f32_dot(%a0: tile<ptr<f32>>, %b0: tile<ptr<f32>>, %c0: tile<ptr<f32>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<f32>>
    %b = assume div_by<16>, %b0 : tile<ptr<f32>>
    %c = assume div_by<16>, %c0 : tile<ptr<f32>>
    %av = make_tensor_view %a, shape = [2, 16, 16], strides = [256, 16, 1] : tensor_view<2x16x16xf32, strides=[256,16,1]>
    %bv = make_tensor_view %b, shape = [2, 16, 64], strides = [1024, 64, 1] : tensor_view<2x16x64xf32, strides=[1024,64,1]>
    %cv = make_tensor_view %c, shape = [2, 16, 64], strides = [1024, 64, 1] : tensor_view<2x16x64xf32, strides=[1024,64,1]>
    %ap = make_partition_view %av : partition_view<tile=(2x16x16), tensor_view<2x16x16xf32, strides=[256,16,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(2x16x64), tensor_view<2x16x64xf32, strides=[1024,64,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(2x16x64), tensor_view<2x16x64xf32, strides=[1024,64,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero, %zero] : partition_view<tile=(2x16x16), tensor_view<2x16x16xf32, strides=[256,16,1]>>, tile<i32> -> tile<2x16x16xf32>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero, %zero] : partition_view<tile=(2x16x64), tensor_view<2x16x64xf32, strides=[1024,64,1]>>, tile<i32> -> tile<2x16x64xf32>, token
    %acc = constant <f32: 0.000000e+00> : tile<2x16x64xf32>
    %r = mmaf %x, %y, %acc : tile<2x16x16xf32>, tile<2x16x64xf32>, tile<2x16x64xf32>
    %t2 = store_view_tko weak %r, %cp[%zero, %zero, %zero] : tile<2x16x64xf32>, partition_view<tile=(2x16x64), tensor_view<2x16x64xf32, strides=[1024,64,1]>>, tile<i32> -> token
    return
  }
}
