// The warp-level matrix multiply ops (upstream MLIR's names): nvvm.ldmatrix,
// nvvm.mma.sync and nvvm.fence.proxy round-trip, and the ptx target prints each as
// the instruction its doc comment names; ptxas accepts them.  8-bit float operands
// raise .version to PTX 8.4 (the op's MIN_PTX_ISA).
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_90a}' | tee %t.90.ptx | filecheck %s --check-prefix=PTX
// RUN: %ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin

// IR-LABEL: llvm.func @mma
// IR: %[[A:.*]] = nvvm.ldmatrix %{{.*}} {num = 4 : i32, layout = "row"} : (i32) -> !llvm.struct<(i32, i32, i32, i32)>
// IR: %{{.*}} = nvvm.ldmatrix %{{.*}} {num = 2 : i32, layout = "col"} : (i32) -> !llvm.struct<(i32, i32)>
// IR: %{{.*}} = nvvm.ldmatrix %{{.*}} {num = 1 : i32, layout = "row"} : (i32) -> i32
// IR: %{{.*}} = "nvvm.mma.sync"({{.*}}) <{operandSegmentSizes = array<i32: 4, 2, 4>, shape = array<i32: 16, 8, 16>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "f16", multiplicandBPtxType = "f16", accumulatorPtxType = "f32"}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// IR: "nvvm.mma.sync"({{.*}}) <{operandSegmentSizes = array<i32: 4, 2, 2>, shape = array<i32: 16, 8, 32>, {{.*}} multiplicandAPtxType = "e4m3", multiplicandBPtxType = "e5m2", accumulatorPtxType = "f16"}>
// IR: "nvvm.mma.sync"({{.*}}) <{operandSegmentSizes = array<i32: 2, 1, 4>, shape = array<i32: 16, 8, 16>, {{.*}} multiplicandAPtxType = "s8", multiplicandBPtxType = "u8", accumulatorPtxType = "s32"}>
// IR: nvvm.fence.proxy {kind = "async.shared", space = "cta"}

// PTX: .version 8.7
// PTX-LABEL: .visible .entry mma(
// PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%[[A0:r[0-9]+]], %[[A1:r[0-9]+]], %[[A2:r[0-9]+]], %[[A3:r[0-9]+]]}, [%[[ADDR:r[0-9]+]]];
// PTX: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%[[B0:r[0-9]+]], %[[B1:r[0-9]+]]}, [%[[ADDR]]];
// PTX: ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%[[W:r[0-9]+]]}, [%[[ADDR]]];
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%[[D0:f[0-9]+]], %{{f[0-9]+}}, %{{f[0-9]+}}, %{{f[0-9]+}}}, {%[[A0]], %[[A1]], %[[A2]], %[[A3]]}, {%[[B0]], %[[B1]]}, {%[[C:f[0-9]+]], %[[C]], %[[C]], %[[C]]};
// PTX: mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16 {%{{r[0-9]+}}, %{{r[0-9]+}}}, {%[[A0]], %[[A1]], %[[A2]], %[[A3]]}, {%[[B0]], %[[B1]]}, {%[[W]], %[[W]]};
// PTX: mma.sync.aligned.m16n8k16.row.col.s32.s8.u8.s32 {%{{r[0-9]+}}, %{{r[0-9]+}}, %{{r[0-9]+}}, %{{r[0-9]+}}}, {%[[A0]], %[[A1]]}, {%[[B0]]}, {%[[W]], %[[W]], %[[W]], %[[W]]};
// PTX: fence.proxy.async.shared::cta;
llvm.func @mma() attributes {nvvm.kernel} {
  %addr = nvvm.read.ptx.sreg.tid.x : i32
  %zero = llvm.mlir.constant(0.0 : f32) : f32
  %a = nvvm.ldmatrix %addr {num = 4 : i32, layout = "row"} : (i32) -> !llvm.struct<(i32, i32, i32, i32)>
  %b = nvvm.ldmatrix %addr {num = 2 : i32, layout = "col"} : (i32) -> !llvm.struct<(i32, i32)>
  %w = nvvm.ldmatrix %addr {num = 1 : i32, layout = "row"} : (i32) -> i32
  %a0 = llvm.extractvalue %a[0] : !llvm.struct<(i32, i32, i32, i32)>
  %a1 = llvm.extractvalue %a[1] : !llvm.struct<(i32, i32, i32, i32)>
  %a2 = llvm.extractvalue %a[2] : !llvm.struct<(i32, i32, i32, i32)>
  %a3 = llvm.extractvalue %a[3] : !llvm.struct<(i32, i32, i32, i32)>
  %b0 = llvm.extractvalue %b[0] : !llvm.struct<(i32, i32)>
  %b1 = llvm.extractvalue %b[1] : !llvm.struct<(i32, i32)>
  %d = "nvvm.mma.sync"(%a0, %a1, %a2, %a3, %b0, %b1, %zero, %zero, %zero, %zero) <{operandSegmentSizes = array<i32: 4, 2, 4>, shape = array<i32: 16, 8, 16>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "f16", multiplicandBPtxType = "f16", accumulatorPtxType = "f32"}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %h = "nvvm.mma.sync"(%a0, %a1, %a2, %a3, %b0, %b1, %w, %w) <{operandSegmentSizes = array<i32: 4, 2, 2>, shape = array<i32: 16, 8, 32>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "e4m3", multiplicandBPtxType = "e5m2", accumulatorPtxType = "f16"}> : (i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32)>
  %i = "nvvm.mma.sync"(%a0, %a1, %b0, %w, %w, %w, %w) <{operandSegmentSizes = array<i32: 2, 1, 4>, shape = array<i32: 16, 8, 16>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "s8", multiplicandBPtxType = "u8", accumulatorPtxType = "s32"}> : (i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  nvvm.fence.proxy {kind = "async.shared", space = "cta"}
  llvm.return
}
