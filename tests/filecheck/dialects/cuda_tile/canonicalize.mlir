// cuda_tile's canonicalization patterns (tileir/dialects/cuda_tile/canonicalize.py) under
// xDSL's `canonicalize`; the behaviour follows NVIDIA's canonicalize.mlir.  Each pattern
// has a case that fires and a case its condition blocks.
// RUN: tileir-opt %s -p canonicalize --split-input-file | filecheck %s

// Constants go to the front of the function's entry block, one per value.
// CHECK-LABEL: @constants
// CHECK-DAG: %[[C7:.*]] = constant <i32: 7> : tile<i32>
// CHECK-DAG: %[[C1:.*]] = constant <i32: 1> : tile<i32>
// CHECK-DAG: constant <i32: 0> : tile<i32>
// CHECK-DAG: constant <i32: 4> : tile<i32>
// CHECK-NOT: constant
// CHECK: for
// CHECK-NEXT: %[[S:.*]] = addi %{{.*}}, %[[C1]]
// CHECK-NEXT: addi %[[S]], %[[C7]]
cuda_tile.module @m {
  testing$func @constants() -> tile<i32> {
    %c1 = constant <i32: 1> : tile<i32>
    %lo = constant <i32: 0> : tile<i32>
    %hi = constant <i32: 4> : tile<i32>
    %r = for %i in (%lo to %hi, step %c1) : tile<i32> iter_values(%acc = %c1) -> (tile<i32>) {
      %one = constant <i32: 1> : tile<i32>
      %seven = constant <i32: 7> : tile<i32>
      %s = addi %acc, %one : tile<i32>
      %t = addi %s, %seven : tile<i32>
      continue %t : tile<i32>
    }
    return %r : tile<i32>
  }
}

// -----

// The product goes left in an addition; not when both or neither operand is one.
// CHECK-LABEL: @addf
// CHECK: %[[M:.*]] = mulf %arg0, %arg1
// CHECK-NEXT: %[[A:.*]] = addf %[[M]], %arg2 rounding<zero>
// CHECK-NEXT: %[[N:.*]] = mulf %arg1, %arg2
// CHECK-NEXT: %[[B:.*]] = addf %[[N]], %[[M]] :
// CHECK-NEXT: %[[C:.*]] = addf %arg0, %arg1 :
cuda_tile.module @m {
  testing$func @addf(%arg0: tile<4xf32>, %arg1: tile<4xf32>, %arg2: tile<4xf32>) -> (tile<4xf32>, tile<4xf32>, tile<4xf32>) {
    %m = mulf %arg0, %arg1 : tile<4xf32>
    %a = addf %arg2, %m rounding<zero> : tile<4xf32>
    %n = mulf %arg1, %arg2 : tile<4xf32>
    %b = addf %n, %m : tile<4xf32>
    %c = addf %arg0, %arg1 : tile<4xf32>
    return %a, %b, %c : tile<4xf32>, tile<4xf32>, tile<4xf32>
  }
}

// -----

// A repeated assume goes; a different predicate stays.
// CHECK-LABEL: @assume
// CHECK-NEXT: %[[A:.*]] = assume div_by<16>, %arg0
// CHECK-NEXT: %[[B:.*]] = assume div_by<8>, %[[A]]
// CHECK-NEXT: return %[[A]], %[[B]]
cuda_tile.module @m {
  testing$func @assume(%arg0: tile<ptr<f32>>) -> (tile<ptr<f32>>, tile<ptr<f32>>) {
    %a = assume div_by<16>, %arg0 : tile<ptr<f32>>
    %b = assume div_by<16>, %a : tile<ptr<f32>>
    %c = assume div_by<8>, %b : tile<ptr<f32>>
    return %b, %c : tile<ptr<f32>>, tile<ptr<f32>>
  }
}

// -----

