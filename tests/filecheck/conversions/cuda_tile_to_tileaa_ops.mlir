// convert-cuda-tile-to-tileaa beyond views: pointer loads/stores and atomics keep their
// tokens (hop one intact), mmaf/mmai become nv_tileaa.dot, extract becomes
// nv_tileaa.extract, gather views gather rows, and loop/break/continue/if (and an early
// return) become scf with structured exit flags.
// RUN: tileir-opt %s --split-input-file -p convert-cuda-tile-to-tileaa | filecheck %s
// RUN: tileir-opt %s --split-input-file -p convert-cuda-tile-to-tileaa | tileir-opt --split-input-file | filecheck %s

// CHECK-LABEL: func.func @pointers
// CHECK: %[[T0:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK: %[[P:.*]] = cuda_tile.offset %{{.*}}, %{{.*}} : tensor<64x!cuda_tile.ptr<i32>>, tensor<64xi32> -> tensor<64x!cuda_tile.ptr<i32>>
// CHECK: %[[MASK:.*]] = cuda_tile.cmpi
// CHECK: %[[F:.*]] = cuda_tile.offset %{{.*}}, %{{.*}} : tensor<64x!cuda_tile.ptr<f32>>
// CHECK: %[[OLD:.*]], %[[T1:.*]] = nv_tileaa.atomic_rmw acq_rel device add %[[P]], %{{.*}}, %[[MASK]] token %[[T0]] : tensor<64x!cuda_tile.ptr<i32>>, tensor<64xi32>, tensor<64xi1>
// CHECK: %{{.*}}, %[[T2:.*]] = nv_tileaa.atomic_cas acq_rel device %[[P]], %[[OLD]], %{{.*}}, %[[MASK]] token %[[T1]] : tensor<64x!cuda_tile.ptr<i32>>, tensor<64xi32>, tensor<64xi32>, tensor<64xi1>
// CHECK: %[[X:.*]], %[[T3:.*]] = nv_tileaa.load weak %[[F]], %[[MASK]], %{{.*}} token %[[T2]] : tensor<64x!cuda_tile.ptr<f32>>, tensor<64xi1>, tensor<64xf32> -> tensor<64xf32>
// CHECK: %[[T4:.*]] = nv_tileaa.store weak %[[F]], %[[X]], %[[MASK]] token %[[T3]] : tensor<64x!cuda_tile.ptr<f32>>, tensor<64xf32>, tensor<64xi1>
// CHECK: nv_tileaa.join_mem_token %[[T4]], %[[T0]] : !nv_tileaa.mem_token
cuda_tile.module @m {
  entry @pointers(%bi: tile<ptr<i32>>, %bf: tile<ptr<f32>>, %n: tile<i32>) {
    %t0 = make_token : token
    %io = iota : tile<64xi32>
    %ri = reshape %bi : tile<ptr<i32>> -> tile<1xptr<i32>>
    %pi = broadcast %ri : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %p = offset %pi, %io : tile<64xptr<i32>>, tile<64xi32> -> tile<64xptr<i32>>
    %rn = reshape %n : tile<i32> -> tile<1xi32>
    %bn = broadcast %rn : tile<1xi32> -> tile<64xi32>
    %mask = cmpi less_than %io, %bn, signed : tile<64xi32> -> tile<64xi1>
    %rf = reshape %bf : tile<ptr<f32>> -> tile<1xptr<f32>>
    %pf = broadcast %rf : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %f = offset %pf, %io : tile<64xptr<f32>>, tile<64xi32> -> tile<64xptr<f32>>
    %one = constant <i32: 1> : tile<64xi32>
    %old, %t1 = atomic_rmw_tko acq_rel device %p, add, %one, %mask token=%t0 : tile<64xptr<i32>>, tile<64xi32>, tile<64xi1> -> tile<64xi32>, token
    %new, %t2 = atomic_cas_tko acq_rel device %p, %old, %one, %mask token=%t1 : tile<64xptr<i32>>, tile<64xi32>, tile<64xi1> -> tile<64xi32>, token
    %pad = constant <f32: 0.0> : tile<64xf32>
    %x, %t3 = load_ptr_tko weak %f, %mask, %pad token=%t2 : tile<64xptr<f32>>, tile<64xi1>, tile<64xf32> -> tile<64xf32>, token
    %t4 = store_ptr_tko weak %f, %x, %mask token=%t3 : tile<64xptr<f32>>, tile<64xf32>, tile<64xi1> -> token
    %j = join_tokens %t4, %t0 : token
    return
  }
}

