// tileas-select-dot-atoms: every nv_tileaa.dot leaves the tileas stage as an
// nv_tileas.dot whose atom names the engine and the instruction, chosen once for the
// target (transforms/tileas/dot_plan.py); convert-tileas-to-llvm follows the atom.
// RUN: tileir-as %s --gpu-name sm_80 --emit=tileas --print-local-scope | filecheck %s --check-prefix=SM80
// RUN: tileir-as %s --gpu-name sm_90a --emit=tileas --print-local-scope | filecheck %s --check-prefix=SM90
// RUN: tileir-as %s --gpu-name sm_100a --emit=tileas --print-local-scope | filecheck %s --check-prefix=SM100
// RUN: tileir-as %s --gpu-name sm_80 -o %t80.ptx && %ptxas -arch=sm_80 %t80.ptx -o %t80.cubin
// RUN: tileir-as %s --gpu-name sm_90a -o %t90.ptx && %ptxas -arch=sm_90a %t90.ptx -o %t90.cubin
// RUN: tileir-as %s --gpu-name sm_100a -o %t100.ptx && %ptxas -arch=sm_100a %t100.ptx -o %t100.cubin
// The pass on its own, after the layouts (its default target is sm_90a):
// RUN: tileir-opt %s -p 'convert-cuda-tile-to-tileaa,tileaa-canonicalize,convert-tileaa-to-tileas,tileas-assign-layouts,tileas-select-dot-atoms' --print-local-scope | filecheck %s --check-prefix=SM90
// A corpus GEMM (cuTile's 64x32x32 f16 tile; on sm_90a its 4 warps are one warpgroup: N = 32):
// RUN: tileir-as %corpus/gemm_f16.tileirbc --gpu-name sm_80 --emit=tileas --print-local-scope | filecheck %s --check-prefix=CORPUS80
// RUN: tileir-as %corpus/gemm_f16.tileirbc --gpu-name sm_90a --emit=tileas --print-local-scope | filecheck %s --check-prefix=CORPUS90
// RUN: tileir-as %corpus/gemm_f16.tileirbc --gpu-name sm_100a --emit=tileas --print-local-scope | filecheck %s --check-prefix=CORPUS100

// No nv_tileaa.dot is left, on any target.
// SM80-NOT: nv_tileaa.dot
// SM90-NOT: nv_tileaa.dot
// SM100-NOT: nv_tileaa.dot

// f16 into f32: mma.sync m16n8k16 on sm_80; on sm_90a the 4x1 warp grid is one whole
// warpgroup along M, so wgmma with the warpgroup's 64 columns; on sm_100a tcgen05 (M = 64).
// SM80-LABEL: func.func @gemm_f16
// SM80: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_f16_f16_f32>} : {{.*}}, tensor<64x64xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>> -> tensor<64x64xf32, #nv_tileas.mma<{warpsPerCTA = [4, 1]}>>
// SM90-LABEL: func.func @gemm_f16
// SM90: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom wgmma_m64n64k16_f16_f16_f32>}
// SM100-LABEL: func.func @gemm_f16
// SM100: nv_tileas.dot {{.*}}atom = #nv_tileas<atom tcgen05_mma_f16_f16_f32>}

// i8 (signed x unsigned) into i32: the atom spells the signedness.
// SM80-LABEL: func.func @gemm_s8_u8
// SM80: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_s8_u8_s32>}
// SM90-LABEL: func.func @gemm_s8_u8
// SM90: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom wgmma_m64n64k32_s8_u8_s32>}
// SM100-LABEL: func.func @gemm_s8_u8
// SM100: nv_tileas.dot {{.*}}atom = #nv_tileas<atom tcgen05_mma_s8_u8_s32>}

// A 2x2x2 i8 dot has no tensor-core shape: the CUDA cores, signedness in the atom.
// SM80-LABEL: func.func @small_u8_s8
// SM80: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom fma_u8_s8_s32>}
// SM90-LABEL: func.func @small_u8_s8
// SM90: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom fma_u8_s8_s32>}
// SM100-LABEL: func.func @small_u8_s8
// SM100: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom fma_u8_s8_s32>}