// select folds.
// CHECK-LABEL: @select_folds
// CHECK-DAG: %[[T:.*]] = constant <i1: true>
// CHECK-NOT: select
// CHECK: %[[NOT:.*]] = xori %arg0, %[[T]]
// CHECK-NEXT: %[[SW:.*]] = select %arg0, %arg2, %arg1
// CHECK-NEXT: %[[KEEP:.*]] = select %arg3, %arg1, %arg2
// CHECK-NEXT: return %arg1, %arg1, %arg0, %arg2, %[[NOT]], %[[SW]], %arg1, %[[KEEP]]
cuda_tile.module @m {
  testing$func @select_folds(%arg0: tile<i1>, %arg1: tile<i32>, %arg2: tile<i32>, %arg3: tile<i1>)
      -> (tile<i32>, tile<i32>, tile<i1>, tile<i32>, tile<i1>, tile<i32>, tile<i32>, tile<i32>) {
    %true = constant <i1: true> : tile<i1>
    %false = constant <i1: false> : tile<i1>
    %same = select %arg0, %arg1, %arg1 : tile<i1>, tile<i32>
    %known = select %true, %arg1, %arg2 : tile<i1>, tile<i32>
    %id = select %arg0, %true, %false : tile<i1>, tile<i1>
    %eq = cmpi equal %arg1, %arg2, signed : tile<i32> -> tile<i1>
    %cmp = select %eq, %arg1, %arg2 : tile<i1>, tile<i32>
    %not = select %arg0, %false, %true : tile<i1>, tile<i1>
    %swapped = select %not, %arg1, %arg2 : tile<i1>, tile<i32>
    // select %c, a, (select %c, b, a) is select %c, a, a: a.
    %inner2 = select %arg0, %arg2, %arg1 : tile<i1>, tile<i32>
    %outer = select %arg0, %arg1, %inner2 : tile<i1>, tile<i32>
    // Another condition: the inner select stays.
    %other = select %arg3, %arg1, %arg2 : tile<i1>, tile<i32>
    return %same, %known, %id, %cmp, %not, %swapped, %outer, %other
        : tile<i32>, tile<i32>, tile<i1>, tile<i32>, tile<i1>, tile<i32>, tile<i32>, tile<i32>
  }
}

// -----

// Constant selects, and selects of 0/1 that are extensions (not on i1 results, not
// for other constants).
// CHECK-LABEL: @select_rewrites
// CHECK-DAG: constant <i32: [5, 2, 7, 4]> : tile<4xi32>
// CHECK-DAG: %[[T:.*]] = constant <i1: true> : tile<4xi1>
// CHECK: %[[E:.*]] = exti %arg0 unsigned : tile<4xi1> -> tile<4xi32>
// CHECK-NEXT: %[[N:.*]] = xori %arg0, %[[T]]
// CHECK-NEXT: %[[F:.*]] = exti %[[N]] unsigned : tile<4xi1> -> tile<4xi32>
// CHECK-NEXT: %[[K:.*]] = select %arg0, %{{.*}}, %{{.*}} : tile<4xi1>, tile<4xi32>
cuda_tile.module @m {
  testing$func @select_rewrites(%arg0: tile<4xi1>) -> (tile<4xi32>, tile<4xi32>, tile<4xi32>, tile<4xi32>) {
    %c = constant <i1: [true, false, true, false]> : tile<4xi1>
    %a = constant <i32: [5, 6, 7, 8]> : tile<4xi32>
    %b = constant <i32: [1, 2, 3, 4]> : tile<4xi32>
    %consts = select %c, %a, %b : tile<4xi1>, tile<4xi32>
    %one = constant <i32: 1> : tile<4xi32>
    %zero = constant <i32: 0> : tile<4xi32>
    %two = constant <i32: 2> : tile<4xi32>
    %ext = select %arg0, %one, %zero : tile<4xi1>, tile<4xi32>
    %notext = select %arg0, %zero, %one : tile<4xi1>, tile<4xi32>
    %kept = select %arg0, %two, %zero : tile<4xi1>, tile<4xi32>
    return %consts, %ext, %notext, %kept : tile<4xi32>, tile<4xi32>, tile<4xi32>, tile<4xi32>
  }
}

