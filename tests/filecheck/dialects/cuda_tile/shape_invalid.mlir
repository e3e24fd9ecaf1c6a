// Verifier rules of cat, extract, permute, pack and unpack (valid cases in shape.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  testing$func @f(%a: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op expect dim to be [0, 2), but got: 2}}
    %0 = cat %a, %a dim = 2 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x8xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<2x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op invalid concat at position 1, expected: 8 but got: 16}}
    %0 = cat %a, %a dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x16xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<2x4xf32>, %b: tile<4x4xf32>) {
    // expected-error @below {{'cuda_tile.cat' op expect lhs and rhs shapes to match at non-concat position 0, expected: 2 but got: 4}}
    %0 = cat %a, %b dim = 1 : tile<2x4xf32>, tile<4x4xf32> -> tile<2x8xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<2x4xf32>, %b: tile<2x4xf16>) {
    // expected-error @below {{'cuda_tile.cat' op failed to verify that all of {lhs, rhs, result} have the same element type}}
    %0 = cat %a, %b dim = 1 : tile<2x4xf32>, tile<2x4xf16> -> tile<2x8xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<8xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op expected 1 indices, but got 2}}
    %0 = extract %a[%i, %i] : tile<8xf32> -> tile<2xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<8x4xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op source dimension 1 size (4) must be evenly divisible by result dimension 1 size (8)}}
    %0 = extract %a[%i, %i] : tile<8x4xf32> -> tile<4x8xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<8xf32>, %i: tile<i32>) {
    // expected-error @below {{'cuda_tile.extract' op source and result element type do not match}}
    %0 = extract %a[%i] : tile<8xf32> -> tile<2xi32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<1x2xf32>) {
    // expected-error @below {{'cuda_tile.permute' op expect permutation elements to be unique}}
    %0 = permute %a [0, 0] : tile<1x2xf32> -> tile<1x2xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<1x2xf32>) {
    // expected-error @below {{'cuda_tile.permute' op permutation element at index 1 (100) is out of bound [0, 2)}}
    %0 = permute %a [0, 100] : tile<1x2xf32> -> tile<1x2xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<1x2xf32>) {
    // expected-error @below {{'cuda_tile.permute' op result shape invalid at index 0, expected: 2, but got: 1}}
    %0 = permute %a [1, 0] : tile<1x2xf32> -> tile<1x1xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<2xf32>) {
    // expected-error @below {{'cuda_tile.permute' op expects at least rank 2, but got: 1}}
    %0 = permute %a [0] : tile<2xf32> -> tile<2xf32>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<32xf16>) {
    // expected-error @below {{'cuda_tile.pack' op expects source and result to have the same size in bytes, but got source tile size 64 bytes and result tile size 32 bytes}}
    %0 = pack %a : tile<32xf16> -> tile<32xi8>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<32xi8>) {
    // expected-error @below {{'cuda_tile.unpack' op expects source and result to have different element type widths}}
    %0 = unpack %a : tile<32xi8> -> tile<32xf8E4M3FN>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<32x32xf16>) {
    // expected-error @below {{'cuda_tile.pack' op expects source and result to be rank-1 tiles}}
    %0 = pack %a : tile<32x32xf16> -> tile<32x64xi8>
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%a: tile<32xi8>) {
    // expected-error @below {{'cuda_tile.unpack' op result #0 must be tile of i1 or i8 or i16 or i32 or i64 or f16 or bf16 or f32 or f64 or tf32 or f8E4M3FN or f8E5M2 or f8E8M0FNU or f4E2M1FN or i4 values, but got '!cuda_tile.tile<4xptr<f32>>'}}
    %0 = unpack %a : tile<32xi8> -> tile<4xptr<f32>>
  }
}
