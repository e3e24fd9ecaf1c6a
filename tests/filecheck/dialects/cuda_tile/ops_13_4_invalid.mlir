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
