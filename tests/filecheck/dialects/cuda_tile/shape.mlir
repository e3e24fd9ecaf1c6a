// Tile rearrangement ops: cat, extract, permute, pack and unpack (13.3).
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

cuda_tile.module @kernels {
  // CHECK-LABEL: testing$func @shapes
  testing$func @shapes(%a: tile<2x4xf32>, %b: tile<2x4xf32>, %i: tile<i32>, %h: tile<64xf16>, %bytes: tile<32xi8>) {
    // CHECK: %0 = cat %arg0, %arg1 dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x8xf32>
    %0 = cat %a, %b dim = 1 : tile<2x4xf32>, tile<2x4xf32> -> tile<2x8xf32>
    // CHECK: %1 = cat %arg0, %arg1 dim = 0 {tag = 1 : i64} : tile<2x4xf32>, tile<2x4xf32> -> tile<4x4xf32>
    %1 = cat %a, %b dim = 0 {tag = 1} : !cuda_tile.tile<2x4xf32>, tile<2x4xf32> -> tile<4x4xf32>
    // CHECK: %2 = extract %arg0[%arg2, %arg2] : tile<2x4xf32> -> tile<1x2xf32>
    %2 = extract %a[%i, %i] : tile<2x4xf32> -> tile<1x2xf32>
    // CHECK: %3 = permute %arg0 [1, 0] : tile<2x4xf32> -> tile<4x2xf32>
    %3 = permute %a [1,0] : tile<2x4xf32> -> tile<4x2xf32>
    // CHECK: %4 = pack %arg3 : tile<64xf16> -> tile<128xi8>
    %4 = pack %h : tile<64xf16> -> tile<128xi8>
    // CHECK: %5 = unpack %arg4 : tile<32xi8> -> tile<64xf4E2M1FN>
    %5 = unpack %bytes : tile<32xi8> -> tile<64xf4E2M1FN>
    return
  }
}
