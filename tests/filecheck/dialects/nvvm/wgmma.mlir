// The warpgroup MMA ops (upstream MLIR's names): nvvm.wgmma.fence.aligned,
// nvvm.wgmma.mma_async, nvvm.wgmma.commit.group.sync.aligned and
// nvvm.wgmma.wait.group.sync.aligned round-trip, and the ptx target prints each as the
// instruction its doc comment names; ptxas accepts them on sm_90a.  A chain of
// mma_async whose accumulator dies at the next step stays in one set of registers (the
// moves of the inserts that built it come before wgmma.fence); an accumulator used
// twice is copied first.  Mixed s8/u8 operands raise .version to PTX 8.4.
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_90a}' | tee %t.ptx | filecheck %s --check-prefix=PTX
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// IR-LABEL: llvm.func @wgmma
// IR: nvvm.wgmma.fence.aligned
// IR: %[[D0:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}} {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "row"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
// IR: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]] {{.*}}layoutB = "col"}
// IR: typeA = "f16", typeB = "f16", typeD = "f16", scaleD = "zero", scaleA = "neg", scaleB = "one", layoutA = "col"
// IR: typeA = "tf32", typeB = "tf32", typeD = "f32"
// IR: typeA = "s8", typeB = "u8", typeD = "s32"
// IR: typeA = "e4m3", typeB = "e5m2", typeD = "f32"
// IR: nvvm.wgmma.commit.group.sync.aligned
// IR: nvvm.wgmma.wait.group.sync.aligned 1
// IR: nvvm.wgmma.wait.group.sync.aligned 0

