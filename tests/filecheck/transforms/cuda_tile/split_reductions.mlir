// split-large-reductions (tileir/transforms/cuda_tile/split_reductions.py): a tile loaded
// only to be reduced, whose words a thread would hold exceed its registers, is loaded in
// pieces along the reduced dimension by a loop that combines them into a running
// piece-shaped tile with the reduce's body; the reduce then runs once on that tile.
// RUN: tileir-opt %s -p 'split-large-reductions{arch=sm_90a}' --split-input-file | filecheck %s
// RUN: tileir-opt %s -p 'split-large-reductions{arch=sm_90a num-warps=8}' --split-input-file | filecheck %s --check-prefix=W8

// 512x128 f32 at 4 warps: 512 words a thread (+64 > 255): 16 pieces of 32x128 (32 words
// a thread), at 16 * bx + k, from -inf; the reduce reads the loop's result.
// With 8 warps, 256 words a thread: 8 pieces of 32 words.
// CHECK-LABEL: @max_rows
// CHECK: %[[TV:.*]] = make_tensor_view
// CHECK-NEXT: %[[PV:.*]] = make_partition_view %[[TV]] : partition_view<tile=(32x128), padding_value = neg_inf, tensor_view
// CHECK-NOT: tile=(512x128)
// CHECK: %[[N:.*]] = constant <i32: 16> : tile<i32>
// CHECK-NEXT: %[[FIRST:.*]] = muli %[[BX:.*]], %[[N]] : tile<i32>
// CHECK-NEXT: %[[ID:.*]] = constant <f32: 0xFF800000> : tile<32x128xf32>
// CHECK: %[[ACC:.*]] = for %[[K:.*]] in (%{{.*}} to %{{.*}}, step %{{.*}}) : tile<i32> iter_values(%[[A:.*]] = %[[ID]]) -> (tile<32x128xf32>) {
// CHECK-NEXT: %[[AT:.*]] = addi %[[FIRST]], %[[K]] : tile<i32>
// CHECK-NEXT: %[[P:.*]], %{{.*}} = load_view_tko weak %[[PV]][%[[AT]], %[[BY:.*]]] token = %{{.*}} : {{.*}} -> tile<32x128xf32>, token
// CHECK-NEXT: %[[C:.*]] = maxf %[[P]], %[[A]] propagate_nan : tile<32x128xf32>
// CHECK-NEXT: continue %[[C]] : tile<32x128xf32>
// CHECK: reduce %[[ACC]] dim=0 identities=[0xFF800000 : f32] : tile<32x128xf32> -> tile<128xf32>
// CHECK-NOT: 512x128
// CHECK: return
// W8-LABEL: @max_rows
// W8: constant <i32: 8> : tile<i32>
// W8: for {{.*}} -> (tile<64x128xf32>)

