// Verifier rules of reduce and scan (valid cases in reductions.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same number of operands and results}}
    %0:2 = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>, tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield %a : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op region #0 ('body') failed to verify constraint: region with 1 blocks}}
    %0 = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    () {}
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{custom op 'cuda_tile.reduce' number of operands and types do not match: got 0 operands and 1 types}}
    %0 = reduce dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield %a : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect identities to match the number of operands but got: 1 operands and 2 identities}}
    %0 = reduce %x dim=0 identities=[0.0 : f32, 0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield %a : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect 0-rank tile type at index: 0 but got: '!cuda_tile.tile<1xf32>'}}
    %0 = reduce %x dim=0 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<1xf32>, %b: tile<f32>) {
      yield %b : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>, %y: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same type for operand at index: 0 and terminator argument at index: 0 but got: 'f32' and 'i32'}}
    %0:2 = reduce %x, %y dim=0 identities=[0.0 : f32, 0 : i32] : tile<8xf32>, tile<8xi32> -> tile<f32>, tile<i32>
    (%a: tile<f32>, %b: tile<f32>, %c: tile<i32>, %d: tile<i32>) {
      yield %c, %d : tile<i32>, tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>, %y: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.reduce' op expect same type for operand at index: 1 and identity at index: 1 but got: 'i32' and 'f32'}}
    %0:2 = reduce %x, %y dim=0 identities=[0.0 : f32, 0.0 : f32] : tile<8xf32>, tile<8xi32> -> tile<f32>, tile<i32>
    (%a: tile<f32>, %b: tile<f32>, %c: tile<i32>, %d: tile<i32>) {
      yield %a, %c : tile<f32>, tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>, %y: tile<8xi32>) {
    // expected-error @below {{'cuda_tile.reduce' op inferred type(s) '!cuda_tile.tile<f32>', '!cuda_tile.tile<i32>' are incompatible with return type(s) of operation '!cuda_tile.tile<1xf32>', '!cuda_tile.tile<i32>'}}
    // expected-error @below {{'cuda_tile.reduce' op failed to infer returned types}}
    %0:2 = reduce %x, %y dim=0 identities=[0.0 : f32, 0 : i32] : tile<8xf32>, tile<8xi32> -> tile<1xf32>, tile<i32>
    (%a: tile<f32>, %b: tile<f32>, %c: tile<i32>, %d: tile<i32>) {
      yield %a, %c : tile<f32>, tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.reduce' op attribute 'dim' failed to satisfy constraint: 32-bit signless integer attribute whose value is non-negative}}
    %0 = reduce %x dim=-1 identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield %a : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.scan' op dimension (3) is out of bound [0, 1)}}
    %0 = scan %x dim=3 reverse=false identities=[0.0 : f32] : tile<8xf32> -> tile<8xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield %a : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>, %y: tile<16xi32>) {
    // expected-error @below {{'cuda_tile.scan' op requires the same shape for all operands}}
    %0:2 = scan %x, %y dim=0 reverse=false identities=[0.0 : f32, 0 : i32] : tile<8xf32>, tile<16xi32> -> tile<8xf32>, tile<16xi32>
    (%a: tile<f32>, %b: tile<f32>, %c: tile<i32>, %d: tile<i32>) {
      yield %a, %c : tile<f32>, tile<i32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    // expected-error @below {{'cuda_tile.scan' op expect same type for operand at index: 0 and result at index: 0}}
    %0 = scan %x dim=0 reverse=false identities=[0.0 : f32] : tile<8xf32> -> tile<f32>
    (%a: tile<f32>, %b: tile<f32>) {
      yield %a : tile<f32>
    }
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%x: tile<8xf32>) {
    %0 = scan %x dim=0 reverse=false identities=[0.0 : f32] : tile<8xf32> -> tile<8xf32>
    (%a: tile<f32>, %b: tile<f32>) {
      // expected-error @below {{'cuda_tile.print_tko' op only pure operations are allowed inside 'cuda_tile.scan'}}
      %t = print_tko "step" -> token
      yield %a : tile<f32>
    }
  }
}
