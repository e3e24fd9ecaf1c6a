// tileas-pipeline-dot-operands: an f32 tile that its dot reads as tf32 (cuTile's
// astype(ct.tfloat32) before ct.mma: ftof f32 -> tf32 of the load, the operand's only use)
// is fed like a plain load: the f32 tile goes through the ring, and the ftof stays between
// the future's wait and the dot, marked nv_tileas.rounded_in_shared: the lowering rounds
// the stage where it landed (each thread its own words, in the op's rounding mode) before
// the barrier the dot already has.  B, K x N with N contiguous, is copied one element at a
// time into its N x K buffer.  On sm_90a in one agent the ring is under mbarriers: the
// rounding follows the wait on the slot's full mbarrier, each thread fences its rounded
// words for the async proxy after the last rounding, and the dot keeps its CTA barrier,
// which orders them before the wgmma reads them.
// (The kernels ask for one CTA an SM: without a hint their 64x64 accumulators would have
// them compiled for 3, `small_accumulator_occupancy`, with a ring of 2 stages in one
// agent.)
// RUN: tileir-opt %s -p 'cuda-tile-to-ptx{arch=sm_90a warp-specialize=false}' --print-ir-after=tileas-pipeline-dot-operands 2>&1 >/dev/null | filecheck %s --check-prefix=TILEAS
// RUN: tileir-opt %s -p 'cuda-tile-to-ptx{arch=sm_90a warp-specialize=false}' -t ptx | tee %t.90.ptx | filecheck %s --check-prefix=PTX90
// RUN: %ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin
// RUN: tileir-as %s --gpu-name sm_90a --emit=tileas --line-width 0 | filecheck %s --check-prefix=AGENTS
// RUN: tileir-as %s --gpu-name sm_90a -o %t.90ws.ptx
// RUN: %ptxas -arch=sm_90a %t.90ws.ptx -o %t.90ws.cubin
// RUN: tileir-as %s --gpu-name sm_80 --emit=ptx | tee %t.80.ptx | filecheck %s --check-prefix=PTX80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: tileir-as %s --gpu-name sm_100a --emit=tileas --line-width 0 | filecheck %s --check-prefix=SM100
// RUN: tileir-as %s --gpu-name sm_100a --emit=ptx | tee %t.100.ptx | filecheck %s --check-prefix=PTX100
// RUN: %ptxas -arch=sm_100a %t.100.ptx -o %t.100.cubin

// TILEAS-LABEL: func.func @tf32_gemm
// TILEAS: nv_tileas.async.tiled_load {{.*}}atom = #nv_tileas<atom cp_async_128b>{{.*}}nv_tileas.stage = 0 : i32} : !nv_tileas.tiled_view<64x32xf32, gmem>
// TILEAS-NEXT: nv_tileas.async.tiled_load {{.*}}atom = #nv_tileas<atom cp_async_128b>{{.*}}nv_tileas.stage = 0 : i32} : !nv_tileas.tiled_view<32x64xf32, gmem>
// TILEAS: scf.for
// TILEAS: %[[A32:.*]] = nv_tileas.async.future_wait %{{.*}} : !async.value<tensor<64x32xf32, #{{.*}}>> -> tensor<64x32xf32
// TILEAS: %[[B32:.*]] = nv_tileas.async.future_wait %{{.*}} : !async.value<tensor<32x64xf32, #{{.*}}>> -> tensor<32x64xf32
// TILEAS: %[[A:.*]] = cuda_tile.ftof %[[A32]] {nv_tileas.rounded_in_shared} : tensor<64x32xf32, {{.*}}> -> tensor<64x32xtf32
// TILEAS: %[[B:.*]] = cuda_tile.ftof %[[B32]] {nv_tileas.rounded_in_shared} : tensor<32x64xf32, {{.*}}> -> tensor<32x64xtf32
// TILEAS: nv_tileas.dot %[[A]], %[[B]], %{{.*}} {nv_tileas.ring_mbarriers, nv_tileas.groups_in_flight = 1 : i32, nv_tileas.operand_feed = ["operands through a 3-stage ring of cp.async copies under mbarriers, 1 wgmma group in flight", "A: f32 through the ring, rounded to tf32 in shared memory", "B: f32 through the ring, rounded to tf32 in shared memory, one 4-byte cp.async an element into its N x K buffer", "one agent of 4 warps", "32 accumulator registers a thread"]
// TILEAS: nv_tileas.async.wait
// The rounding mode is the op's: rounding<zero> only clears the low 13 bits (from sm_90
// cvt.rz.tf32.f32; nearest even cvt.rn.tf32.f32, one instruction a word: on sm_80 the
// integer form, 0xfff and the lowest kept bit added, the low 13 bits cleared).
// TILEAS-LABEL: func.func @tf32_gemm_toward_zero
// TILEAS: cuda_tile.ftof %{{.*}} rounding<zero> {nv_tileas.rounded_in_shared}