// -----

// CHECK-LABEL: func.func @mma
// CHECK: nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x64xf16>, tensor<64x64xf32>
// CHECK: nv_tileaa.dot %{{.*}}, %{{.*}}, %{{.*}} signed unsigned : tensor<32x32xi8>, tensor<32x32xi8>, tensor<32x32xi32>
// CHECK: nv_tileaa.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x64xf32> -> tensor<16x16xf32>
cuda_tile.module @m {
  entry @mma() {
    %a = constant <f16: 1.0> : tile<64x32xf16>
    %b = constant <f16: 2.0> : tile<32x64xf16>
    %c = constant <f32: 0.0> : tile<64x64xf32>
    %x = constant <i8: 1> : tile<32x32xi8>
    %y = constant <i8: 2> : tile<32x32xi8>
    %z = constant <i32: 0> : tile<32x32xi32>
    %d = mmaf %a, %b, %c : tile<64x32xf16>, tile<32x64xf16>, tile<64x64xf32>
    %e = mmai %x, %y, %z signed unsigned : tile<32x32xi8>, tile<32x32xi8>, tile<32x32xi32>
    %i = constant <i32: 1> : tile<i32>
    %s = extract %d[%i, %i] : tile<64x64xf32> -> tile<16x16xf32>
    return
  }
}

// -----

// A gather view: rows come from the offsets tile (sign-extended, times the row
// stride), each row is in bounds when its offset is below the row count (unsigned),
// and the column tile origin is folded into the base pointer as for a partition view.
// CHECK-LABEL: func.func @gather
// CHECK: %[[ROWS:.*]] = cuda_tile.exti %{{.*}} signed : tensor<16xi32> -> tensor<16xi64>
// CHECK: cuda_tile.muli %[[ROWS]], %{{.*}} : tensor<16xi64>
// CHECK: cuda_tile.cmpi less_than %[[ROWS]], %{{.*}}, unsigned : tensor<16xi64> -> tensor<16xi1>
// CHECK: nv_tileaa.load weak %{{.*}}, %{{.*}}, %{{.*}} token %{{.*}} : tensor<16x32x!cuda_tile.ptr<f32>>, tensor<16x32xi1>, tensor<16x32xf32> -> tensor<16x32xf32>
cuda_tile.module @m {
  entry @gather(%base: tile<ptr<f32>>, %n: tile<i32>, %pitch: tile<i32>) {
    %rows = iota : tile<16xi32>
    %t = make_token : token
    %tv = make_tensor_view %base, shape = [%n, 64], strides = [%pitch, 1] : tile<i32> -> tensor_view<?x64xf32, strides=[?,1]>
    %gs = make_gather_scatter_view %tv : gather_scatter_view<tile=(16x32), tensor_view<?x64xf32, strides=[?,1]>, sparse_dim=0>
    %c1 = constant <i32: 1> : tile<i32>
    %x, %t1 = load_view_tko weak %gs[%rows, %c1] token = %t : gather_scatter_view<tile=(16x32), tensor_view<?x64xf32, strides=[?,1]>, sparse_dim=0>, tile<16xi32>, tile<i32> -> tile<16x32xf32>, token
    return
  }
}

// -----

