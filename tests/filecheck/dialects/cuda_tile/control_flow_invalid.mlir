// Verifier rules of for, loop, if and their terminators (valid cases in
// control_flow.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  // expected-note @below {{see unexpected ancestor operation}}
  testing$func @f(%c: tile<i1>) {
    if %c {
      // expected-error @below {{'cuda_tile.continue' op can only be nested within a ancestor chain of 'cuda_tile.for', 'cuda_tile.loop', 'cuda_tile.if' operations}}
      continue
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%c: tile<i1>) {
    // expected-error @below {{'cuda_tile.if' op has non-empty return type, must define else branch}}
    %0 = if %c -> (tile<i32>) {
      %1 = constant <i32: 1> : tile<i32>
      yield %1 : tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%c: tile<i1>) {
    // expected-error @below {{'cuda_tile.if' op type does not match yield type, then branch yields '!cuda_tile.tile<i32>' but op result type is '!cuda_tile.tile<i64>'}}
    %0 = if %c -> (tile<i64>) {
      %1 = constant <i32: 1> : tile<i32>
      yield %1 : tile<i32>
    } else {
      %2 = constant <i64: 1> : tile<i64>
      yield %2 : tile<i64>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tensor_view<2x2xf32, strides=[2,1]>) {
    // expected-error @below {{'cuda_tile.loop' op loop-carried value 0 is a tensor_view, which is not supported}}
    loop iter_values(%v = %x) : tensor_view<2x2xf32, strides=[2,1]> {
      break
    }
  }
}

// -----

// expected-error @below {{use of undeclared SSA value name}}
%r = cuda_tile.loop iter_values(%v = %foo) : !cuda_tile.tile<i32> -> !cuda_tile.tile<i32> {
  %foo = cuda_tile.constant <i32: 10> : !cuda_tile.tile<i32>
}

// -----

cuda_tile.module @m {
  testing$func @f(%lb: tile<i32>, %f: tile<f32>) {
    // expected-error @below {{'cuda_tile.for' op failed to verify that all of {initValues, resultValues} have same type}}
    %0 = "cuda_tile.for"(%lb, %lb, %lb, %lb) ({
    ^bb0(%i: !cuda_tile.tile<i32>, %acc: !cuda_tile.tile<f32>):
      "cuda_tile.continue"(%acc) : (!cuda_tile.tile<f32>) -> ()
    }) : (!cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>, !cuda_tile.tile<i32>) -> !cuda_tile.tile<f32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%c: tile<i1>) {
    %x = constant <i32: 1> : tile<i32>
    %0 = loop : tile<i32> {
      // expected-error @below {{'cuda_tile.break' op operand types must correspond to the parent loop result types}}
      break
    }
  }
}

// -----

%x = cuda_tile.constant <i32: 1> : !cuda_tile.tile<i32>
// expected-error @below {{'cuda_tile.assert' op operand #0 must be tile of i1 values, but got '!cuda_tile.tile<i32>'}}
cuda_tile.assert %x, "message" : !cuda_tile.tile<i32>