// PTX: .version 8.4
// PTX-LABEL: .visible .entry wgmma(
// PTX: mov.b32 %[[C0:f[0-9]+]], %[[X:f[0-9]+]];
// PTX-NEXT: mov.b32 %[[C1:f[0-9]+]], %[[X]];
// PTX-NEXT: mov.b32 %[[C2:f[0-9]+]], %[[X]];
// PTX-NEXT: mov.b32 %[[C3:f[0-9]+]], %[[X]];
// PTX-NEXT: wgmma.fence.sync.aligned;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%[[C0]], %[[C1]], %[[C2]], %[[C3]]}, %[[DA:rd[0-9]+]], %[[DB:rd[0-9]+]], 1, 1, 1, 0, 1;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%[[C0]], %[[C1]], %[[C2]], %[[C3]]}, %[[DA]], %[[DB]], 1, 1, 1, 0, 0;
// The f16 accumulator (two i32 words) is used twice: each step copies it first.  An
// undefined accumulator takes no moves.
// PTX: mov.b32 %[[H0:r[0-9]+]], %[[W:r[0-9]+]];
// PTX-NEXT: mov.b32 %[[H1:r[0-9]+]], %[[W]];
// PTX-NEXT: mov.b32 %[[K0:r[0-9]+]], %[[H0]];
// PTX-NEXT: mov.b32 %[[K1:r[0-9]+]], %[[H1]];
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%[[K0]], %[[K1]]}, %[[DA]], %[[DB]], 0, -1, 1, 1, 1;
// PTX-NEXT: mov.b32 %{{r[0-9]+}}, %[[H0]];
// PTX-NEXT: mov.b32 %{{r[0-9]+}}, %[[H1]];
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%{{f[0-9]+}}, %{{f[0-9]+}}, %{{f[0-9]+}}, %{{f[0-9]+}}}, %[[DA]], %[[DB]], 1, 1, 1;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.u8 {%{{r[0-9]+}}, %{{r[0-9]+}}, %{{r[0-9]+}}, %{{r[0-9]+}}}, %[[DA]], %[[DB]], 1;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e5m2 {%{{f[0-9]+}}, %{{f[0-9]+}}, %{{f[0-9]+}}, %{{f[0-9]+}}}, %[[DA]], %[[DB]], 1, 1, 1;
// PTX-NEXT: wgmma.commit_group.sync.aligned;
// PTX-NEXT: wgmma.wait_group.sync.aligned 1;
// PTX-NEXT: wgmma.wait_group.sync.aligned 0;
llvm.func @wgmma(%da: i64, %db: i64, %x: f32, %w: i32) attributes {nvvm.kernel} {
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
  %c0 = llvm.insertvalue %x, %u[0] : !llvm.struct<(f32, f32, f32, f32)>
  %c1 = llvm.insertvalue %x, %c0[1] : !llvm.struct<(f32, f32, f32, f32)>
  %c2 = llvm.insertvalue %x, %c1[2] : !llvm.struct<(f32, f32, f32, f32)>
  %c = llvm.insertvalue %x, %c2[3] : !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d0 = nvvm.wgmma.mma_async %da, %db, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "row"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  %d1 = nvvm.wgmma.mma_async %da, %db, %d0 {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  %hu = llvm.mlir.undef : !llvm.struct<(i32, i32)>
  %h0 = llvm.insertvalue %w, %hu[0] : !llvm.struct<(i32, i32)>
  %h = llvm.insertvalue %w, %h0[1] : !llvm.struct<(i32, i32)>
  %e0 = nvvm.wgmma.mma_async %da, %db, %h {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f16", scaleD = "zero", scaleA = "neg", scaleB = "one", layoutA = "col", layoutB = "row"} : !llvm.struct<(i32, i32)> -> !llvm.struct<(i32, i32)>
  %e1 = nvvm.wgmma.mma_async %da, %db, %h {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f16", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "row"} : !llvm.struct<(i32, i32)> -> !llvm.struct<(i32, i32)>
  %t = nvvm.wgmma.mma_async %da, %db, %u {shape = array<i32: 64, 8, 8>, typeA = "tf32", typeB = "tf32", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  %iu = llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
  %i = nvvm.wgmma.mma_async %da, %db, %iu {shape = array<i32: 64, 8, 32>, typeA = "s8", typeB = "u8", typeD = "s32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32)>
  %fu = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
  %f8 = nvvm.wgmma.mma_async %da, %db, %fu {shape = array<i32: 64, 8, 32>, typeA = "e4m3", typeB = "e5m2", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 1
  nvvm.wgmma.wait.group.sync.aligned 0
  %r = llvm.extractvalue %d1[0] : !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}

// A in registers (upstream's struct form of descriptorA): its type is written before the
// accumulator's, the instruction takes the 4 words as a vector, and only B has a
// transpose flag (imm-trans-b 1 for layoutB = row).
// IR-LABEL: llvm.func @wgmma_a_registers
// IR: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}} {{{.*}}layoutA = "row", layoutB = "row"} : !llvm.struct<(i32, i32, i32, i32)>, !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
// PTX-LABEL: .visible .entry wgmma_a_registers(
// PTX: wgmma.fence.sync.aligned;
// PTX-NEXT: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%{{f[0-9]+}}, %{{f[0-9]+}}, %{{f[0-9]+}}, %{{f[0-9]+}}}, {%[[A0:r[0-9]+]], %{{r[0-9]+}}, %{{r[0-9]+}}, %{{r[0-9]+}}}, %{{rd[0-9]+}}, 1, 1, 1, 1;
llvm.func @wgmma_a_registers(%db: i64, %x: f32, %w: i32) attributes {nvvm.kernel} {
  %au = llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
  %a0 = llvm.insertvalue %w, %au[0] : !llvm.struct<(i32, i32, i32, i32)>
  %a1 = llvm.insertvalue %w, %a0[1] : !llvm.struct<(i32, i32, i32, i32)>
  %a2 = llvm.insertvalue %w, %a1[2] : !llvm.struct<(i32, i32, i32, i32)>
  %a = llvm.insertvalue %w, %a2[3] : !llvm.struct<(i32, i32, i32, i32)>
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
  %c0 = llvm.insertvalue %x, %u[0] : !llvm.struct<(f32, f32, f32, f32)>
  %c1 = llvm.insertvalue %x, %c0[1] : !llvm.struct<(f32, f32, f32, f32)>
  %c2 = llvm.insertvalue %x, %c1[2] : !llvm.struct<(f32, f32, f32, f32)>
  %c = llvm.insertvalue %x, %c2[3] : !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.fence.aligned
  %d = nvvm.wgmma.mma_async %a, %db, %c {shape = array<i32: 64, 8, 16>, typeA = "bf16", typeB = "bf16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "row"} : !llvm.struct<(i32, i32, i32, i32)>, !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  %r = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
  llvm.return
}