// 8-bit floats: no 8-bit float mma.sync before sm_89, so sm_80 runs f16 mma.sync on
// the operands widened exactly (the atom keeps the f8 operand types).
// SM80-LABEL: func.func @gemm_e4m3
// SM80: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_e4m3_e4m3_f32_via_f16>} : tensor<64x32xf8E4M3FN
// SM90-LABEL: func.func @gemm_e4m3
// SM90: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom wgmma_m64n64k32_e4m3_e4m3_f32>}
// SM100-LABEL: func.func @gemm_e4m3
// SM100: nv_tileas.dot {{.*}}atom = #nv_tileas<atom tcgen05_mma_e4m3_e4m3_f32>}

// A 16x16x16 e5m2 dot into f16 (cuTile's fp8 mma tests): K = 16 is no 8-bit float
// instruction's (their K step is 32), so every target runs f16 mma.sync m16n8k16 on
// the operands widened exactly, as sm_80 runs every 8-bit float dot; not FMAs.
// SM80-LABEL: func.func @mma_e5m2_k16
// SM80: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_e5m2_e5m2_f16_via_f16>} : tensor<16x16xf8E5M2
// SM90-LABEL: func.func @mma_e5m2_k16
// SM90: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_e5m2_e5m2_f16_via_f16>} : tensor<16x16xf8E5M2
// SM100-LABEL: func.func @mma_e5m2_k16
// SM100: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_e5m2_e5m2_f16_via_f16>} : tensor<16x16xf8E5M2

// f32 operands: the CUDA cores on every target.
// SM80-LABEL: func.func @gemm_f32_fma
// SM80: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom fma>}
// SM90-LABEL: func.func @gemm_f32_fma
// SM90: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom fma>}
// SM100-LABEL: func.func @gemm_f32_fma
// SM100: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom fma>}

// A batched (rank-3) dot keeps mma.sync on sm_90a too (wgmma takes rank 2 only).
// SM80-LABEL: func.func @batched_f16
// SM80: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_f16_f16_f32>} : tensor<2x32x16xf16
// SM90-LABEL: func.func @batched_f16
// SM90: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_f16_f16_f32>} : tensor<2x32x16xf16
// SM100-LABEL: func.func @batched_f16
// SM100: nv_tileas.dot {{.*}} {atom = #nv_tileas<atom mma_f16_f16_f32>} : tensor<2x32x16xf16

// CORPUS80-NOT: nv_tileaa.dot
// CORPUS80: nv_tileas.dot {{.*}}atom = #nv_tileas<atom mma_f16_f16_f32>}
// CORPUS90-NOT: nv_tileaa.dot
// CORPUS90: nv_tileas.dot {{.*}}atom = #nv_tileas<atom wgmma_m64n32k16_f16_f16_f32>}
// CORPUS100-NOT: nv_tileaa.dot
// CORPUS100: nv_tileas.dot {{.*}}atom = #nv_tileas<atom tcgen05_mma_f16_f16_f32>}

