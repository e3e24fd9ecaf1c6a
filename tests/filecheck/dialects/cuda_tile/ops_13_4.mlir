// cuda_tile 13.4 forms that cuTile 1.7 writes: fpowf (13.3's pow), fpowi, and ftof with
// a directed rounding mode on narrowing conversions; their lowering to PTX.
// RUN: tileir-opt %s --split-input-file | filecheck %s
// RUN: tileir-opt %s --split-input-file --print-op-generic | tileir-opt --split-input-file | filecheck %s
// RUN: tileir-opt %s -p 'cuda-tile-to-ptx{arch=sm_80}' -t 'ptx{arch=sm_80}' -o %t.ptx
// RUN: filecheck %s --check-prefix=PTX --input-file %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// CHECK-LABEL: entry @pow_kernel
// CHECK: %[[P:.*]] = fpowf %{{.*}}, %{{.*}} : tile<64xf32>
// CHECK: %[[Q:.*]] = fpowi %[[P]], %{{.*}} : tile<64xf32>, tile<64xi32>
// CHECK: %[[H:.*]] = ftof %[[Q]] rounding<zero> : tile<64xf32> -> tile<64xf16>
// CHECK: ftof %[[Q]] rounding<negative_inf> : tile<64xf32> -> tile<64xbf16>
// CHECK: ftof %[[Q]] rounding<positive_inf> : tile<64xf32> -> tile<64xf16>
// PTX: .entry pow_kernel
// PTX: cvt.rz.f16.f32
// PTX: cvt.rm.bf16.f32
// PTX: cvt.rp.f16.f32
cuda_tile.module @m {
  entry @pow_kernel(%x: tile<ptr<f32>>, %n: tile<ptr<i32>>, %h: tile<ptr<f16>>, %g: tile<ptr<bf16>>, %u: tile<ptr<f16>>) {
    %iota = iota : tile<64xi32>
    %xr = reshape %x : tile<ptr<f32>> -> tile<1xptr<f32>>
    %xb = broadcast %xr : tile<1xptr<f32>> -> tile<64xptr<f32>>
    %xp = offset %xb, %iota : tile<64xptr<f32>>, tile<64xi32> -> tile<64xptr<f32>>
    %xv, %t0 = load_ptr_tko weak %xp : tile<64xptr<f32>> -> tile<64xf32>, token
    %nr = reshape %n : tile<ptr<i32>> -> tile<1xptr<i32>>
    %nb = broadcast %nr : tile<1xptr<i32>> -> tile<64xptr<i32>>
    %np = offset %nb, %iota : tile<64xptr<i32>>, tile<64xi32> -> tile<64xptr<i32>>
    %nv, %t1 = load_ptr_tko weak %np : tile<64xptr<i32>> -> tile<64xi32>, token
    %p = fpowf %xv, %xv : tile<64xf32>
    %q = fpowi %p, %nv : tile<64xf32>, tile<64xi32>
    %hv = ftof %q rounding<zero> : tile<64xf32> -> tile<64xf16>
    %gv = ftof %q rounding<negative_inf> : tile<64xf32> -> tile<64xbf16>
    %uv = ftof %q rounding<positive_inf> : tile<64xf32> -> tile<64xf16>
    %hr = reshape %h : tile<ptr<f16>> -> tile<1xptr<f16>>
    %hb = broadcast %hr : tile<1xptr<f16>> -> tile<64xptr<f16>>
    %hp = offset %hb, %iota : tile<64xptr<f16>>, tile<64xi32> -> tile<64xptr<f16>>
    %t2 = store_ptr_tko weak %hp, %hv : tile<64xptr<f16>>, tile<64xf16> -> token
    %gr = reshape %g : tile<ptr<bf16>> -> tile<1xptr<bf16>>
    %gb = broadcast %gr : tile<1xptr<bf16>> -> tile<64xptr<bf16>>
    %gp = offset %gb, %iota : tile<64xptr<bf16>>, tile<64xi32> -> tile<64xptr<bf16>>
    %t3 = store_ptr_tko weak %gp, %gv : tile<64xptr<bf16>>, tile<64xbf16> -> token
    %ur = reshape %u : tile<ptr<f16>> -> tile<1xptr<f16>>
    %ub = broadcast %ur : tile<1xptr<f16>> -> tile<64xptr<f16>>
    %up = offset %ub, %iota : tile<64xptr<f16>>, tile<64xi32> -> tile<64xptr<f16>>
    %t4 = store_ptr_tko weak %up, %uv : tile<64xptr<f16>>, tile<64xf16> -> token
    return
  }
}