// loop with a break inside an if: scf.while whose before region computes the exit
// flags; the ops after the if run only when it did not exit.
// CHECK-LABEL: func.func @loop_break
// CHECK: %[[R:.*]] = scf.while (%[[I:.*]] = %{{.*}}) : (i32) -> i32 {
// CHECK: %[[EX:.*]], %[[KEEP:.*]], %[[V:.*]] = scf.if %{{.*}} -> (i1, i1, i32) {
// CHECK: } else {
// CHECK: %[[E2:.*]], %[[K2:.*]], %[[V2:.*]] = scf.if %[[EX]] -> (i1, i1, i32) {
// CHECK-NEXT: scf.yield %[[EX]], %[[KEEP]], %[[V]] : i1, i1, i32
// CHECK-NEXT: } else {
// CHECK: cuda_tile.addi %[[I]]
// CHECK: scf.condition(%[[K2]]) %[[V2]] : i32
// CHECK: } do {
// CHECK-NOT: cuda_tile.loop
// CHECK-NOT: cuda_tile.break
cuda_tile.module @m {
  entry @loop_break(%n: tile<i32>) {
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %r = loop iter_values(%i = %z) : tile<i32> -> tile<i32> {
      %c = cmpi less_than %i, %n, signed : tile<i32> -> tile<i1>
      if %c {
      } else {
        break %i : tile<i32>
      }
      %next = addi %i, %one : tile<i32>
      continue %next : tile<i32>
    }
    return
  }
}

// -----

// An if with results becomes scf.if; a for stays a plain scf.for.
// CHECK-LABEL: func.func @branch
// CHECK: scf.for
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK: scf.yield %{{.*}} : i32
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : i32
cuda_tile.module @m {
  entry @branch(%n: tile<i32>) {
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %s = for %k in (%z to %n, step %one) : tile<i32> iter_values(%acc = %z) -> (tile<i32>) {
      %c = cmpi less_than %k, %one, signed : tile<i32> -> tile<i1>
      %v = if %c -> (tile<i32>) {
        yield %k : tile<i32>
      } else {
        %w = addi %acc, %k : tile<i32>
        yield %w : tile<i32>
      }
      continue %v : tile<i32>
    }
    return
  }
}

// -----

