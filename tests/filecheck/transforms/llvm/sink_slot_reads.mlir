// RUN: tileir-opt %s -p llvm-sink-tmem-loads | filecheck %s

// llvm-sink-tmem-loads on the words a ring's wait reads back from its slot (`llvm.load`
// marked tileir.slot_read, async_copy.LowerFutureWait): each read moves down to its
// first use, past other loads and stores, waits on mbarriers, wgmma instructions and
// proxy fences, and CTA barriers that another one follows before any cp.async; never
// past the last CTA barrier before a cp.async (the refill of the slot comes after a
// barrier that follows every thread's read), nor past the block's last barrier, a copy
// or an arrival.

// CHECK-LABEL: llvm.func @slice_by_slice
// CHECK:      %[[W0:.*]] = llvm.load %arg0 {tileir.slot_read} : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[X0:.*]] = llvm.add %[[W0]], %[[W0]] : i32
// CHECK-NEXT: llvm.store %[[X0]], %arg2 : i32, !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.inline_asm has_side_effects "{{.*}}mbarrier.try_wait.parity
// CHECK-NEXT: nvvm.fence.proxy
// CHECK-NEXT: nvvm.wgmma.fence.aligned
// CHECK-NEXT: %[[W1:.*]] = llvm.load %arg1 {tileir.slot_read} : !llvm.ptr<3> -> i32
// CHECK-NEXT: %[[X1:.*]] = llvm.add %[[W1]], %[[W1]] : i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$1 st.shared.b32 [$0], $0;", "r,b" %[[X1]], %arg3
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.inline_asm has_side_effects "cp.async.cg.shared.global [$0], [$1], 16;"
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @not_past_the_refill_barrier
// CHECK:      nvvm.barrier0
// CHECK-NEXT: %[[W:.*]] = llvm.load %{{.*}} {tileir.slot_read} : !llvm.ptr<3> -> i32
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.inline_asm has_side_effects "cp.async.cg.shared.global [$0], [$1], 16;"
// CHECK-NEXT: %[[X:.*]] = llvm.add %[[W]], %[[W]] : i32
// CHECK-NEXT: llvm.store %[[X]], %{{.*}} : i32, !llvm.ptr<3>
// CHECK-LABEL: llvm.func @not_past_a_copy
// CHECK:      %[[W:.*]] = llvm.load %{{.*}} {tileir.slot_read} : !llvm.ptr<3> -> i32
// CHECK-NEXT: llvm.inline_asm has_side_effects "cp.async.mbarrier.arrive.shared::cta.b64 [$0];"
builtin.module {
  llvm.func @slice_by_slice(%arg0: !llvm.ptr<3>, %arg1: !llvm.ptr<3>, %arg2: !llvm.ptr<3>, %arg3: i32, %arg4: !llvm.ptr<1>) {
    %w0 = llvm.load %arg0 {tileir.slot_read} : !llvm.ptr<3> -> i32
    %w1 = llvm.load %arg1 {tileir.slot_read} : !llvm.ptr<3> -> i32
    %x0 = llvm.add %w0, %w0 : i32
    %x1 = llvm.add %w1, %w1 : i32
    llvm.store %x0, %arg2 : i32, !llvm.ptr<3>
    nvvm.barrier0
    llvm.inline_asm has_side_effects "{\0A.reg .pred t_done;\0Atileir_wait:\0Ambarrier.try_wait.parity.shared::cta.b64 t_done, [$0], $1;\0A@!t_done bra tileir_wait;\0A}", "r,r" %arg3, %arg3 : (i32, i32) -> ()
    nvvm.fence.proxy {kind = "async.shared", space = "cta"}
    nvvm.wgmma.fence.aligned
    llvm.inline_asm has_side_effects "@$1 st.shared.b32 [$0], $0;", "r,b" %x1, %arg3 : (i32, i32) -> ()
    nvvm.barrier0
    llvm.inline_asm has_side_effects "cp.async.cg.shared.global [$0], [$1], 16;", "r,l" %arg3, %arg4 : (i32, !llvm.ptr<1>) -> ()
    llvm.return
  }

  llvm.func @not_past_the_refill_barrier(%arg0: !llvm.ptr<3>, %arg1: i32, %arg2: !llvm.ptr<1>) {
    %w = llvm.load %arg0 {tileir.slot_read} : !llvm.ptr<3> -> i32
    %x = llvm.add %w, %w : i32
    nvvm.barrier0
    nvvm.barrier0
    llvm.inline_asm has_side_effects "cp.async.cg.shared.global [$0], [$1], 16;", "r,l" %arg1, %arg2 : (i32, !llvm.ptr<1>) -> ()
    llvm.store %x, %arg0 : i32, !llvm.ptr<3>
    llvm.return
  }

  llvm.func @not_past_a_copy(%arg0: !llvm.ptr<3>, %arg1: i32) {
    %w = llvm.load %arg0 {tileir.slot_read} : !llvm.ptr<3> -> i32
    llvm.inline_asm has_side_effects "cp.async.mbarrier.arrive.shared::cta.b64 [$0];", "r" %arg1 : (i32) -> ()
    %x = llvm.add %w, %w : i32
    llvm.store %x, %arg0 : i32, !llvm.ptr<3>
    llvm.return
  }
}
