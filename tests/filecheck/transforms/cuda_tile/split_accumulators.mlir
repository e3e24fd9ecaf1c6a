// split-dot-accumulators (tileir/transforms/cuda_tile/split_accumulators.py): a K loop
// whose accumulator takes more registers a thread than the target gives runs once per
// half of it (along N), each half's B and output addressed through views tiled in half.
// RUN: tileir-opt %s -p 'split-dot-accumulators{arch=sm_90a}' --split-input-file | filecheck %s
// RUN: tileir-opt %s -p 'split-dot-accumulators{arch=sm_100a}' --split-input-file | filecheck %s --check-prefix=TMEM

// 256x256 f32 at 8 warps: 256 registers a thread (+64 > 255): two passes of 128.
// B and C are read and written through views of 128 columns at 2 * by and 2 * by + 1;
// the loads of A are the same in both passes; the second store waits for the first.
// CHECK-LABEL: @split
// CHECK: %[[BX:.*]], %[[BY:.*]], %{{.*}} = get_tile_block_id
// CHECK-NEXT: %[[TWO:.*]] = constant <i32: 2> : tile<i32>
// CHECK-NEXT: %[[H0:.*]] = muli %[[BY]], %[[TWO]]
// CHECK-NEXT: %[[ONE:.*]] = constant <i32: 1> : tile<i32>
// CHECK-NEXT: %[[H1:.*]] = addi %[[H0]], %[[ONE]]
// CHECK: %[[PB:.*]] = make_partition_view %{{.*}} : partition_view<tile=(64x128), padding_value = zero
// CHECK: %[[Z0:.*]] = constant <f32: 0.000000e+00> : tile<256x128xf32>
// CHECK: %[[PC:.*]] = make_partition_view %{{.*}} : partition_view<tile=(256x128), tensor_view
// CHECK: %[[R0:.*]] = for %{{.*}} iter_values(%{{.*}} = %[[Z0]]) -> (tile<256x128xf32>)
// CHECK: load_view_tko weak %{{.*}}[%[[BX]], %{{.*}}] {{.*}} -> tile<256x64xf16>
// CHECK: load_view_tko weak %[[PB]][%{{.*}}, %[[H0]]] {{.*}} -> tile<64x128xf16>
// CHECK: mmaf {{.*}} {tileir.accumulator_split = "accumulator of 256 registers a thread split into 2 passes of 128"} : tile<256x64xf16>, tile<64x128xf16>, tile<256x128xf32>
// CHECK: %[[S0:.*]] = store_view_tko weak %[[R0]], %[[PC]][%[[BX]], %[[H0]]] token = %{{.*}} : tile<256x128xf32>
// CHECK-NEXT: %[[R1:.*]] = for %{{.*}} -> (tile<256x128xf32>)
// CHECK: load_view_tko weak %[[PB]][%{{.*}}, %[[H1]]] {{.*}} -> tile<64x128xf16>
// CHECK: store_view_tko weak %[[R1]], %[[PC]][%[[BX]], %[[H1]]] token = %[[S0]] : tile<256x128xf32>
// CHECK-NOT: 256x256
// CHECK: return
// On sm_100a the accumulator is in tensor memory and the operands are plain loads: kept.
// TMEM-LABEL: @split
// TMEM-NOT: accumulator_split
// TMEM: tile<256x256xf32>