// PTX90-LABEL: .entry tf32_gemm(
// PTX90: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, t_n;
// PTX90: cp.async.ca.shared.global [%r{{[0-9]+}}], [%rd[[P:[0-9]+]]+0], 4, t_n;
// PTX90: cp.async.ca.shared.global [%r{{[0-9]+}}], [%rd[[P]]+4], 4, t_n;
// PTX90-NOT: cp.async.commit_group
// PTX90: cp.async.mbarrier.arrive.shared::cta.b64
// PTX90-NEXT: }
// PTX90-NEXT: {
// PTX90-NEXT: mbarrier.arrive.shared::cta.b64 _,
// The loop: the slot's full mbarrier (A's, then B's), then the rounding; no wait_group.
// PTX90-NOT: cp.async.wait_group
// PTX90: mbarrier.try_wait.parity.shared::cta.b64
// PTX90-NOT: cp.async.wait_group
// PTX90: mbarrier.try_wait.parity.shared::cta.b64
// PTX90-NOT: cp.async.wait_group
// PTX90: ld.shared.v4.b32
// PTX90: cvt.rn.tf32.f32
// PTX90-NOT: 4095
// PTX90: st.shared.v4.b32
// PTX90: ld.shared.b32
// PTX90: st.shared.b32
// PTX90: fence.proxy.async.shared::cta;
// PTX90: bar.sync 0;
// PTX90: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// PTX90-LABEL: .entry tf32_gemm_toward_zero(
// PTX90: mbarrier.try_wait.parity.shared::cta.b64
// PTX90-NOT: 4095
// PTX90: cvt.rz.tf32.f32
// PTX90-NOT: 4095
// PTX90: bar.sync 0;

// Warp-specialized (sm_90a's default): the consumer rounds the stage after its full
// mbarrier; the remark says so.
// AGENTS: nv_tileas.async.pipeline.consumer_read
// AGENTS: cuda_tile.ftof {{.*}}{nv_tileas.rounded_in_shared}
// AGENTS: nv_tileas.dot {{.*}}"operands through a 9-stage mbarrier pipeline of cp.async copies, 1 wgmma group in flight", "A: f32 through the ring, rounded to tf32 in shared memory", "B: f32 through the ring, rounded to tf32 in shared memory, one 4-byte cp.async an element into its N x K buffer", "two agents of 4 warps

// PTX80-LABEL: .entry tf32_gemm(
// PTX80: cp.async.ca.shared.global
// PTX80: ld.shared.v4.b32
// PTX80: st.shared.v4.b32
// PTX80: bar.sync 0;
// PTX80-NEXT: ldmatrix
// PTX80: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

// sm_100a (tcgen05): the same rings, rounded where they land; tcgen05.mma reads the slot
// through the async proxy, so every rounding thread fences it (the dot's fence.proxy.async)
// before the CTA barrier between the tcgen05 fences, after which one thread issues the MMAs.
// B is K-major (N x K) as on the synchronous path: one 4-byte copy an element.
// SM100: nv_tileas.dot {{.*}}"operands through a 3-stage ring of cp.async copies", "A: f32 through the ring, rounded to tf32 in shared memory", "B: f32 through the ring, rounded to tf32 in shared memory, one 4-byte cp.async an element into its N x K buffer"

// PTX100-LABEL: .entry tf32_gemm(
// PTX100: cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, t_n;
// PTX100: cp.async.ca.shared.global [%r{{[0-9]+}}], [%rd[[P:[0-9]+]]+0], 4, t_n;
// PTX100: cp.async.ca.shared.global [%r{{[0-9]+}}], [%rd[[P]]+4], 4, t_n;
// PTX100: cp.async.wait_group 2;
// PTX100: ld.shared.v4.b32
// PTX100: cvt.rn.tf32.f32
// PTX100-NOT: 4095
// PTX100: st.shared.v4.b32
// PTX100: ld.shared.b32
// PTX100: st.shared.b32
// PTX100: fence.proxy.async.shared::cta;
// PTX100-NOT: tcgen05.mma
// PTX100: tcgen05.fence::before_thread_sync;
// PTX100-NEXT: bar.sync 0;
// PTX100-NEXT: tcgen05.fence::after_thread_sync;
// PTX100-NEXT: tcgen05.mma.cta_group::1.kind::tf32
// PTX100: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// PTX100-LABEL: .entry tf32_gemm_toward_zero(
// PTX100: cp.async.wait_group 2;
// PTX100-NOT: 4095
// PTX100: cvt.rz.tf32.f32
// PTX100-NOT: 4095
// PTX100: tcgen05.mma.cta_group::1.kind::tf32