cuda_tile.module @m {
  entry @max_rows(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>) {
    %t = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tx = make_tensor_view %x, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %px = make_partition_view %tx : partition_view<tile=(512x128), padding_value = neg_inf, tensor_view<?x?xf32, strides=[?,1]>>
    %tile, %tok = load_view_tko weak %px[%bx, %by] token = %t : partition_view<tile=(512x128), padding_value = neg_inf, tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<512x128xf32>, token
    %r = reduce %tile dim=0 identities=[0xFF800000 : f32] : tile<512x128xf32> -> tile<128xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = maxf %a, %b propagate_nan : tile<f32>
      yield %c : tile<f32>
    }
    %ty = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %py = make_partition_view %ty : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %s = store_view_tko weak %r, %py[%by] token = %t : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// An integer sum along the contiguous dimension (wrap-around addition: any order gives
// the same bits): 128x512 i32 in 16 pieces of 128x32 at 16 * by + k.
// CHECK-LABEL: @sum_columns
// CHECK: make_partition_view %{{.*}} : partition_view<tile=(128x32), tensor_view
// CHECK: %[[ID:.*]] = constant <i32: 0> : tile<128x32xi32>
// CHECK: for {{.*}} iter_values(%[[A:.*]] = %[[ID]]) -> (tile<128x32xi32>) {
// CHECK: load_view_tko weak %{{.*}}[%{{.*}}, %{{.*}}] token = %{{.*}} : {{.*}} -> tile<128x32xi32>, token
// CHECK-NEXT: addi %{{.*}}, %[[A]] : tile<128x32xi32>
// CHECK: reduce %{{.*}} dim=1 identities=[0 : i32] : tile<128x32xi32> -> tile<128xi32>

cuda_tile.module @m {
  entry @sum_columns(%x: tile<ptr<i32>>, %y: tile<ptr<i32>>, %m: tile<i32>, %n: tile<i32>) {
    %t = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tx = make_tensor_view %x, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %px = make_partition_view %tx : partition_view<tile=(128x512), tensor_view<?x?xi32, strides=[?,1]>>
    %tile, %tok = load_view_tko weak %px[%bx, %by] token = %t : partition_view<tile=(128x512), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> tile<128x512xi32>, token
    %r = reduce %tile dim=1 identities=[0 : i32] : tile<128x512xi32> -> tile<128xi32>
    (%a: tile<i32>, %b: tile<i32>) {
      %c = addi %a, %b : tile<i32>
      yield %c : tile<i32>
    }
    %ty = make_tensor_view %y, shape = [%m], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %py = make_partition_view %ty : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>
    %s = store_view_tko weak %r, %py[%bx] token = %t : tile<128xi32>, partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// A float sum is split in the order of the reduce's tree (the pieces' elements combined
// as the unsplit reduce would: row r + 256 into row r first, then r + 128, ...).  The
// 512x128 f32 tile makes 16 pieces of 32 rows (32 words a thread): nested loops of two
// trips, the outermost over bit 0 of the piece index (the tree's last combination),
// the innermost over bit 3 (its first); each loop's second trip combines its inner
// result (the upper half: the body's first argument, the element) with the first's.
// CHECK-LABEL: @float_sum
// CHECK: %[[PV:.*]] = make_partition_view %{{.*}} : partition_view<tile=(32x128), tensor_view
// CHECK: %[[FIRST:.*]] = muli %{{.*}}, %{{.*}} : tile<i32>
// CHECK: %[[L0:.*]] = for %[[H0:.*]] in ({{.*}}) : tile<i32> iter_values(%[[A0:.*]] = %{{.*}}) -> (tile<32x128xf32>) {
// CHECK: %[[L1:.*]] = for %[[H1:.*]] in ({{.*}}) : tile<i32> iter_values(%[[A1:.*]] = %{{.*}}) -> (tile<32x128xf32>) {
// CHECK: constant <i32: 2>
// CHECK-NEXT: %[[S1:.*]] = muli %[[H1]]
// CHECK-NEXT: %[[O1:.*]] = addi %[[H0]], %[[S1]]
// CHECK: for
// CHECK: constant <i32: 4>
// CHECK: for %[[H3:.*]] in ({{.*}}) : tile<i32> iter_values(%[[A3:.*]] = %{{.*}}) -> (tile<32x128xf32>) {
// CHECK-NEXT: %[[EIGHT:.*]] = constant <i32: 8>
// CHECK-NEXT: %[[S3:.*]] = muli %[[H3]], %[[EIGHT]]
// CHECK-NEXT: %[[O3:.*]] = addi %{{.*}}, %[[S3]]
// CHECK-NEXT: %[[K:.*]] = addi %[[FIRST]], %[[O3]]
// CHECK-NEXT: %[[P:.*]], %{{.*}} = load_view_tko weak %[[PV]][%[[K]], %{{.*}}] {{.*}} -> tile<32x128xf32>, token
// CHECK-NEXT: %[[IS:.*]] = cmpi equal %[[H3]], %{{.*}}, signed
// CHECK-NEXT: %{{.*}} = if %[[IS]] -> (tile<32x128xf32>) {
// CHECK-NEXT: yield %[[P]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[C:.*]] = addf %[[P]], %[[A3]] {{ *}}: tile<32x128xf32>
// CHECK-NEXT: yield %[[C]]
// CHECK: reduce %[[L0]] dim=0 identities=[0.000000e+00 : f32] : tile<32x128xf32> -> tile<128xf32>

cuda_tile.module @m {
  entry @float_sum(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %tx = make_tensor_view %x, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %px = make_partition_view %tx : partition_view<tile=(512x128), tensor_view<?x?xf32, strides=[?,1]>>
    %tile, %tok = load_view_tko weak %px[%bx, %c0] token = %t : partition_view<tile=(512x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<512x128xf32>, token
    %r = reduce %tile dim=0 identities=[0.000000e+00 : f32] : tile<512x128xf32> -> tile<128xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = addf %a, %b rounding<nearest_even> : tile<f32>
      yield %c : tile<f32>
    }
    %ty = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %py = make_partition_view %ty : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %s = store_view_tko weak %r, %py[%c0] token = %t : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// A body that is not elementwise ops of its arguments alone (a constant in it: cuTile's
// `lambda a, b: (a + b) % modulo`) is left whole.
// CHECK-LABEL: @captured
// CHECK-NOT: for
// CHECK: load_view_tko weak {{.*}} -> tile<512x128xi32>, token
// CHECK-NEXT: reduce %{{.*}} dim=0 identities=[0 : i32] : tile<512x128xi32> -> tile<128xi32>

cuda_tile.module @m {
  entry @captured(%x: tile<ptr<i32>>, %y: tile<ptr<i32>>, %m: tile<i32>, %n: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %tx = make_tensor_view %x, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xi32, strides=[?,1]>
    %px = make_partition_view %tx : partition_view<tile=(512x128), tensor_view<?x?xi32, strides=[?,1]>>
    %tile, %tok = load_view_tko weak %px[%c0, %c0] token = %t : partition_view<tile=(512x128), tensor_view<?x?xi32, strides=[?,1]>>, tile<i32> -> tile<512x128xi32>, token
    %r = reduce %tile dim=0 identities=[0 : i32] : tile<512x128xi32> -> tile<128xi32>
    (%a: tile<i32>, %b: tile<i32>) {
      %seven = constant <i32: 7> : tile<i32>
      %c = addi %a, %b : tile<i32>
      %d = remi %c, %seven signed : tile<i32>
      yield %d : tile<i32>
    }
    %ty = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %py = make_partition_view %ty : partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>
    %s = store_view_tko weak %r, %py[%c0] token = %t : tile<128xi32>, partition_view<tile=(128), tensor_view<?xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}

// -----

// Kept whole: a tile that fits (128x128 f32: 128 words a thread, +64 <= 255), a tile
// with another use than the reduce, a load whose token orders a later store, and a
// reduced dimension too short to cut fine enough (4x16384 f32: pieces of 128 words a
// thread, two of them live, +64 > 255).
// CHECK-LABEL: @kept
// CHECK-NOT: for
// CHECK: -> tile<128x128xf32>, token
// CHECK: -> tile<512x128xf32>, token
// CHECK: -> tile<512x128xf32>, token
// CHECK: -> tile<4x16384xf32>, token
// CHECK: return

cuda_tile.module @m {
  entry @kept(%x: tile<ptr<f32>>, %y: tile<ptr<f32>>, %m: tile<i32>, %n: tile<i32>) {
    %t = make_token : token
    %c0 = constant <i32: 0> : tile<i32>
    %tx = make_tensor_view %x, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ps = make_partition_view %tx : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>
    %small, %t0 = load_view_tko weak %ps[%c0, %c0] token = %t : partition_view<tile=(128x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<128x128xf32>, token
    %r0 = reduce %small dim=0 identities=[0xFF800000 : f32] : tile<128x128xf32> -> tile<128xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = maxf %a, %b : tile<f32>
      yield %c : tile<f32>
    }
    %px = make_partition_view %tx : partition_view<tile=(512x128), tensor_view<?x?xf32, strides=[?,1]>>
    %tile, %t1 = load_view_tko weak %px[%c0, %c0] token = %t : partition_view<tile=(512x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<512x128xf32>, token
    %r1 = reduce %tile dim=0 identities=[0xFF800000 : f32] : tile<512x128xf32> -> tile<128xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = maxf %a, %b : tile<f32>
      yield %c : tile<f32>
    }
    %s1 = store_view_tko weak %tile, %px[%c0, %c0] token = %t : tile<512x128xf32>, partition_view<tile=(512x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    %tile2, %t2 = load_view_tko weak %px[%c0, %c0] token = %t : partition_view<tile=(512x128), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<512x128xf32>, token
    %r2 = reduce %tile2 dim=0 identities=[0xFF800000 : f32] : tile<512x128xf32> -> tile<128xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = maxf %a, %b : tile<f32>
      yield %c : tile<f32>
    }
    %ty = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %py = make_partition_view %ty : partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>
    %s2 = store_view_tko weak %r2, %py[%c0] token = %t2 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %s0 = store_view_tko weak %r0, %py[%c0] token = %t : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %s3 = store_view_tko weak %r1, %py[%c0] token = %s1 : tile<128xf32>, partition_view<tile=(128), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %pw = make_partition_view %tx : partition_view<tile=(4x16384), tensor_view<?x?xf32, strides=[?,1]>>
    %wide, %t3 = load_view_tko weak %pw[%c0, %c0] token = %t : partition_view<tile=(4x16384), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> tile<4x16384xf32>, token
    %r3 = reduce %wide dim=0 identities=[0xFF800000 : f32] : tile<4x16384xf32> -> tile<16384xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      %c = maxf %a, %b : tile<f32>
      yield %c : tile<f32>
    }
    %tw = make_tensor_view %y, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pyw = make_partition_view %tw : partition_view<tile=(16384), tensor_view<?xf32, strides=[1]>>
    %s4 = store_view_tko weak %r3, %pyw[%c0] token = %t : tile<16384xf32>, partition_view<tile=(16384), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    return
  }
}
