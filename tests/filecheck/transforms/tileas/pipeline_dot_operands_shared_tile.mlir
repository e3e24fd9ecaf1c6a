// tileas-pipeline-dot-operands: a loaded tile that two dots read (CSE merges the two
// loads of each operand here, c += a*b twice per K step) gets no ring laid out for one
// dot's operand; its raw tile rides a ring that its wait reads back into registers
// (nv_tileas.read_from_slot), from which both dots write their operands.  It compiles,
// on every target, and the remark says so.
// RUN: tileir-as %s --gpu-name sm_90a --emit=tileas --line-width 0 | filecheck %s --check-prefix=TILEAS
// RUN: tileir-as %s --gpu-name sm_90a -o %t.90.ptx
// RUN: %ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin
// RUN: tileir-as %s --gpu-name sm_100a -o %t.100.ptx
// RUN: %ptxas -arch=sm_100a %t.100.ptx -o %t.100.cubin
// RUN: tileir-as %s --gpu-name sm_80 -o %t.80.ptx
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin

// TILEAS: nv_tileas.async.tiled_load {{.*}}nv_tileas.read_from_slot
// TILEAS: nv_tileas.async.future_wait {{.*}} {nv_tileas.read_from_slot}
// TILEAS: nv_tileas.dot {{.*}}"A: computed from the slot after the wait (the raw 64x32xf16 load rides a ring)"
// TILEAS: nv_tileas.dot {{.*}}"B: computed from the slot after the wait (the raw 32x64xf16 load rides a ring)"

cuda_tile.module @shared_tile {
  entry @twice(%a0: tile<ptr<f16>>, %b0: tile<ptr<f16>>, %c: tile<ptr<f32>>, %k_tiles: tile<i32>) {
    %a = assume div_by<16>, %a0 : tile<ptr<f16>>
    %b = assume div_by<16>, %b0 : tile<ptr<f16>>
    %av = make_tensor_view %a, shape = [64, 256], strides = [256, 1] : tensor_view<64x256xf16, strides=[256,1]>
    %bv = make_tensor_view %b, shape = [256, 64], strides = [64, 1] : tensor_view<256x64xf16, strides=[64,1]>
    %cv = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %ap = make_partition_view %av : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x256xf16, strides=[256,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(32x64), padding_value = zero, tensor_view<256x64xf16, strides=[64,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %init = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = for %k in (%zero to %k_tiles, step %one) : tile<i32> iter_values(%sum = %init) -> (tile<64x64xf32>) {
      %x, %t0 = load_view_tko weak %ap[%zero, %k] : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x256xf16, strides=[256,1]>>, tile<i32> -> tile<64x32xf16>, token
      %y, %t1 = load_view_tko weak %bp[%k, %zero] : partition_view<tile=(32x64), padding_value = zero, tensor_view<256x64xf16, strides=[64,1]>>, tile<i32> -> tile<32x64xf16>, token
      %once = mmaf %x, %y, %sum : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      %x2, %t2 = load_view_tko weak %ap[%zero, %k] : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x256xf16, strides=[256,1]>>, tile<i32> -> tile<64x32xf16>, token
      %y2, %t3 = load_view_tko weak %bp[%k, %zero] : partition_view<tile=(32x64), padding_value = zero, tensor_view<256x64xf16, strides=[64,1]>>, tile<i32> -> tile<32x64xf16>, token
      %twice = mmaf %x2, %y2, %once : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
      continue %twice : tile<64x64xf32>
    }
    %t4 = store_view_tko weak %acc, %cp[%zero, %zero] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