cuda_tile.module @dots {
  entry @gemm_f16(%a0: tile<ptr<f16>>, %b0: tile<ptr<f16>>, %c0: tile<ptr<f32>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<f16>>
    %av = make_tensor_view %a, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf16, strides=[32,1]>
    %ap = make_partition_view %av : partition_view<tile=(64x32), tensor_view<64x32xf16, strides=[32,1]>>
    %b = assume div_by<16>, %b0 : tile<ptr<f16>>
    %bv = make_tensor_view %b, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xf16, strides=[64,1]>
    %bp = make_partition_view %bv : partition_view<tile=(32x64), tensor_view<32x64xf16, strides=[64,1]>>
    %c = assume div_by<16>, %c0 : tile<ptr<f32>>
    %cv = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %cp = make_partition_view %cv : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero] : partition_view<tile=(64x32), tensor_view<64x32xf16, strides=[32,1]>>, tile<i32> -> tile<64x32xf16>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero] : partition_view<tile=(32x64), tensor_view<32x64xf16, strides=[64,1]>>, tile<i32> -> tile<32x64xf16>, token
    %z, %t2 = load_view_tko weak %cp[%zero, %zero] : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> tile<64x64xf32>, token
    %r = mmaf %x, %y, %z : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
    %t3 = store_view_tko weak %r, %cp[%zero, %zero] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
  entry @gemm_s8_u8(%a0: tile<ptr<i8>>, %b0: tile<ptr<i8>>, %c0: tile<ptr<i32>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<i8>>
    %av = make_tensor_view %a, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xi8, strides=[32,1]>
    %ap = make_partition_view %av : partition_view<tile=(64x32), tensor_view<64x32xi8, strides=[32,1]>>
    %b = assume div_by<16>, %b0 : tile<ptr<i8>>
    %bv = make_tensor_view %b, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xi8, strides=[64,1]>
    %bp = make_partition_view %bv : partition_view<tile=(32x64), tensor_view<32x64xi8, strides=[64,1]>>
    %c = assume div_by<16>, %c0 : tile<ptr<i32>>
    %cv = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xi32, strides=[64,1]>
    %cp = make_partition_view %cv : partition_view<tile=(64x64), tensor_view<64x64xi32, strides=[64,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero] : partition_view<tile=(64x32), tensor_view<64x32xi8, strides=[32,1]>>, tile<i32> -> tile<64x32xi8>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero] : partition_view<tile=(32x64), tensor_view<32x64xi8, strides=[64,1]>>, tile<i32> -> tile<32x64xi8>, token
    %z, %t2 = load_view_tko weak %cp[%zero, %zero] : partition_view<tile=(64x64), tensor_view<64x64xi32, strides=[64,1]>>, tile<i32> -> tile<64x64xi32>, token
    %r = mmai %x, %y, %z signed unsigned : tile<64x32xi8>, tile<32x64xi8>, tile<64x64xi32>
    %t3 = store_view_tko weak %r, %cp[%zero, %zero] : tile<64x64xi32>, partition_view<tile=(64x64), tensor_view<64x64xi32, strides=[64,1]>>, tile<i32> -> token
    return
  }
  entry @small_u8_s8(%a0: tile<ptr<i8>>, %b0: tile<ptr<i8>>, %c0: tile<ptr<i32>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<i8>>
    %av = make_tensor_view %a, shape = [2, 2], strides = [2, 1] : tensor_view<2x2xi8, strides=[2,1]>
    %ap = make_partition_view %av : partition_view<tile=(2x2), tensor_view<2x2xi8, strides=[2,1]>>
    %b = assume div_by<16>, %b0 : tile<ptr<i8>>
    %bv = make_tensor_view %b, shape = [2, 2], strides = [2, 1] : tensor_view<2x2xi8, strides=[2,1]>
    %bp = make_partition_view %bv : partition_view<tile=(2x2), tensor_view<2x2xi8, strides=[2,1]>>
    %c = assume div_by<16>, %c0 : tile<ptr<i32>>
    %cv = make_tensor_view %c, shape = [2, 2], strides = [2, 1] : tensor_view<2x2xi32, strides=[2,1]>
    %cp = make_partition_view %cv : partition_view<tile=(2x2), tensor_view<2x2xi32, strides=[2,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero] : partition_view<tile=(2x2), tensor_view<2x2xi8, strides=[2,1]>>, tile<i32> -> tile<2x2xi8>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero] : partition_view<tile=(2x2), tensor_view<2x2xi8, strides=[2,1]>>, tile<i32> -> tile<2x2xi8>, token
    %z, %t2 = load_view_tko weak %cp[%zero, %zero] : partition_view<tile=(2x2), tensor_view<2x2xi32, strides=[2,1]>>, tile<i32> -> tile<2x2xi32>, token
    %r = mmai %x, %y, %z unsigned signed : tile<2x2xi8>, tile<2x2xi8>, tile<2x2xi32>
    %t3 = store_view_tko weak %r, %cp[%zero, %zero] : tile<2x2xi32>, partition_view<tile=(2x2), tensor_view<2x2xi32, strides=[2,1]>>, tile<i32> -> token
    return
  }
  entry @gemm_e4m3(%a0: tile<ptr<f8E4M3FN>>, %b0: tile<ptr<f8E4M3FN>>, %c0: tile<ptr<f32>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<f8E4M3FN>>
    %av = make_tensor_view %a, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf8E4M3FN, strides=[32,1]>
    %ap = make_partition_view %av : partition_view<tile=(64x32), tensor_view<64x32xf8E4M3FN, strides=[32,1]>>
    %b = assume div_by<16>, %b0 : tile<ptr<f8E4M3FN>>
    %bv = make_tensor_view %b, shape = [32, 64], strides = [64, 1] : tensor_view<32x64xf8E4M3FN, strides=[64,1]>
    %bp = make_partition_view %bv : partition_view<tile=(32x64), tensor_view<32x64xf8E4M3FN, strides=[64,1]>>
    %c = assume div_by<16>, %c0 : tile<ptr<f32>>
    %cv = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %cp = make_partition_view %cv : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero] : partition_view<tile=(64x32), tensor_view<64x32xf8E4M3FN, strides=[32,1]>>, tile<i32> -> tile<64x32xf8E4M3FN>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero] : partition_view<tile=(32x64), tensor_view<32x64xf8E4M3FN, strides=[64,1]>>, tile<i32> -> tile<32x64xf8E4M3FN>, token
    %z, %t2 = load_view_tko weak %cp[%zero, %zero] : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> tile<64x64xf32>, token
    %r = mmaf %x, %y, %z : tile<64x32xf8E4M3FN>, tile<32x64xf8E4M3FN>, tile<64x64xf32>
    %t3 = store_view_tko weak %r, %cp[%zero, %zero] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
  entry @mma_e5m2_k16(%a0: tile<ptr<f8E5M2>>, %b0: tile<ptr<f8E5M2>>, %c0: tile<ptr<f16>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<f8E5M2>>
    %av = make_tensor_view %a, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf8E5M2, strides=[16,1]>
    %ap = make_partition_view %av : partition_view<tile=(16x16), tensor_view<16x16xf8E5M2, strides=[16,1]>>
    %b = assume div_by<16>, %b0 : tile<ptr<f8E5M2>>
    %bv = make_tensor_view %b, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf8E5M2, strides=[16,1]>
    %bp = make_partition_view %bv : partition_view<tile=(16x16), tensor_view<16x16xf8E5M2, strides=[16,1]>>
    %c = assume div_by<16>, %c0 : tile<ptr<f16>>
    %cv = make_tensor_view %c, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf16, strides=[16,1]>
    %cp = make_partition_view %cv : partition_view<tile=(16x16), tensor_view<16x16xf16, strides=[16,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero] : partition_view<tile=(16x16), tensor_view<16x16xf8E5M2, strides=[16,1]>>, tile<i32> -> tile<16x16xf8E5M2>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero] : partition_view<tile=(16x16), tensor_view<16x16xf8E5M2, strides=[16,1]>>, tile<i32> -> tile<16x16xf8E5M2>, token
    %z, %t2 = load_view_tko weak %cp[%zero, %zero] : partition_view<tile=(16x16), tensor_view<16x16xf16, strides=[16,1]>>, tile<i32> -> tile<16x16xf16>, token
    %r = mmaf %x, %y, %z : tile<16x16xf8E5M2>, tile<16x16xf8E5M2>, tile<16x16xf16>
    %t3 = store_view_tko weak %r, %cp[%zero, %zero] : tile<16x16xf16>, partition_view<tile=(16x16), tensor_view<16x16xf16, strides=[16,1]>>, tile<i32> -> token
    return
  }
  entry @gemm_f32_fma(%a0: tile<ptr<f32>>, %b0: tile<ptr<f32>>, %c0: tile<ptr<f32>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<f32>>
    %av = make_tensor_view %a, shape = [16, 8], strides = [8, 1] : tensor_view<16x8xf32, strides=[8,1]>
    %ap = make_partition_view %av : partition_view<tile=(16x8), tensor_view<16x8xf32, strides=[8,1]>>
    %b = assume div_by<16>, %b0 : tile<ptr<f32>>
    %bv = make_tensor_view %b, shape = [8, 16], strides = [16, 1] : tensor_view<8x16xf32, strides=[16,1]>
    %bp = make_partition_view %bv : partition_view<tile=(8x16), tensor_view<8x16xf32, strides=[16,1]>>
    %c = assume div_by<16>, %c0 : tile<ptr<f32>>
    %cv = make_tensor_view %c, shape = [16, 16], strides = [16, 1] : tensor_view<16x16xf32, strides=[16,1]>
    %cp = make_partition_view %cv : partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero] : partition_view<tile=(16x8), tensor_view<16x8xf32, strides=[8,1]>>, tile<i32> -> tile<16x8xf32>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero] : partition_view<tile=(8x16), tensor_view<8x16xf32, strides=[16,1]>>, tile<i32> -> tile<8x16xf32>, token
    %z, %t2 = load_view_tko weak %cp[%zero, %zero] : partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> tile<16x16xf32>, token
    %r = mmaf %x, %y, %z : tile<16x8xf32>, tile<8x16xf32>, tile<16x16xf32>
    %t3 = store_view_tko weak %r, %cp[%zero, %zero] : tile<16x16xf32>, partition_view<tile=(16x16), tensor_view<16x16xf32, strides=[16,1]>>, tile<i32> -> token
    return
  }
  entry @batched_f16(%a0: tile<ptr<f16>>, %b0: tile<ptr<f16>>, %c0: tile<ptr<f32>>) {
    %a = assume div_by<16>, %a0 : tile<ptr<f16>>
    %av = make_tensor_view %a, shape = [2, 32, 16], strides = [512, 16, 1] : tensor_view<2x32x16xf16, strides=[512,16,1]>
    %ap = make_partition_view %av : partition_view<tile=(2x32x16), tensor_view<2x32x16xf16, strides=[512,16,1]>>
    %b = assume div_by<16>, %b0 : tile<ptr<f16>>
    %bv = make_tensor_view %b, shape = [2, 16, 32], strides = [512, 32, 1] : tensor_view<2x16x32xf16, strides=[512,32,1]>
    %bp = make_partition_view %bv : partition_view<tile=(2x16x32), tensor_view<2x16x32xf16, strides=[512,32,1]>>
    %c = assume div_by<16>, %c0 : tile<ptr<f32>>
    %cv = make_tensor_view %c, shape = [2, 32, 32], strides = [1024, 32, 1] : tensor_view<2x32x32xf32, strides=[1024,32,1]>
    %cp = make_partition_view %cv : partition_view<tile=(2x32x32), tensor_view<2x32x32xf32, strides=[1024,32,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %x, %t0 = load_view_tko weak %ap[%zero, %zero, %zero] : partition_view<tile=(2x32x16), tensor_view<2x32x16xf16, strides=[512,16,1]>>, tile<i32> -> tile<2x32x16xf16>, token
    %y, %t1 = load_view_tko weak %bp[%zero, %zero, %zero] : partition_view<tile=(2x16x32), tensor_view<2x16x32xf16, strides=[512,32,1]>>, tile<i32> -> tile<2x16x32xf16>, token
    %z, %t2 = load_view_tko weak %cp[%zero, %zero, %zero] : partition_view<tile=(2x32x32), tensor_view<2x32x32xf32, strides=[1024,32,1]>>, tile<i32> -> tile<2x32x32xf32>, token
    %r = mmaf %x, %y, %z : tile<2x32x16xf16>, tile<2x16x32xf16>, tile<2x32x32xf32>
    %t3 = store_view_tko weak %r, %cp[%zero, %zero, %zero] : tile<2x32x32xf32>, partition_view<tile=(2x32x32), tensor_view<2x32x32xf32, strides=[1024,32,1]>>, tile<i32> -> token
    return
  }
}
