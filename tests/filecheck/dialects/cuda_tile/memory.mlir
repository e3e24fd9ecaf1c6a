// Matrix multiply-accumulate, pointer loads and stores, tokens, atomics and alloca.
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

cuda_tile.module @kernels {
  // CHECK-LABEL: testing$func @mma
  testing$func @mma(%a: tile<16x32xf16>, %b: tile<32x8xf16>, %c: tile<16x8xf32>, %i: tile<16x32xi8>, %j: tile<32x8xi8>, %k: tile<16x8xi32>,
                    %fa: tile<16x64xf8E4M3FN>, %fb: tile<64x8xf8E4M3FN>, %sa: tile<16x2xf8E8M0FNU>, %sb: tile<2x8xf8E8M0FNU>) {
    // CHECK: %0 = mmaf %arg0, %arg1, %arg2 : tile<16x32xf16>, tile<32x8xf16>, tile<16x8xf32>
    %0 = mmaf %a, %b, %c : tile<16x32xf16>, tile<32x8xf16>, tile<16x8xf32>
    // CHECK: %1 = mmaf %arg6, %arg7, %arg2 fast_acc : tile<16x64xf8E4M3FN>, tile<64x8xf8E4M3FN>, tile<16x8xf32>
    %1 = mmaf %fa, %fb, %c fast_acc : tile<16x64xf8E4M3FN>, tile<64x8xf8E4M3FN>, tile<16x8xf32>
    // CHECK: %2 = mmai %arg3, %arg4, %arg5 signed unsigned : tile<16x32xi8>, tile<32x8xi8>, tile<16x8xi32>
    %2 = mmai %i, %j, %k signed unsigned : tile<16x32xi8>, tile<32x8xi8>, tile<16x8xi32>
    // CHECK: %3 = mmaf_scaled %arg6, %arg7, %arg2, %arg8, %arg9 : tile<16x64xf8E4M3FN>, tile<64x8xf8E4M3FN>, tile<16x8xf32>, tile<16x2xf8E8M0FNU>, tile<2x8xf8E8M0FNU>
    %3 = mmaf_scaled %fa, %fb, %c, %sa, %sb : tile<16x64xf8E4M3FN>, tile<64x8xf8E4M3FN>, tile<16x8xf32>, tile<16x2xf8E8M0FNU>, tile<2x8xf8E8M0FNU>
    return
  }
  // CHECK-LABEL: testing$func @memory
  testing$func @memory(%p: tile<ptr<f32>>, %ps: tile<8xptr<f32>>, %v: tile<8xf32>, %m: tile<8xi1>, %ip: tile<8xptr<i32>>, %iv: tile<8xi32>) {
    // CHECK: %0 = make_token : token
    %t0 = make_token : token
    // CHECK: %result, %result_token = load_ptr_tko weak %arg1 token=%0 : tile<8xptr<f32>> -> tile<8xf32>, token
    %x, %t1 = load_ptr_tko weak %ps token=%t0 : tile<8xptr<f32>> -> tile<8xf32>, token
    // CHECK: %result_0, %result_token_1 = load_ptr_tko acquire device %arg1, %arg3, %arg2 : tile<8xptr<f32>>, tile<8xi1>, tile<8xf32> -> tile<8xf32>, token
    %y, %t2 = load_ptr_tko acquire device %ps, %m, %v : tile<8xptr<f32>>, tile<8xi1>, tile<8xf32> -> tile<8xf32>, token
    // CHECK: %1 = store_ptr_tko release sys %arg1, %arg2, %arg3 token=%result_token : tile<8xptr<f32>>, tile<8xf32>, tile<8xi1> -> token
    %t3 = store_ptr_tko release sys %ps, %v, %m token=%t1 : tile<8xptr<f32>>, tile<8xf32>, tile<8xi1> -> token
    // CHECK: %2 = join_tokens %result_token_1, %1 : token
    %t4 = join_tokens %t2, %t3 : token
    // CHECK: %result_2, %result_token_3 = atomic_rmw_tko relaxed device %arg4, add, %arg5 token=%2 : tile<8xptr<i32>>, tile<8xi32> -> tile<8xi32>, token
    %o, %t5 = atomic_rmw_tko relaxed device %ip, add, %iv token=%t4 : tile<8xptr<i32>>, tile<8xi32> -> tile<8xi32>, token
    // CHECK: %result_4, %result_token_5 = atomic_cas_tko acq_rel tl_blk %arg4, %arg5, %arg5, %arg3 : tile<8xptr<i32>>, tile<8xi32>, tile<8xi1> -> tile<8xi32>, token
    %q, %t6 = atomic_cas_tko acq_rel tl_blk %ip, %iv, %iv, %m : tile<8xptr<i32>>, tile<8xi32>, tile<8xi1> -> tile<8xi32>, token
    // CHECK: %3 = alloca num_elem = 64, alignment = 16 : tile<ptr<f32>>
    %a = alloca num_elem = 64, alignment = 16 : tile<ptr<f32>>
    // CHECK: %4 = alloca num_elem = 64, alignment = 16 global : tile<ptr<f32>>
    %g = alloca num_elem = 64, alignment = 16 global : tile<ptr<f32>>
    return
  }
}