cuda_tile.module @m {
  entry @split(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<256x256xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<256x256xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<256x64xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x256xf16>, token
      %d = mmaf %la, %lb, %x : tile<256x64xf16>, tile<64x256xf16>, tile<256x256xf32>
      continue %d : tile<256x256xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<256x256xf32>, partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// With two CTAs an SM (occupancy = 2: 128 registers a thread), the halves are split
// again: four passes of 64 (each 256x64 plus 64 fits 128).
// CHECK-LABEL: @occupancy
// CHECK-COUNT-4: {tileir.accumulator_split = "accumulator of 256 registers a thread split into 4 passes of 64"} : tile<256x64xf16>, tile<64x64xf16>, tile<256x64xf32>
// CHECK-NOT: tile<256x256xf32>
// CHECK: return

cuda_tile.module @m {
  entry @occupancy(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) optimization_hints=<sm_90 = {occupancy = 2}> {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<256x256xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<256x256xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<256x64xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x256xf16>, token
      %d = mmaf %la, %lb, %x : tile<256x64xf16>, tile<64x256xf16>, tile<256x256xf32>
      continue %d : tile<256x256xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<256x256xf32>, partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// 128x256 f32: 128 registers a thread at 8 warps; it fits, nothing changes.
// CHECK-LABEL: @fits
// CHECK-NOT: accumulator_split
// CHECK: iter_values(%{{.*}}) -> (tile<128x256xf32>)

cuda_tile.module @m {
  entry @fits(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<128x256xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<128x256xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(128x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<128x64xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x256xf16>, token
      %d = mmaf %la, %lb, %x : tile<128x64xf16>, tile<64x256xf16>, tile<128x256xf32>
      continue %d : tile<128x256xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(128x256), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<128x256xf32>, partition_view<tile=(128x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// The loop carries a tile besides the accumulator: the passes would each compute it.
// CHECK-LABEL: @carries
// CHECK: {tileir.accumulator_split = "accumulator of 256 registers a thread not split: the loop also carries tile<256xf32>"}
// CHECK-NOT: tile<256x128xf32>

cuda_tile.module @m {
  entry @carries(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %ones = constant <f32: 1.000000e+00> : tile<256xf32>
    %zero = constant <f32: 0.000000e+00> : tile<256x256xf32>
    %acc, %sum = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero, %y = %ones) -> (tile<256x256xf32>, tile<256xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<256x64xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x256xf16>, token
      %y2 = addf %y, %y : tile<256xf32>
      %d = mmaf %la, %lb, %x : tile<256x64xf16>, tile<64x256xf16>, tile<256x256xf32>
      continue %d, %y2 : tile<256x256xf32>, tile<256xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<256x256xf32>, partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// A store in the loop body would run once per pass.
// CHECK-LABEL: @stores
// CHECK: {tileir.accumulator_split = "accumulator of 256 registers a thread not split: its body has side effects (cuda_tile.store_view_tko)"}
// CHECK-NOT: tile<256x128xf32>

cuda_tile.module @m {
  entry @stores(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<256x256xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<256x256xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<256x64xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x256xf16>, token
      %st = store_view_tko weak %la, %pa[%bx, %i] token = %t : tile<256x64xf16>, partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> token
      %d = mmaf %la, %lb, %x : tile<256x64xf16>, tile<64x256xf16>, tile<256x256xf32>
      continue %d : tile<256x256xf32>
    }
    %pc = make_partition_view %tc : partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %acc, %pc[%bx, %by] token = %t : tile<256x256xf32>, partition_view<tile=(256x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// After the loop the accumulator is cut with `extract`: not a use a half can serve.
// CHECK-LABEL: @extracted
// CHECK: {tileir.accumulator_split = "accumulator of 256 registers a thread not split: the accumulator feeds cuda_tile.extract"}
// CHECK-NOT: tile<256x128xf32>

cuda_tile.module @m {
  entry @extracted(%a: tile<ptr<f16>>, %b: tile<ptr<f16>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%m, %k], strides = [%k, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tb = make_tensor_view %b, shape = [%k, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf16, strides=[?,1]>
    %tc = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<256x256xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<256x256xf32>) {
      %la, %lat = load_view_tko weak %pa[%bx, %i] token = %t : partition_view<tile=(256x64), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<256x64xf16>, token
      %lb, %lbt = load_view_tko weak %pb[%i, %by] token = %t : partition_view<tile=(64x256), padding_value = zero, tensor_view<?x?xf16, strides=[?,1]>>, tile<i32> -> tile<64x256xf16>, token
      %d = mmaf %la, %lb, %x : tile<256x64xf16>, tile<64x256xf16>, tile<256x256xf32>
      continue %d : tile<256x256xf32>
    }
    %e = extract %acc[%c0, %c0] : tile<256x256xf32> -> tile<128x256xf32>
    %pc = make_partition_view %tc : partition_view<tile=(128x256), tensor_view<?x?xf32, strides=[?,1]>>
    %s = store_view_tko weak %e, %pc[%bx, %by] token = %t : tile<128x256xf32>, partition_view<tile=(128x256), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// A batched fp8 GEMM, its tiles loaded 1x256x64 and reshaped: B's view is tiled
// 1x64x128 (the reshape dropped the unit dimension, so its last dimension is halved),
// and each half of the output goes back through the reshape.  On sm_100a it stays
// whole (the accumulator is in tensor memory).
// TMEM-LABEL: @batched
// TMEM-NOT: accumulator_split
// TMEM: return
// CHECK-LABEL: @batched
// CHECK: make_partition_view %{{.*}} : partition_view<tile=(1x64x128), padding_value = zero
// CHECK: make_partition_view %{{.*}} : partition_view<tile=(1x256x128), tensor_view
// CHECK: reshape %{{.*}} : tile<1x64x128xf8E5M2> -> tile<64x128xf8E5M2>
// CHECK: {tileir.accumulator_split = "accumulator of 256 registers a thread split into 2 passes of 128"}
// CHECK: reshape %{{.*}} : tile<256x128xf32> -> tile<1x256x128xf32>
// CHECK: store_view_tko weak %{{.*}} : tile<1x256x128xf32>
// CHECK: reshape %{{.*}} : tile<1x64x128xf8E5M2> -> tile<64x128xf8E5M2>
// CHECK: {tileir.accumulator_split = "accumulator of 256 registers a thread split into 2 passes of 128"}
// CHECK: reshape %{{.*}} : tile<256x128xf32> -> tile<1x256x128xf32>
// CHECK: store_view_tko weak %{{.*}} : tile<1x256x128xf32>
// CHECK-NOT: tile<256x256xf32>
// CHECK: return

cuda_tile.module @m {
  entry @batched(%a: tile<ptr<f8E5M2>>, %b: tile<ptr<f8E5M2>>, %c: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>, %k: tile<i32>, %kt: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %ta = make_tensor_view %a, shape = [%c1, %m, %k], strides = [%m, %k, 1] : tile<i32> -> tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>
    %tb = make_tensor_view %b, shape = [%c1, %k, %n], strides = [%k, %n, 1] : tile<i32> -> tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>
    %tc = make_tensor_view %c, shape = [%c1, %m, %n], strides = [%m, %n, 1] : tile<i32> -> tensor_view<?x?x?xf32, strides=[?,?,1]>
    %pa = make_partition_view %ta : partition_view<tile=(1x256x64), padding_value = zero, tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>>
    %pb = make_partition_view %tb : partition_view<tile=(1x64x256), padding_value = zero, tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>>
    %zero = constant <f32: 0.000000e+00> : tile<256x256xf32>
    %acc = for %i in (%c0 to %kt, step %c1) : tile<i32> iter_values(%x = %zero) -> (tile<256x256xf32>) {
      %la3, %lat = load_view_tko weak %pa[%bx, %by, %i] token = %t : partition_view<tile=(1x256x64), padding_value = zero, tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>>, tile<i32> -> tile<1x256x64xf8E5M2>, token
      %la = reshape %la3 : tile<1x256x64xf8E5M2> -> tile<256x64xf8E5M2>
      %lb3, %lbt = load_view_tko weak %pb[%bx, %i, %bz] token = %t : partition_view<tile=(1x64x256), padding_value = zero, tensor_view<?x?x?xf8E5M2, strides=[?,?,1]>>, tile<i32> -> tile<1x64x256xf8E5M2>, token
      %lb = reshape %lb3 : tile<1x64x256xf8E5M2> -> tile<64x256xf8E5M2>
      %d = mmaf %la, %lb, %x : tile<256x64xf8E5M2>, tile<64x256xf8E5M2>, tile<256x256xf32>
      continue %d : tile<256x256xf32>
    }
    %r = reshape %acc : tile<256x256xf32> -> tile<1x256x256xf32>
    %pc = make_partition_view %tc : partition_view<tile=(1x256x256), tensor_view<?x?x?xf32, strides=[?,?,1]>>
    %s = store_view_tko weak %r, %pc[%bx, %by, %bz] token = %t : tile<1x256x256xf32>, partition_view<tile=(1x256x256), tensor_view<?x?x?xf32, strides=[?,?,1]>>, tile<i32> -> token
    return
  }
}
