// nvvm.shfl.sync (upstream MLIR's name and operands: member mask, value, lane offset,
// clamp): it round-trips, and the ptx target prints `shfl.sync.<kind>.b32` with an
// operand an `llvm.mlir.constant` defines printed as an immediate when the constant
// has no other use (that constant then takes no register); ptxas accepts it.
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_80}' | tee %t.80.ptx | filecheck %s --check-prefix=PTX
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin

// IR-LABEL: llvm.func @shuffles
// IR: %{{.*}} = nvvm.shfl.sync bfly %[[MASK:.*]], %{{.*}}, %{{.*}}, %[[CLAMP:.*]] : i32 -> i32
// IR: %{{.*}} = nvvm.shfl.sync up %[[MASK]], %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// IR: %{{.*}} = nvvm.shfl.sync down %[[MASK]], %{{.*}}, %{{.*}}, %[[CLAMP]] : f32 -> f32
// IR: %{{.*}} = nvvm.shfl.sync idx %[[MASK]], %{{.*}}, %{{.*}}, %[[CLAMP]] : i32 -> i32

// PTX-LABEL: .visible .entry shuffles(
// The immediates' constants print nothing; %c4 also feeds an add, so it is a register.
// PTX-NOT: mov.b32 %r{{[0-9]+}}, -1;
// PTX-NOT: mov.b32 %r{{[0-9]+}}, 31;
// PTX: mov.u32 %[[TID:r[0-9]+]], %tid.x;
// PTX: mov.b32 %[[FOUR:r[0-9]+]], 4;
// PTX: shfl.sync.bfly.b32 %[[A:r[0-9]+]], %[[TID]], 1, 0x1f, 0xffffffff;
// PTX: shfl.sync.up.b32 %{{r[0-9]+}}, %[[A]], 2, 0, 0xffffffff;
// PTX: shfl.sync.down.b32 %{{f[0-9]+}}, %{{f[0-9]+}}, 8, 0x1f, 0xffffffff;
// PTX: shfl.sync.idx.b32 %{{r[0-9]+}}, %[[A]], %[[FOUR]], 0x1f, 0xffffffff;
llvm.func @shuffles() attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %mask = llvm.mlir.constant(-1 : i32) : i32
  %clamp = llvm.mlir.constant(31 : i32) : i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c4 = llvm.mlir.constant(4 : i32) : i32
  %c8 = llvm.mlir.constant(8 : i32) : i32
  %a = nvvm.shfl.sync bfly %mask, %tid, %c1, %clamp : i32 -> i32
  %b = nvvm.shfl.sync up %mask, %a, %c2, %zero : i32 -> i32
  %f = llvm.bitcast %b : i32 to f32
  %g = nvvm.shfl.sync down %mask, %f, %c8, %clamp : f32 -> f32
  %h = nvvm.shfl.sync idx %mask, %a, %c4, %clamp : i32 -> i32
  %s = llvm.add %h, %c4 : i32
  llvm.return
}
