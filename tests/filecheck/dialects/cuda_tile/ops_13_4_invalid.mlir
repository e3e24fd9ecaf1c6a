// Verifier rules of the 13.4 forms (valid cases in ops_13_4.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  testing$func @bad(%a: tile<4xf16>, %b: tile<4xf32>, %i: tile<4xi32>, %j: tile<2xi32>) {
    // Widening is exact: only nearest_even (NVIDIA's rule).
    // expected-error @below {{invalid rounding mode specified. Only 'nearest_even' is supported}}
    %w = ftof %a rounding<zero> : tile<4xf16> -> tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @m {
  testing$func @bad(%a: tile<4xf16>) {
    // nearest_away (13.4) rounds narrowing conversions only, like the directed modes.
    // expected-error @below {{invalid rounding mode specified. Only 'nearest_even' is supported}}
    %w = ftof %a rounding<nearest_away> : tile<4xf16> -> tile<4xtf32>
    return
  }
}

// -----

cuda_tile.module @m {
  testing$func @bad(%b: tile<4xf32>, %j: tile<2xi32>) {
    // expected-error @below {{failed to verify that all of {source, exponent} have same shape}}
    %w = fpowi %b, %j : tile<4xf32>, tile<2xi32>
    return
  }
}

// -----

cuda_tile.module @m {
  testing$func @bad(%b: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.fpowi' op operand #1 must be tile of}}
    %w = fpowi %b, %b : tile<4xf32>, tile<4xf32>
    return
  }
}

// -----

cuda_tile.module @m {
  testing$func @bad(%a: tile<64xf32>, %b: tile<16xf32>, %i: tile<i32>) {
    // expected-error @below {{destination dimension 0 size (16) must be evenly divisible by source dimension 0 size (64)}}
    %r = insert %a, %b[%i] : tile<64xf32>, tile<16xf32>
    return
  }
}

// -----

cuda_tile.module @m {
  testing$func @bad(%a: tile<16xf32>, %b: tile<64xf16>, %i: tile<i32>) {
    // expected-error @below {{source and destination element type do not match}}
    %r = insert %a, %b[%i] : tile<16xf32>, tile<64xf16>
    return
  }
}

// -----

// In a cuda_tile function the grid-dependency ops order through cuda_tile tokens.
cuda_tile.module @m {
  testing$func @bad(%t: !nv_tileaa.mem_token) {
    // expected-error @below {{'cuda_tile.gdc_wait_tko' op operand #0 must be cuda tile token type, but got '!nv_tileaa.mem_token'}}
    %w = gdc_wait_tko token = %t -> !nv_tileaa.mem_token
    return
  }
}

// -----

// Lifted into nv_tileaa IR (outside a cuda_tile function), ordering ops carry the
// lowering's token type, the same in and out.
func.func @lifted(%t: !nv_tileaa.mem_token) {
  // expected-error @below {{'cuda_tile.gdc_launch_dependents_tko' op token operand of type '!nv_tileaa.mem_token' and result of type '!cuda_tile.token' must agree}}
  %w = "cuda_tile.gdc_launch_dependents_tko"(%t) : (!nv_tileaa.mem_token) -> !cuda_tile.token
  func.return
}

// -----

func.func @lifted_print(%t: !nv_tileaa.mem_token) {
  // expected-error @below {{'cuda_tile.print_tko' op token operand of type '!nv_tileaa.mem_token' and result of type '!cuda_tile.token' must agree}}
  %w = "cuda_tile.print_tko"(%t) <{str = "x", operandSegmentSizes = array<i32: 0, 1>}> : (!nv_tileaa.mem_token) -> !cuda_tile.token
  func.return
}
