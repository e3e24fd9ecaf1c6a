// loop-split (tileir/transforms/cuda_tile/loop_split.py): a loop branching on
// `iv PRED invariant` becomes two loops, each with one side of the branch.
// RUN: tileir-opt %s -p loop-split --split-input-file | filecheck %s
// RUN: tileir-opt %s -p 'loop-split{split-threshold=2}' --split-input-file | filecheck %s --check-prefix=THRESHOLD

// iv > n, unit step: the split point is n + 1, clamped to the bounds.
// CHECK-LABEL: @greater_than
// CHECK: constant <i32: 1> : tile<i32>
// CHECK-NEXT: %[[ONE:.*]] = constant <i32: 1> : tile<i32>
// CHECK-NEXT: %[[P:.*]] = addi %arg1, %[[ONE]]
// CHECK-NEXT: %[[HI:.*]] = mini %[[P]], %arg0 signed
// CHECK-NEXT: %[[LO:.*]] = maxi %[[P]], %{{.*}} signed
// CHECK-NEXT: %[[R1:.*]] = for %{{.*}} in (%{{.*}} to %[[HI]], step %{{.*}}) : tile<i32> iter_values(%[[A:.*]] = %{{.*}})
// CHECK-NEXT: %[[S1:.*]] = addi %[[A]], %{{.*}}
// CHECK-NEXT: continue %[[S1]]
// CHECK: %[[R2:.*]] = for %[[I:.*]] in (%[[LO]] to %arg0, step %{{.*}}) : tile<i32> iter_values(%[[B:.*]] = %[[R1]])
// CHECK-NEXT: %[[M:.*]] = muli %[[I]], %[[I]]
// CHECK-NEXT: %[[S2:.*]] = addi %[[B]], %[[M]]
// CHECK-NEXT: continue %[[S2]]
// CHECK: return %[[R2]]
// THRESHOLD-LABEL: @greater_than
// THRESHOLD-NOT: mini
// THRESHOLD: if
cuda_tile.module @m {
  testing$func @greater_than(%arg0: tile<i32>, %arg1: tile<i32>) -> tile<i32> {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %r = for %i in (%c0 to %arg0, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
      %cond = cmpi greater_than %i, %arg1, signed : tile<i32> -> tile<i1>
      %v = if %cond -> (tile<i32>) {
        %sq = muli %i, %i : tile<i32>
        yield %sq : tile<i32>
      } else {
        yield %c1 : tile<i32>
      }
      %s = addi %acc, %v : tile<i32>
      continue %s : tile<i32>
    }
    return %r : tile<i32>
  }
}

// -----

// n > iv (that is iv < n) with a step of 4: the split point is aligned on the
// iteration space, lb + ceil((n - lb) / 4) * 4; the then-branch runs first.  The
// comparison is used elsewhere too, so each loop gets it as a constant.
// CHECK-LABEL: @less_than_step
// CHECK: %[[D:.*]] = subi %arg1, %[[LB:.*]] :
// CHECK-NEXT: %[[K:.*]] = divi %[[D]], %[[STEP:.*]] signed rounding<positive_inf>
// CHECK-NEXT: %[[KS:.*]] = muli %[[K]], %[[STEP]]
// CHECK-NEXT: %[[P:.*]] = addi %[[LB]], %[[KS]]
// CHECK-NEXT: %[[HI:.*]] = mini %[[P]], %arg0 signed
// CHECK-NEXT: %[[LO:.*]] = maxi %[[P]], %[[LB]] signed
// CHECK-NEXT: for %{{.*}} in (%[[LB]] to %[[HI]], step %[[STEP]])
// CHECK-NEXT: %[[T:.*]] = constant <i1: true>
// CHECK-NEXT: exti %[[T]] unsigned
// CHECK-NEXT: print_tko "then"
// CHECK: for %{{.*}} in (%[[LO]] to %arg0, step %[[STEP]])
// CHECK-NEXT: %[[F:.*]] = constant <i1: false>
// CHECK-NEXT: exti %[[F]] unsigned
// CHECK-NEXT: print_tko "else"
// CHECK-NOT: if
cuda_tile.module @m {
  testing$func @less_than_step(%arg0: tile<i32>, %arg1: tile<i32>) {
    %c0 = constant <i32: 0> : tile<i32>
    %c4 = constant <i32: 4> : tile<i32>
    for %i in (%c0 to %arg0, step %c4) : tile<i32> {
      %cond = cmpi greater_than %arg1, %i, signed : tile<i32> -> tile<i1>
      %e = exti %cond unsigned : tile<i1> -> tile<i32>
      if %cond {
        %t = print_tko "then" -> token
      } else {
        %t = print_tko "else" -> token
      }
      continue
    }
    return
  }
}

// -----

// Blocked: a loop-carried value is not invariant; an unsigned comparison in a signed
// loop; `cuda_tile.loop_split = 0` on the if.
// CHECK-LABEL: @blocked
// CHECK-NOT: mini
// CHECK-COUNT-3: if
cuda_tile.module @m {
  testing$func @blocked(%arg0: tile<i32>, %arg1: tile<i32>) -> tile<i32> {
    %c0 = constant <i32: 0> : tile<i32>
    %c1 = constant <i32: 1> : tile<i32>
    %r = for %i in (%c0 to %arg0, step %c1) : tile<i32> iter_values(%acc = %c0) -> (tile<i32>) {
      %cond = cmpi greater_than %i, %acc, signed : tile<i32> -> tile<i1>
      %v = if %cond -> (tile<i32>) {
        yield %i : tile<i32>
      } else {
        yield %c1 : tile<i32>
      }
      %ucond = cmpi greater_than %i, %arg1, unsigned : tile<i32> -> tile<i1>
      %w = if %ucond -> (tile<i32>) {
        yield %i : tile<i32>
      } else {
        yield %v : tile<i32>
      }
      %hcond = cmpi greater_than %i, %arg1, signed : tile<i32> -> tile<i1>
      %x = if %hcond -> (tile<i32>) {
        yield %i : tile<i32>
      } else {
        yield %w : tile<i32>
      } {cuda_tile.loop_split = 0 : i32}
      %s = addi %acc, %x : tile<i32>
      continue %s : tile<i32>
    }
    return %r : tile<i32>
  }
}
