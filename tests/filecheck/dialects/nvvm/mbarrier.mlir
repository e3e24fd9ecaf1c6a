// The nvvm mbarrier ops: they round-trip, and the ptx target prints each as the PTX
// of its doc comment; every target assembles it (sm_80 polls with test_wait, which
// raises its .version from 7.0 to 7.1; sm_90a/sm_100a spin on try_wait).
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_80}' | tee %t.80.ptx | filecheck %s --check-prefixes=PTX,SM80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: tileir-opt %s -t 'ptx{arch=sm_90a}' | tee %t.90.ptx | filecheck %s --check-prefixes=PTX,SM90
// RUN: %ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin
// RUN: tileir-opt %s -t 'ptx{arch=sm_100a}' > %t.100.ptx
// RUN: %ptxas -arch=sm_100a %t.100.ptx -o %t.100.cubin

// IR-LABEL: llvm.func @mbarriers
// IR: %[[BAR:.*]] = nvvm.mbarrier.pool.address %{{.*}} {pool_size = 2 : i32} : i32 -> !llvm.ptr<3>
// IR: nvvm.mbarrier.init.shared %[[BAR]], %{{.*}}, predicate = %{{.*}} : !llvm.ptr<3>, i32, i1
// IR: nvvm.mbarrier.init.shared %[[BAR]], %{{.*}} : !llvm.ptr<3>, i32
// IR: %{{.*}} = nvvm.mbarrier.arrive.shared %[[BAR]] : !llvm.ptr<3> -> i64
// IR: %{{.*}} = nvvm.mbarrier.test.wait.parity.shared %[[BAR]], %{{.*}} : !llvm.ptr<3>, i32 -> i1
// IR: nvvm.mbarrier.try_wait.parity.shared %[[BAR]], %{{.*}} : !llvm.ptr<3>, i32

// SM80: .version 7.1
// SM90: .version 8.0
// PTX-LABEL: .visible .entry mbarriers(
// The pool is declared once, as large as the largest pool_size asked for.
// PTX: .shared .align 8 .b64 __tileir_mbarriers[2];
// PTX-NOT: .shared
// A shared pointer is a 32-bit address.
// PTX: mov.u32 %[[BASE:r[0-9]+]], __tileir_mbarriers;
// PTX: mad.lo.s32 %[[BAR:r[0-9]+]], %{{r[0-9]+}}, 8, %[[BASE]];
// PTX: @%{{p[0-9]+}} mbarrier.init.shared.b64 [%[[BAR]]], %{{r[0-9]+}};
// PTX: mbarrier.init.shared.b64 [%[[BAR]]], %{{r[0-9]+}};
// PTX: mbarrier.arrive.shared.b64 %{{rd[0-9]+}}, [%[[BAR]]];
// PTX: mbarrier.test_wait.parity.shared.b64 %{{p[0-9]+}}, [%[[BAR]]], %{{r[0-9]+}};
// PTX: {
// PTX-NEXT: .reg .pred %p_done;
// PTX-NEXT: $L_mbarrier_wait:
// SM80-NEXT: mbarrier.test_wait.parity.shared.b64 %p_done, [%[[BAR]]], %{{r[0-9]+}};
// SM90-NEXT: mbarrier.try_wait.parity.shared.b64 %p_done, [%[[BAR]]], %{{r[0-9]+}};
// PTX-NEXT: @%p_done bra.uni $L_mbarrier_done;
// PTX-NEXT: bra.uni $L_mbarrier_wait;
// PTX-NEXT: $L_mbarrier_done:
// PTX-NEXT: }
// A second wait opens its own scope: the labels may repeat.
// PTX: $L_mbarrier_wait:
llvm.func @mbarriers() attributes {nvvm.kernel} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %leader = llvm.icmp "eq" %tid, %c0 : i32
  %bar = nvvm.mbarrier.pool.address %c1 {pool_size = 2 : i32} : i32 -> !llvm.ptr<3>
  nvvm.mbarrier.init.shared %bar, %c1, predicate = %leader : !llvm.ptr<3>, i32, i1
  nvvm.mbarrier.init.shared %bar, %c1 : !llvm.ptr<3>, i32
  nvvm.barrier0
  %state = nvvm.mbarrier.arrive.shared %bar : !llvm.ptr<3> -> i64
  %done = nvvm.mbarrier.test.wait.parity.shared %bar, %c0 : !llvm.ptr<3>, i32 -> i1
  nvvm.mbarrier.try_wait.parity.shared %bar, %c0 : !llvm.ptr<3>, i32
  %bar0 = nvvm.mbarrier.pool.address %c0 {pool_size = 1 : i32} : i32 -> !llvm.ptr<3>
  nvvm.mbarrier.try_wait.parity.shared %bar0, %c0 : !llvm.ptr<3>, i32
  llvm.return
}
