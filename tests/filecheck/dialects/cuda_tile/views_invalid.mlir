// Verifier rules of the views and view accesses (valid cases in views.mlir and
// strided_views.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

cuda_tile.module @m {
  // expected-error @below {{expected 2 traversal strides, got 1}}
  testing$func @f(%v: strided_view<tile=(4x4), traversal_strides=[4], tensor_view<16x16xf32, strides=[16,1]>>) {
  }
}

// -----

cuda_tile.module @m {
  // expected-error @below {{traversal strides must be strictly positive but got [1, 0]}}
  testing$func @f(%v: strided_view<tile=(4x4), traversal_strides=[1,0], tensor_view<16x16xf32, strides=[16,1]>>) {
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%v: gather_scatter_view<tile=(4x16), tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>, %i: tile<8xi32>, %c: tile<i32>) {
    // expected-error @below {{expected gather/scatter index size (8) to match tile shape at gather/scatter dimension}}
    %t, %tok = load_view_tko weak %v[%i, %c] : gather_scatter_view<tile=(4x16), tensor_view<64x64xf32, strides=[64,1]>, sparse_dim=0>, tile<8xi32>, tile<i32> -> tile<4x16xf32>, token
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%v: partition_view<tile=(2x2), tensor_view<2x2xi32, strides=[2,1]>>, %x: tile<2x2xi32>) {
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @below {{atomic_red_view_tko op cannot use xchg operation}}
    %t = atomic_red_view_tko relaxed device %v[%c0, %c0], xchg, %x : tile<2x2xi32>, partition_view<tile=(2x2), tensor_view<2x2xi32, strides=[2,1]>>, tile<i32> -> token
  }
}

// -----

cuda_tile.module @m {
  testing$func @f(%v: partition_view<tile=(2x2), tensor_view<2x2xi32, strides=[2,1]>>, %x: tile<2x2xi32>) {
    %c0 = constant <i32: 0> : tile<i32>
    // expected-error @below {{expected 2 index operand(s) for view with tile rank 2, got 1}}
    %t = atomic_red_view_tko relaxed device %v[%c0], add, %x : tile<2x2xi32>, partition_view<tile=(2x2), tensor_view<2x2xi32, strides=[2,1]>>, tile<i32> -> token
  }
}

// -----

cuda_tile.module @m {
  entry @e(%t: tensor_view<?x4096xf64, strides=[4096,1]>) {
    // expected-error @below {{expected 'tensor_view' type, but got '!cuda_tile.partition_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>>'}}
    %v = make_strided_view %t : strided_view<tile=(4x4), traversal_strides=[4,4], partition_view<tile=(4x4), tensor_view<16x16xf32, strides=[16,1]>>>
  }
}
