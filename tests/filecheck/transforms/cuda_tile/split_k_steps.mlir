// split-dot-k-steps (tileir/transforms/cuda_tile/split_k_steps.py): a K loop whose
// operand stage does not fit twice in the shared memory its rings may take runs with a
// K step of half (a 2^n-th) the width, through views tiled as narrow, so that wgmma and
// tcgen05 get rings with a slot to read and one to fill.  Blocked cases keep the step
// and say why (on the dot, for the KStepNotSplit remark).
// RUN: tileir-opt %s -p 'split-dot-k-steps{arch=sm_90a}' --split-input-file | filecheck %s
// RUN: tileir-opt %s -p 'split-dot-k-steps{arch=sm_100a}' --split-input-file | filecheck %s --check-prefix=TMEM
// RUN: tileir-opt %s -p 'split-dot-k-steps{arch=sm_80}' --split-input-file | filecheck %s --check-prefix=AMPERE

// cuTile's AllGatherMatmul: 128x128x128 tf32 read as f32, a stage of 64 + 64 KiB.  Two
// do not fit sm_90a's 223 KiB (227 less the persistent reserve): the loop runs twice
// as many steps over views tiled 128x64 and 64x128, at the same indices.
// CHECK-LABEL: @split
// CHECK: %[[PA:.*]] = make_partition_view %{{.*}} : partition_view<tile=(128x64), padding_value = zero
// CHECK-NEXT: %[[PB:.*]] = make_partition_view %{{.*}} : partition_view<tile=(64x128), padding_value = zero
// CHECK: %[[TWO:.*]] = constant <i32: 2> : tile<i32>
// CHECK-NEXT: %[[LB:.*]] = muli %{{.*}}, %[[TWO]] : tile<i32>
// CHECK-NEXT: %[[F:.*]] = constant <i32: 2> : tile<i32>
// CHECK-NEXT: %[[UB:.*]] = muli %arg6, %[[F]] : tile<i32>
// CHECK-NEXT: for %[[K:.*]] in (%[[LB]] to %[[UB]], step %{{.*}}) : tile<i32> iter_values(%{{.*}}) -> (tile<128x128xf32>)
// CHECK-NEXT: %[[A:.*]], %{{.*}} = load_view_tko weak %[[PA]][%{{.*}}, %[[K]]] {{.*}} -> tile<128x64xf32>, token
// CHECK-NEXT: %[[RA:.*]] = ftof %[[A]] : tile<128x64xf32> -> tile<128x64xtf32>
// CHECK-NEXT: %[[B:.*]], %{{.*}} = load_view_tko weak %[[PB]][%[[K]], %{{.*}}] {{.*}} -> tile<64x128xf32>, token
// CHECK-NEXT: %[[RB:.*]] = ftof %[[B]] : tile<64x128xf32> -> tile<64x128xtf32>
// CHECK-NEXT: mmaf %[[RA]], %[[RB]], %{{.*}} {tileir.k_step_split = "K step of 128 split into 2 steps of 64: a stage of 128 KiB does not fit twice in the 223 KiB its rings may take, one of 64 KiB does"} : tile<128x64xtf32>, tile<64x128xtf32>, tile<128x128xf32>
// CHECK-NOT: 128x128xf32>, token
// CHECK: return
// The same on sm_100a (tcgen05); sm_80's mma.sync reads one slot at a time: kept.
// TMEM-LABEL: @split
// TMEM: k_step_split = "K step of 128 split into 2 steps of 64
// AMPERE-LABEL: @split
// AMPERE-NOT: k_step_split
// AMPERE: mmaf {{.*}} : tile<128x128xtf32>, tile<128x128xtf32>, tile<128x128xf32>

