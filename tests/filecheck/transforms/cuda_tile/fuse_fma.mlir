// fuse-fma (tileir/transforms/cuda_tile/fuse_fma.py): multiply-add and multiply-subtract
// become fma where the product has one use and both ops round alike.
// RUN: tileir-opt %s -p fuse-fma --split-input-file | filecheck %s

// CHECK-LABEL: @mul_add
// CHECK-NEXT: %[[F:.*]] = fma %arg0, %arg1, %arg2 : tile<4xf32>
// CHECK-NEXT: return %[[F]]
cuda_tile.module @m {
  testing$func @mul_add(%arg0: tile<4xf32>, %arg1: tile<4xf32>, %arg2: tile<4xf32>) -> tile<4xf32> {
    %m = mulf %arg0, %arg1 : tile<4xf32>
    %a = addf %m, %arg2 : tile<4xf32>
    return %a : tile<4xf32>
  }
}

// -----

// The product on the right is moved left first; rounding and flush_to_zero are kept.
// CHECK-LABEL: @add_mul
// CHECK-NEXT: %[[F:.*]] = fma %arg0, %arg1, %arg2 rounding<zero> flush_to_zero : tile<4xf32>
// CHECK-NEXT: return %[[F]]
cuda_tile.module @m {
  testing$func @add_mul(%arg0: tile<4xf32>, %arg1: tile<4xf32>, %arg2: tile<4xf32>) -> tile<4xf32> {
    %m = mulf %arg0, %arg1 rounding<zero> flush_to_zero : tile<4xf32>
    %a = addf %arg2, %m rounding<zero> flush_to_zero : tile<4xf32>
    return %a : tile<4xf32>
  }
}

// -----

// a * b - c is fma(a, b, -c).
// CHECK-LABEL: @mul_sub
// CHECK-NEXT: %[[N:.*]] = negf %arg2 : tile<4xf16>
// CHECK-NEXT: %[[F:.*]] = fma %arg0, %arg1, %[[N]] : tile<4xf16>
// CHECK-NEXT: return %[[F]]
cuda_tile.module @m {
  testing$func @mul_sub(%arg0: tile<4xf16>, %arg1: tile<4xf16>, %arg2: tile<4xf16>) -> tile<4xf16> {
    %m = mulf %arg0, %arg1 : tile<4xf16>
    %s = subf %m, %arg2 : tile<4xf16>
    return %s : tile<4xf16>
  }
}

// -----

// Blocked: the product has another use; rounding modes differ; flush_to_zero differs;
// c - a * b (the product on the right of a subtraction).
// CHECK-LABEL: @blocked
// CHECK-NOT: fma
// CHECK: return
cuda_tile.module @m {
  testing$func @blocked(%arg0: tile<4xf32>, %arg1: tile<4xf32>, %arg2: tile<4xf32>)
      -> (tile<4xf32>, tile<4xf32>, tile<4xf32>, tile<4xf32>, tile<4xf32>) {
    %m = mulf %arg0, %arg1 : tile<4xf32>
    %a = addf %m, %arg2 : tile<4xf32>
    %n = mulf %arg0, %arg1 rounding<zero> : tile<4xf32>
    %b = addf %n, %arg2 : tile<4xf32>
    %o = mulf %arg0, %arg1 flush_to_zero : tile<4xf32>
    %c = addf %o, %arg2 : tile<4xf32>
    %p = mulf %arg0, %arg1 : tile<4xf32>
    %d = subf %arg2, %p : tile<4xf32>
    return %a, %m, %b, %c, %d : tile<4xf32>, tile<4xf32>, tile<4xf32>, tile<4xf32>, tile<4xf32>
  }
}
