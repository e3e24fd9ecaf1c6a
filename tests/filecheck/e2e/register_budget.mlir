// A kernel with an occupancy hint, a dot or a large tile carries its register budget
// as `.maxnreg`: the share of the register file (64 Ki registers per SM) that keeps
// `occupancy` CTAs resident (the entry's optimization hint for the target, else its
// `default`, else 1), in multiples of 8 and at most 255, as tileiras's cubins record
// it.  Without it ptxas chose 32 registers for some large kernels and spilled tens of
// KiB.  A kernel of small tiles (at most 32 words a thread) without a hint carries none:
// ptxas then chooses fewer registers than a 255 budget leads it to (relu_bf16_2d: 40
// against 68).  A dot of small tiles is no different, and neither is a hint whose share
// is the whole 255 registers: it caps nothing.  A dot whose accumulator would take
// more than 64 registers per thread gets more warps (up to 8).
// RUN: tileir-as %s --gpu-name sm_90 --num-warps 8 -o %t.sm90.ptx
// RUN: filecheck %s --check-prefixes=CHECK,SM90 --input-file=%t.sm90.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90.ptx -o %t.sm90.cubin
// RUN: tileir-as %s --gpu-name sm_80 --num-warps 8 -o %t.sm80.ptx
// RUN: filecheck %s --check-prefixes=CHECK,SM80 --input-file=%t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: tileir-as %s --gpu-name sm_100 -o %t.sm100.ptx
// RUN: filecheck %s --check-prefixes=CHECK,SM100 --input-file=%t.sm100.ptx

