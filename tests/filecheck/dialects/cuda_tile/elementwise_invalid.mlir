// Verifier and parser rules of the elementwise families (valid cases in
// elementwise.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{'cuda_tile.addi' op operand #0 must be tile of i1 or i8 or i16 or i32 or i64 values, but got '!cuda_tile.tile<4xf32>'}}
    %0 = addi %a, %a : tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<4xf64>) {
    // expected-error @below {{flush_to_zero modifier only supported for f32 data type, but got: 'f64'}}
    %0 = addf %a, %a flush_to_zero : tile<4xf64>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<4xf32>) {
    // expected-error @below {{expected rounding mode to be one of: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', 'approx', 'full'}}
    %0 = divf %a, %a rounding<near_exact> : tile<4xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<4xi32>) {
    // expected-error @below {{'cuda_tile.negi' op 'no_unsigned_wrap' overflow flag is not supported}}
    %0 = negi %a overflow<no_unsigned_wrap> : tile<4xi32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<2x2xi32>) {
    // expected-error @below {{expected rounding mode to be one of: 'nearest_even', 'zero', 'negative_inf', 'positive_inf', got: 'foo'}}
    %0 = itof %a unsigned rounding<foo> : tile<2x2xi32> -> tile<2x2xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<2x2xf32>) {
    // expected-error @below {{invalid rounding mode specified for conversion to f8E8M0FNU. Only 'zero' and 'positive_inf' are supported}}
    %0 = ftof %a rounding<nearest_even> : tile<2x2xf32> -> tile<2x2xf8E8M0FNU>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<4xf32>) {
    // expected-note @-1 {{prior use here}}
    // expected-error @below {{use of value '%a' expects different type than prior uses: '!cuda_tile.tile<8xf32>' vs '!cuda_tile.tile<4xf32>'}}
    %0 = absf %a : tile<8xf32>
  }
}