cuda_tile.module @tf32_rings {
  entry @tf32_gemm(%a0: tile<ptr<f32>>, %b0: tile<ptr<f32>>, %c0: tile<ptr<f32>>, %m: tile<i32>, %n0: tile<i32>, %k_tiles: tile<i32>) optimization_hints=<default = {occupancy = 1}> {
    %n = assume div_by<4>, %n0 : tile<i32>
    %a = assume div_by<16>, %a0 : tile<ptr<f32>>
    %b = assume div_by<16>, %b0 : tile<ptr<f32>>
    %c = assume div_by<16>, %c0 : tile<ptr<f32>>
    %av = make_tensor_view %a, shape = [%m, 256], strides = [256, 1] : tile<i32> -> tensor_view<?x256xf32, strides=[256,1]>
    %bv = make_tensor_view %b, shape = [256, %n], strides = [%n, 1] : tile<i32> -> tensor_view<256x?xf32, strides=[?,1]>
    %cv = make_tensor_view %c, shape = [%m, %n], strides = [%n, 1] : tile<i32> -> tensor_view<?x?xf32, strides=[?,1]>
    %ap = make_partition_view %av : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x256xf32, strides=[256,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(32x64), padding_value = zero, tensor_view<256x?xf32, strides=[?,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %init = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = for %k in (%zero to %k_tiles, step %one) : tile<i32> iter_values(%sum = %init) -> (tile<64x64xf32>) {
      %x, %t0 = load_view_tko weak %ap[%zero, %k] : partition_view<tile=(64x32), padding_value = zero, tensor_view<?x256xf32, strides=[256,1]>>, tile<i32> -> tile<64x32xf32>, token
      %y, %t1 = load_view_tko weak %bp[%k, %zero] : partition_view<tile=(32x64), padding_value = zero, tensor_view<256x?xf32, strides=[?,1]>>, tile<i32> -> tile<32x64xf32>, token
      %xt = ftof %x : tile<64x32xf32> -> tile<64x32xtf32>
      %yt = ftof %y : tile<32x64xf32> -> tile<32x64xtf32>
      %next = mmaf %xt, %yt, %sum : tile<64x32xtf32>, tile<32x64xtf32>, tile<64x64xf32>
      continue %next : tile<64x64xf32>
    }
    %t2 = store_view_tko weak %acc, %cp[%zero, %zero] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<?x?xf32, strides=[?,1]>>, tile<i32> -> token
    return
  }
  entry @tf32_gemm_toward_zero(%a0: tile<ptr<f32>>, %b0: tile<ptr<f32>>, %c0: tile<ptr<f32>>, %k_tiles: tile<i32>) optimization_hints=<default = {occupancy = 1}> {
    %a = assume div_by<16>, %a0 : tile<ptr<f32>>
    %b = assume div_by<16>, %b0 : tile<ptr<f32>>
    %c = assume div_by<16>, %c0 : tile<ptr<f32>>
    %av = make_tensor_view %a, shape = [64, 256], strides = [256, 1] : tensor_view<64x256xf32, strides=[256,1]>
    %bv = make_tensor_view %b, shape = [256, 64], strides = [64, 1] : tensor_view<256x64xf32, strides=[64,1]>
    %cv = make_tensor_view %c, shape = [64, 64], strides = [64, 1] : tensor_view<64x64xf32, strides=[64,1]>
    %ap = make_partition_view %av : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x256xf32, strides=[256,1]>>
    %bp = make_partition_view %bv : partition_view<tile=(32x64), padding_value = zero, tensor_view<256x64xf32, strides=[64,1]>>
    %cp = make_partition_view %cv : partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>
    %zero = constant <i32: 0> : tile<i32>
    %one = constant <i32: 1> : tile<i32>
    %init = constant <f32: 0.000000e+00> : tile<64x64xf32>
    %acc = for %k in (%zero to %k_tiles, step %one) : tile<i32> iter_values(%sum = %init) -> (tile<64x64xf32>) {
      %x, %t0 = load_view_tko weak %ap[%zero, %k] : partition_view<tile=(64x32), padding_value = zero, tensor_view<64x256xf32, strides=[256,1]>>, tile<i32> -> tile<64x32xf32>, token
      %y, %t1 = load_view_tko weak %bp[%k, %zero] : partition_view<tile=(32x64), padding_value = zero, tensor_view<256x64xf32, strides=[64,1]>>, tile<i32> -> tile<32x64xf32>, token
      %xt = ftof %x rounding<zero> : tile<64x32xf32> -> tile<64x32xtf32>
      %yt = ftof %y rounding<zero> : tile<32x64xf32> -> tile<32x64xtf32>
      %next = mmaf %xt, %yt, %sum : tile<64x32xtf32>, tile<32x64xtf32>, tile<64x64xf32>
      continue %next : tile<64x64xf32>
    }
    %t2 = store_view_tko weak %acc, %cp[%zero, %zero] : tile<64x64xf32>, partition_view<tile=(64x64), tensor_view<64x64xf32, strides=[64,1]>>, tile<i32> -> token
    return
  }
}
