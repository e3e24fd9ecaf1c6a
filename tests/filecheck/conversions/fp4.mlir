// f4E2M1FN (4-bit floats): `unpack` of bytes to f4E2M1FN and `pack` back are
// `reinterpret`s that convert-tileas-to-llvm carries out through shared memory with
// one byte per f4 element (slices.py): a byte's low nibble is element 2i, its high
// nibble element 2i+1.  An f4 element is its 4 bits in an i8 register; `ftof` from it
// places the fields in an f32 and scales by 2^126 (exact), `ftof` to it rounds to
// nearest-even and saturates to +-6 with integer operations (fp8.py), on every target.
// mmaf_scaled on f4 operands takes the bf16 path of 8-bit floats (scaled_mma.py): one
// bf16 dot per 16-wide K group with f8E4M3FN scales.  Values are checked in
// tests/pytest/test_fp8_codegen.py and the mma_scaled_f4 corpus kernel.
// RUN: tileir-opt %s -p convert-cuda-tile-to-tileaa | filecheck %s --check-prefix=LIFT
// RUN: tileir-as %s --gpu-name sm_90a --emit=llvm -o %t.ll
// RUN: filecheck %s --check-prefix=LLVM --input-file=%t.ll
// RUN: tileir-as %s --gpu-name sm_80 -o %t.ptx
// RUN: ptxas -arch=sm_80 %t.ptx -o %t.cubin

// LIFT-LABEL: func.func @scaled
// LIFT: %u = cuda_tile.unpack %bytes : tensor<512xi8> -> tensor<1024xf4E2M1FN>
// LIFT-NOT: mmaf_scaled
// LIFT: %[[A0:.*]] = nv_tileaa.extract %a[%{{.*}}, %{{.*}}] : tensor<16x64xf4E2M1FN> -> tensor<16x16xf4E2M1FN>
// LIFT: cuda_tile.ftof %[[A0]]  : tensor<16x16xf4E2M1FN> -> tensor<16x16xf32>
// LIFT: nv_tileaa.extract %sa[%{{.*}}, %{{.*}}] : tensor<16x4xf8E4M3FN> -> tensor<16x1xf8E4M3FN>
// LIFT: %[[D0:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %c : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf32>
// LIFT: %[[D1:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[D0]]
// LIFT: %[[D2:.*]] = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[D1]]
// LIFT: %r = nv_tileaa.dot %{{.*}}, %{{.*}}, %[[D2]] : tensor<16x16xbf16>, tensor<16x16xbf16>, tensor<16x16xf32>
// LIFT-NOT: nv_tileaa.dot
// LIFT-LABEL: func.func @narrow
// LIFT: %y = cuda_tile.ftof %xb  : tensor<2xf32> -> tensor<2xf4E2M1FN>
// LIFT: %z = cuda_tile.pack %y : tensor<2xf4E2M1FN> -> tensor<1xi8>

