// tf32: `ftof` to tf32 rounds the f32 bits with integer operations (nearest even, the
// default) or `cvt.rna.tf32.f32` (`rounding<nearest_away>`, cuda_tile 13.4, bytecode
// value 7 as cuTile writes it), and a tf32 `mmaf` lifts to `nv_tileaa.dot` and runs on
// `mma.sync` m16n8k8 (sm_80: A by `ldmatrix.x4`, B written N x K and read by a plain
// `ldmatrix.x2`) or `wgmma` m64n32k8 (sm_90a: both operands K-major, scale immediates
// only).  tileir/conversions/tileas_to_llvm/tf32.py, mma.py, wgmma.py; values in
// tests/pytest/test_tf32_codegen.py.
// RUN: tileir-opt %s | filecheck %s --check-prefix=ROUND
// RUN: tileir-opt %s -t tileirbc -o %t.tileirbc && tileir-opt %t.tileirbc | filecheck %s --check-prefix=ROUND
// RUN: tileir-opt %s -p convert-cuda-tile-to-tileaa | filecheck %s --check-prefix=LIFT
// RUN: tileir-as %s --gpu-name sm_80 -o %t80.ptx
// RUN: filecheck %s --check-prefix=SM80 --input-file=%t80.ptx
// RUN: %ptxas -arch=sm_80 %t80.ptx -o %t80.cubin
// RUN: tileir-as %s --gpu-name sm_90a -o %t90.ptx
// RUN: filecheck %s --check-prefix=SM90 --input-file=%t90.ptx
// RUN: %ptxas -arch=sm_90a %t90.ptx -o %t90.cubin

// ROUND: %[[A:.*]] = ftof %{{.*}} rounding<nearest_away> : tile<64x32xf32> -> tile<64x32xtf32>
// ROUND: %[[B:.*]] = ftof %{{.*}}  : tile<32x32xf32> -> tile<32x32xtf32>
// ROUND: mmaf %[[A]], %[[B]], %{{.*}} : tile<64x32xtf32>, tile<32x32xtf32>, tile<64x32xf32>

// LIFT: %ra = cuda_tile.ftof %{{.*}} rounding<nearest_away> : tensor<64x32xf32> -> tensor<64x32xtf32>
// LIFT: %rb = cuda_tile.ftof %{{.*}}  : tensor<32x32xf32> -> tensor<32x32xtf32>
// LIFT: %r = nv_tileaa.dot %ra, %rb, %{{.*}} : tensor<64x32xtf32>, tensor<32x32xtf32>, tensor<64x32xf32>

// SM80: cvt.rna.tf32.f32
// SM80: 4095
// SM80: 4294959104
// SM80: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM80: ldmatrix.sync.aligned.m8n8.x2.shared.b16
// SM80-NOT: .trans
// SM80: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// SM80-NOT: wgmma

// SM90: cvt.rna.tf32.f32
// SM90: fence.proxy.async.shared::cta;
// SM90: wgmma.mma_async.sync.aligned.m64n32k8.f32.tf32.tf32 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, 1, 1, 1;
// SM90-NOT: mma.sync
// SM90-NOT: ldmatrix
cuda_tile.module @m {
  entry @tf32_dot(%a: tile<ptr<f32>>, %b: tile<ptr<f32>>, %c: tile<ptr<f32>>) {
    %z = constant <i32: 0> : tile<i32>
    %tva = make_tensor_view %a, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf32, strides=[32,1]>
    %pva = make_partition_view %tva : partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>
    %tvb = make_tensor_view %b, shape = [32, 32], strides = [32, 1] : tensor_view<32x32xf32, strides=[32,1]>
    %pvb = make_partition_view %tvb : partition_view<tile=(32x32), tensor_view<32x32xf32, strides=[32,1]>>
    %tvc = make_tensor_view %c, shape = [64, 32], strides = [32, 1] : tensor_view<64x32xf32, strides=[32,1]>
    %pvc = make_partition_view %tvc : partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>
    %xa, %ta = load_view_tko weak %pva[%z, %z] : partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>, tile<i32> -> tile<64x32xf32>, token
    %xb, %tb = load_view_tko weak %pvb[%z, %z] : partition_view<tile=(32x32), tensor_view<32x32xf32, strides=[32,1]>>, tile<i32> -> tile<32x32xf32>, token
    %xc, %tc = load_view_tko weak %pvc[%z, %z] : partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>, tile<i32> -> tile<64x32xf32>, token
    %ra = ftof %xa rounding<nearest_away> : tile<64x32xf32> -> tile<64x32xtf32>
    %rb = ftof %xb : tile<32x32xf32> -> tile<32x32xtf32>
    %r = mmaf %ra, %rb, %xc : tile<64x32xtf32>, tile<32x32xtf32>, tile<64x32xf32>
    %s = store_view_tko weak %r, %pvc[%z, %z] : tile<64x32xf32>, partition_view<tile=(64x32), tensor_view<64x32xf32, strides=[32,1]>>, tile<i32> -> token
    return
  }
}