// -----

// if: a constant condition inlines the branch; a negated condition swaps the branches.
// CHECK-LABEL: @if_static
// CHECK-NOT: if
// CHECK: %[[X:.*]] = addi %arg0, %arg0
// CHECK-NEXT: if %arg1 {
// CHECK-NEXT: print_tko "b"
// CHECK-NEXT: } else {
// CHECK-NEXT: print_tko "a"
cuda_tile.module @m {
  testing$func @if_static(%arg0: tile<i32>, %arg1: tile<i1>) -> tile<i32> {
    %true = constant <i1: true> : tile<i1>
    %r = if %true -> (tile<i32>) {
      %x = addi %arg0, %arg0 : tile<i32>
      yield %x : tile<i32>
    } else {
      yield %arg0 : tile<i32>
    }
    %not = xori %arg1, %true : tile<i1>
    if %not {
      %t = print_tko "a" -> token
    } else {
      %t = print_tko "b" -> token
    }
    return %r : tile<i32>
  }
}

// -----

// if results yielded from outside become selects (with a reshaped and broadcast
// condition for shaped tiles); values defined in a branch stay results.
// CHECK-LABEL: @if_to_select
// CHECK: %[[R:.*]] = reshape %arg0 : tile<i1> -> tile<1xi1>
// CHECK-NEXT: %[[B:.*]] = broadcast %[[R]] : tile<1xi1> -> tile<4xi1>
// CHECK-NEXT: %[[S:.*]] = select %[[B]], %arg1, %arg2 : tile<4xi1>, tile<4xi32>
// CHECK-NEXT: %[[IF:.*]] = if %arg0 -> (tile<4xi32>) {
// CHECK: return %[[S]], %[[IF]]
cuda_tile.module @m {
  testing$func @if_to_select(%arg0: tile<i1>, %arg1: tile<4xi32>, %arg2: tile<4xi32>) -> (tile<4xi32>, tile<4xi32>) {
    %a, %b = if %arg0 -> (tile<4xi32>, tile<4xi32>) {
      %x = addi %arg1, %arg2 : tile<4xi32>
      yield %arg1, %x : tile<4xi32>, tile<4xi32>
    } else {
      yield %arg2, %arg2 : tile<4xi32>, tile<4xi32>
    }
    return %a, %b : tile<4xi32>, tile<4xi32>
  }
}

// -----

// A token result keeps the whole if (tokens cannot be selected).
// CHECK-LABEL: @if_token_no_select
// CHECK-NOT: select
// CHECK: if %arg0 -> (tile<4xi32>, token)
cuda_tile.module @m {
  testing$func @if_token_no_select(%arg0: tile<i1>, %arg1: tile<4xi32>, %arg2: tile<4xi32>, %t0: token, %t1: token)
      -> (tile<4xi32>, token) {
    %a, %t = if %arg0 -> (tile<4xi32>, token) {
      yield %arg1, %t0 : tile<4xi32>, token
    } else {
      yield %arg2, %t1 : tile<4xi32>, token
    }
    return %a, %t : tile<4xi32>, token
  }
}

// -----

// Adjacent ifs on one condition merge; the second sees the first's yielded values.
// CHECK-LABEL: @if_combine
// CHECK: %[[IF:.*]]:2 = if %arg0 -> (tile<i32>, tile<i32>) {
// CHECK-NEXT: %[[A:.*]] = addi %arg1, %arg1
// CHECK-NEXT: %[[B:.*]] = muli %[[A]], %arg1
// CHECK-NEXT: yield %[[A]], %[[B]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[C:.*]] = subi %arg1, %arg1
// CHECK-NEXT: %[[D:.*]] = muli %[[C]], %arg1
// CHECK-NEXT: yield %[[C]], %[[D]]
// CHECK-NOT: if
cuda_tile.module @m {
  testing$func @if_combine(%arg0: tile<i1>, %arg1: tile<i32>) -> (tile<i32>, tile<i32>) {
    %r = if %arg0 -> (tile<i32>) {
      %a = addi %arg1, %arg1 : tile<i32>
      yield %a : tile<i32>
    } else {
      %c = subi %arg1, %arg1 : tile<i32>
      yield %c : tile<i32>
    }
    %s = if %arg0 -> (tile<i32>) {
      %b = muli %r, %arg1 : tile<i32>
      yield %b : tile<i32>
    } else {
      %d = muli %r, %arg1 : tile<i32>
      yield %d : tile<i32>
    }
    return %r, %s : tile<i32>, tile<i32>
  }
}

