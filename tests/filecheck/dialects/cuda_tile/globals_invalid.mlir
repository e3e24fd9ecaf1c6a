// Verifier and parser rules of global, get_global and print_tko.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  global @g1 <f16: [1.0, 2.0]> : tile<2xf16>
  entry @e() {
    // expected-error @below {{'cuda_tile.get_global' op pointee type of result type '!cuda_tile.ptr<f32>' does not match type 'f16' of the global @g1}}
    %0 = get_global @g1 : tile<ptr<f32>>
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @below {{'cuda_tile.get_global' op 'g1' does not reference a valid global}}
    %0 = get_global @g1 : tile<ptr<f32>>
  }
}

// -----

cuda_tile.module @m {
  global @g1 <f32: [1.0]> : tile<1xf32>
  entry @e() {
    // expected-error @below {{'cuda_tile.get_global' op result #0 must be 0D tile of Pointer type values, but got '!cuda_tile.tile<4xptr<f32>>'}}
    %0 = get_global @g1 : tile<4xptr<f32>>
  }
}

// -----

cuda_tile.module @m {
  // expected-error @below {{'cuda_tile.global' op type must have rank 1}}
  global @g1 <f16: [[1.0, 2.0]]> : tile<1x2xf16>
}

// -----

cuda_tile.module @m {
  // expected-error @below {{expected valid '@'-identifier for symbol name}}
  global Public @g1 <i32: [42]> : tile<1xi32>
}

// -----

cuda_tile.module @m {
  entry @e() {
    %0 = constant <f16: [1.0, 2.0]> : tile<2xf16>
    // expected-error @below {{'cuda_tile.print_tko' op incorrect number of operands: expected 2, found 1}}
    %t = print_tko "%f, %f", %0 : tile<2xf16> -> token
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    %0 = constant <f16: [1.0, 2.0]> : tile<2xf16>
    // expected-error @below {{'cuda_tile.print_tko' op found unterminated format expression}}
    %t = print_tko "value %", %0 : tile<2xf16> -> token
  }
}

// -----

cuda_tile.module @m {
  entry @e() {
    // expected-error @below {{expected attribute value}}
    %t = print_tko : tile<2xf16> -> token
  }
}