// The unpack: each byte's low nibble at twice its index, its high nibble after it.
// LLVM-LABEL: llvm.func @scaled
// LLVM: %[[MASK:.*]] = llvm.mlir.constant(15 : i8) : i8
// LLVM: %[[LO:.*]] = llvm.and %bytes.0, %[[MASK]] : i8
// LLVM: %[[FOUR:.*]] = llvm.mlir.constant(4 : i8) : i8
// LLVM: %[[HI:.*]] = llvm.lshr %bytes.0, %[[FOUR]] : i8
// LLVM: llvm.store %[[LO]], %{{.*}} : i8, !llvm.ptr<3>
// LLVM: llvm.store %[[HI]], %{{.*}} : i8, !llvm.ptr<3>
// LLVM: nvvm.barrier0
// Widening: sign bit 8 moved to bit 31, magnitude << 22, times 2^126.
// LLVM: llvm.mlir.constant(28 : i32) : i32
// LLVM: llvm.mlir.constant(22 : i32) : i32
// LLVM: llvm.mlir.constant(8.50705917e+37 : f32) : f32
// LLVM: llvm.fmul %{{.*}}, %{{.*}} : f32
// LLVM-NOT: e2m1
// Narrowing: magnitudes from 7.0 (0x40E00000) saturate to code 7 (6.0), NaN too.
// LLVM-LABEL: llvm.func @narrow
// LLVM: llvm.call_intrinsic "llvm.umin.i32"
// LLVM: llvm.mlir.constant(1088421888 : i32) : i32
// LLVM: %[[SAT:.*]] = llvm.mlir.constant(7 : i32) : i32
// LLVM: %[[NAN:.*]] = llvm.icmp "ugt" %{{.*}}, %{{.*}} : i32
// LLVM: llvm.select %[[NAN]], %[[SAT]], %{{.*}} : i1, i32
// LLVM: %y.0 = llvm.trunc %{{.*}} : i32 to i8
// The pack: the two nibbles of a byte read back and joined.
// LLVM: nvvm.barrier0
// LLVM: %[[L:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// LLVM: %[[H:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// LLVM: %[[LM:.*]] = llvm.and %[[L]], %{{.*}} : i8
// LLVM: %[[HS:.*]] = llvm.shl %[[H]], %{{.*}} : i8
// LLVM: %z.0 = llvm.or %[[LM]], %[[HS]] : i8
// LLVM-NOT: e2m1
// LLVM-LABEL: llvm.return
cuda_tile.module @m {
  entry @scaled(%i: tile<ptr<i8>>, %o: tile<ptr<f32>>) {
    %pi = reshape %i : tile<ptr<i8>> -> tile<1xptr<i8>>
    %off = iota : tile<512xi32>
    %pb = broadcast %pi : tile<1xptr<i8>> -> tile<512xptr<i8>>
    %ps = offset %pb, %off : tile<512xptr<i8>>, tile<512xi32> -> tile<512xptr<i8>>
    %bytes, %t0 = load_ptr_tko weak %ps : tile<512xptr<i8>> -> tile<512xi8>, token
    %u = unpack %bytes : tile<512xi8> -> tile<1024xf4E2M1FN>
    %a = reshape %u : tile<1024xf4E2M1FN> -> tile<16x64xf4E2M1FN>
    %b = reshape %u : tile<1024xf4E2M1FN> -> tile<64x16xf4E2M1FN>
    %c = constant <f32: 0.0> : tile<16x16xf32>
    %sa = constant <f8E4M3FN: 1.5> : tile<16x4xf8E4M3FN>
    %sb = constant <f8E4M3FN: -0.5> : tile<4x16xf8E4M3FN>
    %r = mmaf_scaled %a, %b, %c, %sa, %sb : tile<16x64xf4E2M1FN>, tile<64x16xf4E2M1FN>, tile<16x16xf32>, tile<16x4xf8E4M3FN>, tile<4x16xf8E4M3FN>
    %p = reshape %o : tile<ptr<f32>> -> tile<1x1xptr<f32>>
    %pb2 = broadcast %p : tile<1x1xptr<f32>> -> tile<16x16xptr<f32>>
    %t = store_ptr_tko weak %pb2, %r : tile<16x16xptr<f32>>, tile<16x16xf32> -> token
    return
  }
  entry @narrow(%i: tile<ptr<f32>>, %o: tile<ptr<i8>>) {
    %x, %t0 = load_ptr_tko weak %i : tile<ptr<f32>> -> tile<f32>, token
    %x1 = reshape %x : tile<f32> -> tile<1xf32>
    %xb = broadcast %x1 : tile<1xf32> -> tile<2xf32>
    %y = ftof %xb : tile<2xf32> -> tile<2xf4E2M1FN>
    %z = pack %y : tile<2xf4E2M1FN> -> tile<1xi8>
    %zs = reshape %z : tile<1xi8> -> tile<i8>
    %t1 = store_ptr_tko weak %o, %zs : tile<ptr<i8>>, tile<i8> -> token
    return
  }
}