cuda_tile.module @m {
  entry @split(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<128x128xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %ra = ftof %la : tile<128x128xf32> -> tile<128x128xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %rb = ftof %lb : tile<128x128xf32> -> tile<128x128xtf32>
      %d = mmaf %ra, %rb, %x : tile<128x128xtf32>, tile<128x128xtf32>, tile<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// A stage of 256 KiB is halved twice: four steps of 64, no view of 128 left behind.
// CHECK-LABEL: @four_steps
// CHECK-NOT: tile=(128x128), padding_value
// CHECK-NOT: tile=(128x256)
// CHECK: %[[F:.*]] = constant <i32: 4> : tile<i32>
// CHECK-NEXT: %[[LB:.*]] = muli %{{.*}}, %[[F]] : tile<i32>
// CHECK-NEXT: %[[G:.*]] = constant <i32: 4> : tile<i32>
// CHECK-NEXT: %[[UB:.*]] = muli %arg6, %[[G]] : tile<i32>
// CHECK-NEXT: for %{{.*}} in (%[[LB]] to %[[UB]], step
// CHECK: k_step_split = "K step of 256 split into 4 steps of 64: a stage of 256 KiB does not fit twice in the 223 KiB its rings may take, one of 64 KiB does"
// CHECK-SAME: tile<128x64xtf32>, tile<64x128xtf32>, tile<128x128xf32>

cuda_tile.module @m {
  entry @four_steps(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x256), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(256x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<128x128xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x256), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x256xf32>, token
      %ra = ftof %la : tile<128x256xf32> -> tile<128x256xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(256x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<256x128xf32>, token
      %rb = ftof %lb : tile<256x128xf32> -> tile<256x128xtf32>
      %d = mmaf %ra, %rb, %x : tile<128x256xtf32>, tile<256x128xtf32>, tile<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// 128x128x64 f16: a stage of 32 KiB fits many times over, nothing changes.
// CHECK-LABEL: @fits
// CHECK-NOT: k_step_split
// CHECK-NOT: muli
// CHECK: mmaf {{.*}} : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
// TMEM-LABEL: @fits
// TMEM-NOT: k_step_split
// TMEM: mmaf {{.*}} : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>

cuda_tile.module @m {
  entry @fits(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<128x128xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(64x128), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x128xf16>, token
      %d = mmaf %la, %lb, %x : tile<128x64xf16>, tile<64x128xf16>, tile<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// Four CTAs an SM (occupancy = 4): the rings may take 228 / 4 - 1 - 4 = 52 KiB, so a
// 64x64x64 tf32 stage of 32 KiB is halved.
// CHECK-LABEL: @occupancy
// CHECK: k_step_split = "K step of 64 split into 2 steps of 32: a stage of 32 KiB does not fit twice in the 52 KiB its rings may take, one of 16 KiB does"
// CHECK-SAME: tile<64x32xtf32>, tile<32x64xtf32>, tile<64x64xf32>

cuda_tile.module @m {
  entry @occupancy(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) optimization_hints=<sm_90 = {occupancy = 4}, sm_100 = {occupancy = 4}> {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<64x64xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<64x64xf32>, token
      %ra = ftof %la : tile<64x64xf32> -> tile<64x64xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(64x64), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<64x64xf32>, token
      %rb = ftof %lb : tile<64x64xf32> -> tile<64x64xtf32>
      %d = mmaf %ra, %rb, %x : tile<64x64xtf32>, tile<64x64xtf32>, tile<64x64xf32>
      continue %d : tile<64x64xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// Eight CTAs an SM: 23.5 KiB for the rings; a K step of 8 (32 bytes of tf32, one
// wgmma's K) is the narrowest, and its stage of 16 KiB still does not fit twice.
// CHECK-LABEL: @narrowest
// CHECK: k_step_split = "K step of 32 not split: a stage of 16 KiB does not fit twice in the 23.5 KiB its rings may take even at a K step of 8, and a narrower one would be under the tensor cores' K (32 bytes of a row)"
// CHECK-SAME: tile<256x32xtf32>, tile<32x256xtf32>

cuda_tile.module @m {
  entry @narrowest(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) optimization_hints=<sm_90 = {occupancy = 8}, sm_100 = {occupancy = 8}> {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(256x32), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(32x256), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<256x256xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<256x256xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(256x32), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<256x32xf32>, token
      %ra = ftof %la : tile<256x32xf32> -> tile<256x32xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(32x256), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x256xf32>, token
      %rb = ftof %lb : tile<32x256xf32> -> tile<32x256xtf32>
      %d = mmaf %ra, %rb, %x : tile<256x32xtf32>, tile<32x256xtf32>, tile<256x256xf32>
      continue %d : tile<256x256xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<256x256xf32>, partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// B's K index is 2 * %i + 1, not the induction variable: kept, and said why.
// CHECK-LABEL: @k_index
// CHECK: k_step_split = "K step of 128 not split: an operand's K index is not the loop's induction variable"
// CHECK-SAME: tile<128x128xtf32>, tile<128x128xtf32>

cuda_tile.module @m {
  entry @k_index(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<128x128xf32>) {
      %i2 = muli %i, %c2 : tile<i32>
      %u = addi %i2, %c1 : tile<i32>
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %ra = ftof %la : tile<128x128xf32> -> tile<128x128xtf32>
      %lb, %lbt = load_view_tko weak %pb[%u, %by] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %rb = ftof %lb : tile<128x128xf32> -> tile<128x128xtf32>
      %d = mmaf %ra, %rb, %x : tile<128x128xtf32>, tile<128x128xtf32>, tile<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// The induction variable also feeds other work (the body would see other values).
// CHECK-LABEL: @iv_used
// CHECK: k_step_split = "K step of 128 not split: the induction variable has other uses than the operands' K indices"

cuda_tile.module @m {
  entry @iv_used(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<128x128xf32>) {
      %u = addi %i, %c1 : tile<i32>
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %ra = ftof %la : tile<128x128xf32> -> tile<128x128xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %rb = ftof %lb : tile<128x128xf32> -> tile<128x128xtf32>
      %d = mmaf %ra, %rb, %x : tile<128x128xtf32>, tile<128x128xtf32>, tile<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// A step of 2 visits every other K block: halving it would visit other blocks.
// CHECK-LABEL: @step
// CHECK: k_step_split = "K step of 128 not split: the loop's step is not the constant 1"

cuda_tile.module @m {
  entry @step(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %acc = for %i in (%c0 to %kt, step %c2) : tile<i32> iter_values(%x = %zero) -> (tile<128x128xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %ra = ftof %la : tile<128x128xf32> -> tile<128x128xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %rb = ftof %lb : tile<128x128xf32> -> tile<128x128xtf32>
      %d = mmaf %ra, %rb, %x : tile<128x128xtf32>, tile<128x128xtf32>, tile<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// The loop also counts its iterations: twice as many would change the count.
// CHECK-LABEL: @carries
// CHECK: k_step_split = "K step of 128 not split: the loop also carries tile<i32>"

cuda_tile.module @m {
  entry @carries(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %acc:2 = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero, %j = %c0) -> (tile<128x128xf32>, tile<i32>) {
      %j1 = addi %j, %c1 : tile<i32>
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %ra = ftof %la : tile<128x128xf32> -> tile<128x128xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %rb = ftof %lb : tile<128x128xf32> -> tile<128x128xtf32>
      %d = mmaf %ra, %rb, %x : tile<128x128xtf32>, tile<128x128xtf32>, tile<128x128xf32>
      continue %d, %j1 : tile<128x128xf32>, tile<i32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc#0, %pc[%bx, %by] token = %t : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// B reaches the dot through a permute, whose K dimension is not the load's.
// CHECK-LABEL: @permuted
// CHECK: k_step_split = "K step of 128 not split: an operand is computed by cuda_tile.permute"

cuda_tile.module @m {
  entry @permuted(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x128xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<128x128xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %ra = ftof %la : tile<128x128xf32> -> tile<128x128xtf32>
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(128x128), padding_value = zero, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
      %rb = ftof %lb : tile<128x128xf32> -> tile<128x128xtf32>
      %rb2 = permute %rb [1, 0] : tile<128x128xtf32> -> tile<128x128xtf32>
      %d = mmaf %ra, %rb2, %x : tile<128x128xtf32>, tile<128x128xtf32>, tile<128x128xf32>
      continue %d : tile<128x128xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<128x128xf32>, partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}