// An early return (issue 13): the if that returns yields an exit flag, and the rest of
// the body runs under an scf.if on it (the whole tile block returns: the condition is
// a scalar). A function body has no keep-looping flag.
// CHECK-LABEL: func.func @early_return
// CHECK: %[[C:.*]] = cuda_tile.cmpi greater_than_or_equal
// CHECK: %[[EX:.*]] = scf.if %[[C]] -> (i1) {
// CHECK-NEXT: %[[T:.*]] = cuda_tile.constant <i1: true> : i1
// CHECK-NEXT: scf.yield %[[T]] : i1
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[F:.*]] = cuda_tile.constant <i1: false> : i1
// CHECK-NEXT: scf.yield %[[F]] : i1
// CHECK: scf.if %[[EX]] -> (i1) {
// CHECK-NEXT: scf.yield %[[EX]] : i1
// CHECK-NEXT: } else {
// CHECK-NEXT: nv_tileaa.store weak
// CHECK: func.return
// CHECK-NOT: cuda_tile.return
cuda_tile.module @m {
  entry @early_return(%p: tile<ptr<i32>>, %n: tile<i32>) {
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c = cmpi greater_than_or_equal %bx, %n, signed : tile<i32> -> tile<i1>
    if %c {
      return
    }
    %s = store_ptr_tko weak %p, %bx : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}

// -----

// Returns in both arms of an if with a result (one arm nested deeper): the if yields
// (exited, its result); the nested if's exit flag flows out through its arm; the for
// and the store after it run under the guard.
// CHECK-LABEL: func.func @nested_returns
// CHECK: %[[EX:.*]], %[[V:.*]] = scf.if %{{.*}} -> (i1, i32) {
// CHECK: %[[INNER:.*]] = scf.if %{{.*}} -> (i1) {
// CHECK: %[[EX2:.*]], %[[V2:.*]] = scf.if %[[INNER]] -> (i1, i32) {
// CHECK: cuda_tile.addi
// CHECK: scf.yield %[[EX2]], %[[V2]] : i1, i32
// CHECK: } else {
// CHECK-NEXT: %[[T:.*]] = cuda_tile.constant <i1: true> : i1
// CHECK-NEXT: %[[PH:.*]] = cuda_tile.constant <i32: 0> : i32
// CHECK-NEXT: scf.yield %[[T]], %[[PH]] : i1, i32
// CHECK: scf.if %[[EX]] -> (i1) {
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[V]]
// CHECK: nv_tileaa.store weak
cuda_tile.module @m {
  entry @nested_returns(%p: tile<ptr<i32>>, %n: tile<i32>) {
    %z = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c = cmpi less_than %bx, %n, signed : tile<i32> -> tile<i1>
    %v = if %c -> (tile<i32>) {
      %d = cmpi equal %bx, %z, signed : tile<i32> -> tile<i1>
      if %d {
        return
      }
      %w = addi %bx, %one : tile<i32>
      yield %w : tile<i32>
    } else {
      return
    }
    %s = for %k in (%z to %v, step %one) : tile<i32> iter_values(%acc = %z) -> (tile<i32>) {
      %a = addi %acc, %k : tile<i32>
      continue %a : tile<i32>
    }
    %pp = offset %p, %bx : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %t = store_ptr_tko weak %pp, %s : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}

// -----

// A returning arm of an if that yields a token: the exit path yields the token made
// before the if (never read), so hop one keeps one mem token per make_token.
// CHECK-LABEL: func.func @return_past_a_token
// CHECK: %[[T0:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK: scf.if %{{.*}} -> (i1, !nv_tileaa.mem_token) {
// CHECK: nv_tileaa.store weak
// CHECK: scf.yield %{{.*}}, %[[T0]] : i1, !nv_tileaa.mem_token
// CHECK: } else {
// CHECK: scf.yield %{{.*}}, %[[T0]] : i1, !nv_tileaa.mem_token
// CHECK-NOT: nv_tileaa.create_mem_token
cuda_tile.module @m {
  entry @return_past_a_token(%p: tile<ptr<i32>>, %n: tile<i32>) {
    %t0 = make_token : token
    %bx, %by, %bz = get_tile_block_id : tile<i32>
    %c = cmpi greater_than_or_equal %bx, %n, signed : tile<i32> -> tile<i1>
    %t1 = if %c -> (token) {
      %s = store_ptr_tko weak %p, %bx token = %t0 : tile<ptr<i32>>, tile<i32> -> token
      return
    } else {
      yield %t0 : token
    }
    %s2 = store_ptr_tko weak %p, %n token = %t1 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}

// -----

// Rank-0 tiles (issue 13): cuTile's `load(..., shape=())` and `tile.extract(...).item()`
// reshape a one-element tile to rank 0, which lifts to a view to the scalar carrier;
// the only sub-tile of a rank-0 tile (extract) and a reshape of a scalar to rank 0 are
// the scalar itself.
// CHECK-LABEL: func.func @scalar_tiles
// CHECK: %[[T:.*]], %{{.*}} = nv_tileaa.load weak %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x!cuda_tile.ptr<i32>>, tensor<4xi1>, tensor<4xi32> -> tensor<4xi32>
// CHECK: %[[E:.*]] = nv_tileaa.extract %[[T]][%{{.*}}] : tensor<4xi32> -> tensor<1xi32>
// CHECK: %[[S:.*]] = nv_tileaa.view %[[E]] : tensor<1xi32> -> i32
// CHECK: %[[P:.*]] = cuda_tile.offset %o, %[[S]] : ptr<i32>, i32 -> ptr<i32>
// CHECK: nv_tileaa.store weak %[[P]], %[[S]] : !cuda_tile.ptr<i32>, i32
cuda_tile.module @m {
  entry @scalar_tiles(%p: tile<ptr<i32>>, %n: tile<i32>, %o: tile<ptr<i32>>) {
    %tv = make_tensor_view %p, shape = [%n], strides = [1] : tile<i32> -> tensor_view<?xi32, strides=[1]>
    %pv = make_partition_view %tv : partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>
    %c0 = constant <i32: 0> : tile<i32>
    %c2 = constant <i32: 2> : tile<i32>
    %t, %tok = load_view_tko weak %pv[%c0] : partition_view<tile=(4), tensor_view<?xi32, strides=[1]>>, tile<i32> -> tile<4xi32>, token
    %e = extract %t[%c2] : tile<4xi32> -> tile<1xi32>
    %s = reshape %e : tile<1xi32> -> tile<i32>
    %s0 = extract %s[] : tile<i32> -> tile<i32>
    %s1 = reshape %s0 : tile<i32> -> tile<i32>
    %q = offset %o, %s1 : tile<ptr<i32>>, tile<i32> -> tile<ptr<i32>>
    %st = store_ptr_tko weak %q, %s1 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