cuda_tile.module @budget {
  // 8 warps (256 threads): sm_90 asks for 2 CTAs per SM (65536 / 512 = 128
  // registers), other targets for 4 (64).  With the default 4 warps on sm_100 and
  // occupancy 4: 65536 / 512 = 128.
  // CHECK-LABEL: .visible .entry copy_hinted(
  // SM90: .reqntid 256, 1, 1
  // SM90-NEXT: .maxnreg 128
  // SM80: .reqntid 256, 1, 1
  // SM80-NEXT: .maxnreg 64
  // SM100: .reqntid 128, 1, 1
  // SM100-NEXT: .maxnreg 128
  entry @copy_hinted(%src: tile<ptr<f32>>, %dst: tile<ptr<f32>>) optimization_hints=<sm_90 = {occupancy = 2}, default = {occupancy = 4}> {
    %offsets = iota : tile<2048xi32>
    %base = reshape %src : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bases = broadcast %base : tile<1xptr<f32>> -> tile<2048xptr<f32>>
    %ptrs = offset %bases, %offsets : tile<2048xptr<f32>>, tile<2048xi32> -> tile<2048xptr<f32>>
    %x, %t = load_ptr_tko weak %ptrs : tile<2048xptr<f32>> -> tile<2048xf32>, token
    %dbase = reshape %dst : tile<ptr<f32>> -> tile<1xptr<f32>>
    %dbases = broadcast %dbase : tile<1xptr<f32>> -> tile<2048xptr<f32>>
    %dptrs = offset %dbases, %offsets : tile<2048xptr<f32>>, tile<2048xi32> -> tile<2048xptr<f32>>
    %t2 = store_ptr_tko weak %dptrs, %x : tile<2048xptr<f32>>, tile<2048xf32> -> token
    return
  }

  // No hint, no dot, 8 (4 with 8 warps) words a thread: no budget, ptxas chooses.
  // CHECK-LABEL: .visible .entry copy_small(
  // CHECK: .reqntid {{128|256}}, 1, 1
  // CHECK-NOT: .maxnreg
  // CHECK: ld.param
  entry @copy_small(%src: tile<ptr<f32>>, %dst: tile<ptr<f32>>) {
    %offsets = iota : tile<1024xi32>
    %base = reshape %src : tile<ptr<f32>> -> tile<1xptr<f32>>
    %bases = broadcast %base : tile<1xptr<f32>> -> tile<1024xptr<f32>>
    %ptrs = offset %bases, %offsets : tile<1024xptr<f32>>, tile<1024xi32> -> tile<1024xptr<f32>>
    %x, %t = load_ptr_tko weak %ptrs : tile<1024xptr<f32>> -> tile<1024xf32>, token
    %dbase = reshape %dst : tile<ptr<f32>> -> tile<1xptr<f32>>
    %dbases = broadcast %dbase : tile<1xptr<f32>> -> tile<1024xptr<f32>>
    %dptrs = offset %dbases, %offsets : tile<1024xptr<f32>>, tile<1024xi32> -> tile<1024xptr<f32>>
    %t2 = store_ptr_tko weak %dptrs, %x : tile<1024xptr<f32>>, tile<1024xf32> -> token
    return
  }

  // No hint: one CTA per SM, 255 registers for 128 or 256 threads.  The 128x128 f32
  // accumulator is 128 registers per thread with 4 warps, so sm_100 (4 warps asked)
  // runs it with 8; 8 stay 8.
  // CHECK-LABEL: .visible .entry dot_128x128(
  // CHECK: .reqntid 256, 1, 1
  // CHECK-NEXT: .maxnreg 255
  entry @dot_128x128(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>) {
    %av = make_tensor_view %a, shape = [128, 32], strides = [32, 1] : tensor_view<128x32xf16, strides=[32,1]>
    %bv = make_tensor_view %b, shape = [32, 128], strides = [128, 1] : tensor_view<32x128xf16, strides=[128,1]>
    %cv = make_tensor_view %c, shape = [128, 128], strides = [128, 1] : tensor_view<128x128xf32, strides=[128,1]>
    %ap = make_partition_view %av : partition_view<tile=(128x32), tensor_view<128x32xf16, strides=[32,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(32x128), tensor_view<32x128xf16, strides=[128,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(128x128), tensor_view<128x128xf32, strides=[128,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero] : partition_view<tile=(128x32), tensor_view<128x32xf16, strides=[32,1]>>, tile<i32> -> tile<128x32xf16>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero] : partition_view<tile=(32x128), tensor_view<32x128xf16, strides=[128,1]>>, tile<i32> -> tile<32x128xf16>, token
    %acc = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %r = mmaf %x, %y, %acc : tile<128x32xf16>, tile<32x128xf16>, tile<128x128xf32>
    %t2 = store_view_tko weak %r, %cp[%zero, %zero] : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<128x128xf32, strides=[128,1]>>, tile<i32> -> token
    return
  }

  // A 16x32 by 32x16 f32 dot (on FMAs) and 2 CTAs asked of 4 warps: the share is
  // 65536 / 256 = 256, more than 255, so the hint caps nothing, and 512 elements are
  // 4 words a thread: no budget, ptxas chooses (cuTile's small attention tests: 70
  // registers, where `.maxnreg 255` led ptxas to 244).  With 8 warps on sm_90 the
  // share is 128: the hint caps.
  // CHECK-LABEL: .visible .entry small_dot_hinted(
  // SM90: .reqntid 256, 1, 1
  // SM90-NEXT: .maxnreg 128
  // SM100: .reqntid 128, 1, 1
  // SM100-NOT: .maxnreg
  // SM100: ld.param
  entry @small_dot_hinted(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>) optimization_hints=<default = {occupancy = 2}> {
    %av = make_tensor_view %a, shape = [16, 32], strides = [32, 1] : tensor_view<16x32xf32, strides=[32,1]>
    %bv = make_tensor_view %b, shape = [32, 16], strides = [16, 1] : tensor_view<32x16xf32, strides=[16,1]>
    %cv = make_tensor_view %c, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf32, strides=[16,1]>
    %ap = make_partition_view %av : partition_view<tile=(16x32), tensor_view<16x32xf32, strides=[32,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(32x16), tensor_view<32x16xf32, strides=[16,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero] : partition_view<tile=(16x32), tensor_view<16x32xf32, strides=[32,1]>>, tile<i32> -> tile<16x32xf32>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero] : partition_view<tile=(32x16), tensor_view<32x16xf32, strides=[16,1]>>, tile<i32> -> tile<32x16xf32>, token
    %acc = constant <f32: 0.000000e+00> : tile<16x16xf32>
    %r = mmaf %x, %y, %acc : tile<16x32xf32>, tile<32x16xf32>, tile<16x16xf32>
    %t2 = store_view_tko weak %r, %cp[%zero, %zero] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }

  // A batched 2x16x16 by 2x16x256 f32 dot runs on the CUDA cores (as each of cuTile's
  // FFT dots): beside its accumulator a thread holds the operand values of the K steps
  // ptxas loads early, so above 16 accumulator words a thread the kernel gets more
  // warps, up to 16: 8192 words over 16 warps are 16 a thread, whether 4 or 8 warps
  // were asked (before: 4, and 255 registers and 1,260 bytes of spill stores for the
  // same dot in corpus kernel batched_dft_f32).
  // CHECK-LABEL: .visible .entry fma_dot_batched(
  // CHECK: .reqntid 512, 1, 1
  entry @fma_dot_batched(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>) {
    %av = make_tensor_view %a, shape = [2, 16, 16], strides = [256, 16, 1] : tensor_view<2x16x16xf32, strides=[256,16,1]>
    %bv = make_tensor_view %b, shape = [2, 16, 256], strides = [4096, 256, 1] : tensor_view<2x16x256xf32, strides=[4096,256,1]>
    %cv = make_tensor_view %c, shape = [2, 16, 256], strides = [4096, 256, 1] : tensor_view<2x16x256xf32, strides=[4096,256,1]>
    %ap = make_partition_view %av : partition_view<tile=(2x16x16), tensor_view<2x16x16xf32, strides=[256,16,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(2x16x256), tensor_view<2x16x256xf32, strides=[4096,256,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(2x16x256), tensor_view<2x16x256xf32, strides=[4096,256,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero, %zero] : partition_view<tile=(2x16x16), tensor_view<2x16x16xf32, strides=[256,16,1]>>, tile<i32> -> tile<2x16x16xf32>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero, %zero] : partition_view<tile=(2x16x256), tensor_view<2x16x256xf32, strides=[4096,256,1]>>, tile<i32> -> tile<2x16x256xf32>, token
    %acc = constant <f32: 0.000000e+00> : tile<2x16x256xf32>
    %r = mmaf %x, %y, %acc : tile<2x16x16xf32>, tile<2x16x256xf32>, tile<2x16x256xf32>
    %t2 = store_view_tko weak %r, %cp[%zero, %zero, %zero] : tile<2x16x256xf32>, partition_view<tile=(2x16x256), tensor_view<2x16x256xf32, strides=[4096,256,1]>>, tile<i32> -> token
    return
  }
}
