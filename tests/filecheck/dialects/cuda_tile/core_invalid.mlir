// Verifier and parser rules of the core ops and types: functions, constants,
// assume predicates, shape ops and tile types.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  // expected-error @below {{'cuda_tile.entry' op entry op must have scalar types (rank 0 !cuda_tile.tile)}}
  entry @e(%a: tile<2x2xf32>) {
  }
}

// -----

cuda_tile.module @m {
  testing$func @kernel() -> tile<i32> {
    // expected-error @below {{'cuda_tile.return' op has 0 operands, but enclosing function (@kernel) returns 1}}
    return
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @below {{custom op 'cuda_tile.constant' result #0 must be tile of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN values, but got 'tensor<f32>'}}
    %0 = constant <f32: 1.0> : tensor<f32>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @below {{unexpected decimal integer literal for a floating point value}}
    // expected-note @below {{add a trailing dot to make the literal a float}}
    %0 = constant <f32: [1.0, 2]> : tile<2xf32>
  }
}

// -----

cuda_tile.module @m {
  // expected-error @below {{all dimensions must be powers of two, got 5, 5}}
  testing$func @f(%a: tile<5x5xf32>) {
  }
}

// -----

cuda_tile.module @m {
  // expected-error @below {{F4E2M1FN tiles must have an even number of elements}}
  testing$func @f(%a: tile<f4E2M1FN>) {
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<16xf32>) {
    // expected-error @below {{'cuda_tile.div_by' is valid only for tile of integer/pointer or tensor_view values}}
    %0 = assume div_by<16>, %a : tile<16xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<16xi32>) {
    // expected-error @below {{'cuda_tile.div_by' divisor must be a power of 2}}
    %0 = assume div_by<12>, %a : tile<16xi32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<4x1xf32>) {
    // expected-error @below {{'cuda_tile.broadcast' op expects the shape of source tile to be compatible with that of the result tile, but got: 4, 1 and 2, 8}}
    %0 = broadcast %a : tile<4x1xf32> -> tile<2x8xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.reshape' op expected source tile and result tile to have the same number of elements}}
    %0 = reshape %a : tile<4x4xf32> -> tile<8xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f() {
    // expected-error @below {{operation defines 3 results but was provided 1 to bind}}
    %0 = get_tile_block_id : tile<i32>
  }
}

// -----

cuda_tile.module @m {
  // expected-error @below {{custom op 'cuda_tile.entry' expected dictionary attribute for optimization_hints entry `sm_100` got value=2 : i64}}
  entry @e() optimization_hints=<sm_100 = 2> {
  }
}