// -----

// Different conditions: no merge.
// CHECK-LABEL: @if_no_combine
// CHECK: if %arg0
// CHECK: if %arg1
cuda_tile.module @m {
  testing$func @if_no_combine(%arg0: tile<i1>, %arg1: tile<i1>) {
    if %arg0 {
      %t = print_tko "a" -> token
    }
    if %arg1 {
      %t = print_tko "b" -> token
    }
    return
  }
}

// -----

// Nested ifs become one on the conjunction; not when the outer branch does more.
// CHECK-LABEL: @if_nested
// CHECK: %[[AND:.*]] = andi %arg0, %arg1
// CHECK-NEXT: if %[[AND]] {
// CHECK-NEXT: print_tko "inner"
// CHECK: if %arg0 {
// CHECK-NEXT: print_tko "outer"
// CHECK-NEXT: if %arg1 {
cuda_tile.module @m {
  testing$func @if_nested(%arg0: tile<i1>, %arg1: tile<i1>) {
    if %arg0 {
      if %arg1 {
        %t = print_tko "inner" -> token
      }
    }
    if %arg0 {
      %u = print_tko "outer" -> token
      if %arg1 {
        %t = print_tko "inner" -> token
      }
    }
    return
  }
}

// -----

// Both branches return: the else branch follows the if, and what came after goes.
// CHECK-LABEL: @if_both_return
// CHECK: if %arg0 {
// CHECK-NEXT: return %arg1
// CHECK-NEXT: }
// CHECK-NEXT: return %arg2
// CHECK-NEXT: }
cuda_tile.module @m {
  testing$func @if_both_return(%arg0: tile<i1>, %arg1: tile<i32>, %arg2: tile<i32>) -> tile<i32> {
    if %arg0 {
      return %arg1 : tile<i32>
    } else {
      return %arg2 : tile<i32>
    }
    %x = addi %arg1, %arg2 : tile<i32>
    return %x : tile<i32>
  }
}

// -----

// Unused results go; an if left with nothing to do goes; one that stores stays.
// CHECK-LABEL: @if_dead
// CHECK-NEXT: %[[IF:.*]] = if %arg0 -> (token) {
// CHECK-NEXT: addi
// CHECK-NEXT: %[[T:.*]] = store_ptr_tko weak
// CHECK-NEXT: yield %[[T]] : token
// CHECK-NEXT: } else {
// CHECK-NEXT: yield %arg3 : token
// CHECK-NEXT: }
// CHECK-NEXT: return %[[IF]]
cuda_tile.module @m {
  testing$func @if_dead(%arg0: tile<i1>, %arg1: tile<i32>, %arg2: tile<ptr<i32>>, %arg3: token) -> token {
    %a, %t = if %arg0 -> (tile<i32>, token) {
      %x = addi %arg1, %arg1 : tile<i32>
      %s = store_ptr_tko weak %arg2, %x token=%arg3 : tile<ptr<i32>>, tile<i32> -> token
      yield %x, %s : tile<i32>, token
    } else {
      yield %arg1, %arg3 : tile<i32>, token
    }
    %b = if %arg0 -> (tile<i32>) {
      %y = muli %arg1, %arg1 : tile<i32>
      yield %y : tile<i32>
    } else {
      yield %arg1 : tile<i32>
    }
    return %t : token
  }
}
