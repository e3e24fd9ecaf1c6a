// Verifier rules of the mma ops, pointer memory ops, tokens, atomics and alloca.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  testing$func @f(%a: tile<2x4xf16>, %b: tile<8x2xf16>, %c: tile<2x2xf32>) {
    // expected-error @below {{'cuda_tile.mmaf' op  shape error: dim 1 of lhs (4) and dim 0 of rhs (8) must match, but got lhs shape (2, 4) and rhs shape (8, 2)}}
    %0 = mmaf %a, %b, %c : tile<2x4xf16>, tile<8x2xf16>, tile<2x2xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<2x2xbf16>, %c: tile<2x2xf16>) {
    // expected-error @below {{'cuda_tile.mmaf' op unsupported combination of element types. Input type 'bf16' expects accumulator/result type to be one of {'f32'}, but got 'f16'}}
    %0 = mmaf %a, %a, %c : tile<2x2xbf16>, tile<2x2xbf16>, tile<2x2xf16>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<2x2xi8>, %c: tile<2x2xi16>) {
    // expected-error @below {{'cuda_tile.mmai' op operand #2 must be mmai acc tile type of i32 values, but got '!cuda_tile.tile<2x2xi16>'}}
    %0 = mmai %a, %a, %c signed signed : tile<2x2xi8>, tile<2x2xi8>, tile<2x2xi16>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<16x64xf8E4M3FN>, %b: tile<64x8xf8E4M3FN>, %c: tile<16x8xf32>, %sa: tile<16x4xf8E8M0FNU>, %sb: tile<4x8xf8E8M0FNU>) {
    // expected-error @below {{'cuda_tile.mmaf_scaled' op shape error: f8 element type requires block scale factor of lhs_scale and rhs_scale to be 32, but got 16}}
    %0 = mmaf_scaled %a, %b, %c, %sa, %sb : tile<16x64xf8E4M3FN>, tile<64x8xf8E4M3FN>, tile<16x8xf32>, tile<16x4xf8E8M0FNU>, tile<4x8xf8E8M0FNU>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f() {
    %t = make_token : token
    // expected-error @below {{'cuda_tile.join_tokens' op expect two or more tokens}}
    %0 = join_tokens %t : token
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%p: tile<16x32xf32>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op operand #0 must be tile of Pointer type values, but got '!cuda_tile.tile<16x32xf32>'}}
    %0, %t = load_ptr_tko weak %p : tile<16x32xf32> -> tile<16x32xf32>, token
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%p: tile<8xptr<f32>>) {
    // expected-error @below {{'cuda_tile.load_ptr_tko' op failed to verify that `source` type is expected a pointer type of `result` type}}
    %0, %t = load_ptr_tko weak %p : tile<8xptr<f32>> -> tile<8xf16>, token
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%p: tile<8xptr<f32>>) {
    // expected-error @below {{expected string or keyword containing one of the following enum values for attribute 'memory_ordering_semantics' [weak, relaxed, acquire, release, acq_rel]}}
    %0, %t = load_ptr_tko seq_cst %p : tile<8xptr<f32>> -> tile<8xf32>, token
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%p: tile<8xptr<f32>>, %v: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op expected pointee type ('f32') to match element type of 'arg' ('i32')}}
    %0, %t = atomic_rmw_tko relaxed device %p, add, %v : tile<8xptr<f32>>, tile<8xi32> -> tile<8xi32>, token
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%p: tile<8xptr<f32>>, %v: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.atomic_rmw_tko' op memory ordering semantics must be one of: relaxed, acquire, release, acq_rel}}
    %0, %t = atomic_rmw_tko weak device %p, addf, %v : tile<8xptr<f32>>, tile<8xf32> -> tile<8xf32>, token
  }
}

// -----

cuda_tile.module @m {
  testing$func @f() {
    // expected-error @below {{'cuda_tile.alloca' op 'alignment' must be power of two}}
    %0 = alloca num_elem = 64, alignment = 3 : tile<ptr<f32>>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f() {
    // expected-error @below {{'alignment' (2) must be at least the natural size (4 bytes) for element type 'f32'}}
    %0 = alloca num_elem = 64, alignment = 2 : tile<ptr<f32>>
  }
}
