// convert-cuda-tile-to-tileaa: views become pointer arithmetic with bounds masks,
// tokens become nv_tileaa mem tokens (hop one), tiles become builtin carriers.
// RUN: tileir-opt %s --split-input-file -p convert-cuda-tile-to-tileaa,tileaa-canonicalize,cse | filecheck %s

// A 2-D partition view with a dynamic row count and pitch: the tile origin folds into
// the base pointer in 64-bit arithmetic, the rows get a bounds mask, and the padding
// value is the fallback.  The 64 columns (a static extent the tile divides) need no
// per-element mask, only the check that the tile index lies in the index space (issue
// 13: a tile outside it is wholly out of bounds); it folds into the row bound, which
// becomes 0 for such a tile.
// CHECK-LABEL: func.func @copy2d(%src: !cuda_tile.ptr<f32>, %dst: !cuda_tile.ptr<f32>, %rows: i32, %pitch: i32)
// CHECK-SAME: attributes {nv_tileaa.kernel}
// CHECK: %[[T0:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK: %[[BX:.*]], %[[BY:.*]], %{{.*}} = cuda_tile.get_tile_block_id : i32
// CHECK: %[[BX64:.*]] = cuda_tile.exti %[[BX]] unsigned : i32 -> i64
// CHECK: %[[ROW0:.*]] = cuda_tile.muli %[[BX64]], %{{.*}} : i64
// CHECK: %[[PITCH:.*]] = cuda_tile.exti %{{.*}} signed : i32 -> i64
// CHECK: %[[OFF0:.*]] = cuda_tile.muli %[[ROW0]], %[[PITCH]] : i64
// CHECK: %[[BY64:.*]] = cuda_tile.exti %[[BY]] unsigned : i32 -> i64
// CHECK: %[[C64:.*]] = cuda_tile.constant <i64: 64> : i64
// CHECK: %[[COL0:.*]] = cuda_tile.muli %[[BY64]], %[[C64]] : i64
// CHECK: %[[ORIGIN:.*]] = cuda_tile.addi %[[OFF0]], %[[COL0]] : i64
// CHECK: %[[BASE:.*]] = nv_tileaa.addptr %{{.*}}, %[[ORIGIN]] : !cuda_tile.ptr<f32>, i64
// CHECK: cuda_tile.iota : tensor<16xi32>
// CHECK: nv_tileaa.expand_dims %{{.*}} {axis = 1 : i32} : tensor<16xi64> -> tensor<16x1xi64>
// CHECK: cuda_tile.iota : tensor<64xi32>
// CHECK: nv_tileaa.expand_dims %{{.*}} {axis = 0 : i32} : tensor<64xi64> -> tensor<1x64xi64>
// CHECK: %[[OFFS:.*]] = cuda_tile.addi %{{.*}}, %{{.*}} : tensor<16x64xi64>
// CHECK: %[[SPLAT:.*]] = nv_tileaa.splat %[[BASE]] : !cuda_tile.ptr<f32> -> tensor<16x64x!cuda_tile.ptr<f32>>
// CHECK: %[[PTRS:.*]] = nv_tileaa.addptr %[[SPLAT]], %[[OFFS]]
// CHECK: %[[INSIDE:.*]] = cuda_tile.cmpi less_than %[[COL0]], %[[C64]], signed : i64 -> i1
// CHECK: %[[LEFT:.*]] = cuda_tile.subi %{{.*}}, %[[ROW0]] : i64
// CHECK: cuda_tile.mini %[[LEFT]], %{{.*}} signed : i64
// CHECK: %[[ZERO:.*]] = cuda_tile.constant <i64: 0> : i64
// CHECK: %[[CLAMPED:.*]] = cuda_tile.maxi %{{.*}}, %[[ZERO]] signed : i64
// CHECK: cuda_tile.select %[[INSIDE]], %[[CLAMPED]], %[[ZERO]] : i1, i64
// CHECK: %[[INB:.*]] = cuda_tile.cmpi less_than %{{.*}}, %{{.*}}, signed : tensor<16xi32> -> tensor<16xi1>
// CHECK: %[[MASK:.*]] = nv_tileaa.broadcast %{{.*}} : tensor<16x1xi1> -> tensor<16x64xi1>
// CHECK: %[[PAD:.*]] = cuda_tile.constant <f32: 0xFF800000> : tensor<16x64xf32>
// CHECK: %[[TILE:.*]], %[[TOK:.*]] = nv_tileaa.load weak %[[PTRS]], %[[MASK]], %[[PAD]] token %[[T0]]
// CHECK: nv_tileaa.store weak %{{.*}}, %[[TILE]], %[[MASK]] token %[[TOK]]
cuda_tile.module @kernels {
  entry @copy2d(%src: tile<ptr<f32>>, %dst: tile<ptr<f32>>, %rows: tile<i32>, %pitch: tile<i32>) {
    %t0 = make_token : token
    %a = assume div_by<16>, %src : tile<ptr<f32>>
    %p = assume div_by<4>, %pitch : tile<i32>
    %tv = make_tensor_view %a, shape = [%rows, 64], strides = [%p, 1] : tile<i32> -> tensor_view<?x64xf32, strides=[?,1]>
    %pv = make_partition_view %tv : partition_view<tile=(16x64), padding_value = neg_inf, tensor_view<?x64xf32, strides=[?,1]>>
    %dv = make_tensor_view %dst, shape = [%rows, 64], strides = [%p, 1] : tile<i32> -> tensor_view<?x64xf32, strides=[?,1]>
    %dp = make_partition_view %dv : partition_view<tile=(16x64), tensor_view<?x64xf32, strides=[?,1]>>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %tok = load_view_tko weak %pv[%bx, %by] token = %t0 : partition_view<tile=(16x64), padding_value = neg_inf, tensor_view<?x64xf32, strides=[?,1]>>, tile<i32> -> tile<16x64xf32>, token
    %s = store_view_tko weak %t, %dp[%bx, %by] token = %tok : tile<16x64xf32>, partition_view<tile=(16x64), tensor_view<?x64xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
}

// -----

// Static shapes the tile divides and `assume div_by` on a dynamic extent remove the
// per-element mask: what is left is one scalar check that the tile index lies in the
// index space (origin < extent per divided dimension), splat over the tile.  A
// constant index known inside a static extent needs none, and `inbounds` removes every
// check.  `dim_map` walks the tensor's dimensions in the tile's order (tile dim 0
// steps along tensor dim 1, stride 1).
// CHECK-LABEL: func.func @no_masks
// CHECK: %[[IN0:.*]] = cuda_tile.cmpi less_than %{{.*}}, %{{.*}}, signed : i64 -> i1
// CHECK: %[[IN1:.*]] = cuda_tile.cmpi less_than %{{.*}}, %{{.*}}, signed : i64 -> i1
// CHECK: %[[IN:.*]] = cuda_tile.andi %[[IN0]], %[[IN1]] : i1
// CHECK: %[[M:.*]] = nv_tileaa.splat %[[IN]] : i1 -> tensor<8x16xi1>
// CHECK-NOT: tensor<8xi1>
// CHECK-NOT: tensor<16xi1>
// CHECK: nv_tileaa.load weak %{{[0-9]+}}, %[[M]], %{{[0-9]+}} token %{{[0-9a-z_]+}} :
// CHECK: cuda_tile.andi %{{.*}}, %{{.*}} : i1
// CHECK: nv_tileaa.store weak %{{[0-9]+}}, %{{[a-z_0-9]+}}, %{{[0-9]+}} token
// CHECK: %[[D:.*]] = cuda_tile.exti %d signed : i32 -> i64
// CHECK: %[[IN2:.*]] = cuda_tile.cmpi less_than %{{.*}}, %[[D]], signed : i64 -> i1
// CHECK: %[[M2:.*]] = nv_tileaa.splat %[[IN2]] : i1 -> tensor<256xi1>
// CHECK-NOT: tensor<256xi32>
// CHECK: nv_tileaa.load weak %{{[0-9]+}}, %[[M2]], %{{[0-9]+}} token
// The inbounds load is unchecked.
// CHECK-NOT: cmpi
// CHECK: nv_tileaa.load weak %{{[0-9]+}} token %{{[0-9a-z_]+}} :
// CHECK-NOT: cmpi
// CHECK: nv_tileaa.store weak %{{[0-9]+}}, %w, %[[M2]] token
// A constant index inside a static extent: no check at all.
// CHECK-NOT: cmpi
// CHECK: nv_tileaa.load weak %{{[0-9]+}} token %{{[0-9a-z_]+}} :
// CHECK-NOT: cmpi
// CHECK: nv_tileaa.store weak %{{[0-9]+}}, %k token
cuda_tile.module @kernels {
  entry @no_masks(%src: tile<ptr<f32>>, %n: tile<i32>) {
    %t0 = make_token : token
    %tv = make_tensor_view %src, shape = [128, 64], strides = [64, 1] : tensor_view<128x64xf32, strides=[64,1]>
    %pv = make_partition_view %tv : partition_view<tile=(8x16), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %t, %tok = load_view_tko weak %pv[%bx, %by] token = %t0 : partition_view<tile=(8x16), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>, tile<i32> -> tile<8x16xf32>, token
    %st = store_view_tko weak %t, %pv[%by, %bx] token = %tok : tile<8x16xf32>, partition_view<tile=(8x16), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>, tile<i32> -> token
    %d = assume div_by<256>, %n : tile<i32>
    %tv2 = make_tensor_view %src, shape = [%d], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv2 = make_partition_view %tv2 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
    %u, %utok = load_view_tko weak %pv2[%bx] token = %t0 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
    %tv3 = make_tensor_view %src, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xf32, strides=[1]>
    %pv3 = make_partition_view %tv3 : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>
    %v, %vtok = load_view_tko weak %pv3[%bx] token = %t0 inbounds = [true] : partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
    %w = addf %u, %v : tile<256xf32>
    %wt = store_view_tko weak %w, %pv2[%bx] token = %t0 : tile<256xf32>, partition_view<tile=(256), tensor_view<?xf32, strides=[1]>>, tile<i32> -> token
    %c7 = constant <i32: 7> : tile<i32>
    %k, %ktok = load_view_tko weak %pv[%c7, %c7] token = %t0 : partition_view<tile=(8x16), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>, tile<i32> -> tile<8x16xf32>, token
    %kt = store_view_tko weak %k, %pv[%c7, %c7] token = %ktok : tile<8x16xf32>, partition_view<tile=(8x16), tensor_view<128x64xf32, strides=[64,1]>, dim_map=[1, 0]>, tile<i32> -> token
    return
  }
}

// -----

// Scalars broadcast into tiles become splats; the loop becomes scf.for.
// CHECK-LABEL: func.func @loop_and_tokens
// CHECK: nv_tileaa.join_mem_token %{{.*}}, %{{.*}} : !nv_tileaa.mem_token
// CHECK: %[[S:.*]] = nv_tileaa.splat %{{.*}} : f32 -> tensor<4x8xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[S]]) -> (tensor<4x8xf32>) : i32 {
// CHECK:   %[[N:.*]] = cuda_tile.addf %[[ACC]], %[[S]]  : tensor<4x8xf32>
// CHECK:   scf.yield %[[N]] : tensor<4x8xf32>
// CHECK: } {unsignedCmp}
cuda_tile.module @kernels {
  entry @loop_and_tokens(%x: tile<f32>, %lb: tile<i32>, %ub: tile<i32>, %dst: tile<ptr<f32>>) {
    %a = make_token : token
    %b = make_token : token
    %j = join_tokens %a, %b : token
    %r = reshape %x : tile<f32> -> tile<1x1xf32>
    %s = broadcast %r : tile<1x1xf32> -> tile<4x8xf32>
    %one = constant <i32: 1> : tile<i32>
    %out = for unsigned %i in (%lb to %ub, step %one) : tile<i32> iter_values(%acc = %s) -> (tile<4x8xf32>) {
      %n = addf %acc, %s : tile<4x8xf32>
      continue %n : tile<4x8xf32>
    }
    %tv = make_tensor_view %dst, shape = [4, 8], strides = [8, 1] : tensor_view<4x8xf32, strides=[8,1]>
    %pv = make_partition_view %tv : partition_view<tile=(4x8), tensor_view<4x8xf32, strides=[8,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %st = store_view_tko weak %out, %pv[%zero, %zero] token = %j : tile<4x8xf32>, partition_view<tile=(4x8), tensor_view<4x8xf32, strides=[8,1]>>, tile<i32> -> token
    return
  }
}
