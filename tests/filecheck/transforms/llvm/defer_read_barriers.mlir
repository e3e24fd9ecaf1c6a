// RUN: tileir-opt %s -p llvm-defer-read-barriers | filecheck %s

// llvm-defer-read-barriers: the barrier that closes an exchange's reads of shared memory
// (write, bar.sync, read, bar.sync) moves down to the next write of shared memory, and
// goes where no path reaches one before another barrier or the kernel's end.  A barrier
// whose window (the ops since the previous barrier of its block) does anything but read
// shared memory or compute stays where it is.

// An exchange whose result is stored to global memory: nothing writes shared memory
// after it, so its trailing barrier goes; the one between its writes and reads stays.
// CHECK-LABEL: llvm.func @exchange_then_store
// CHECK:      llvm.inline_asm has_side_effects "st.shared.b32 [$0], $1;"
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT: llvm.inline_asm has_side_effects "@$2 st.global.b32 [$0], $1;"
// CHECK-NOT:  nvvm.barrier0
// CHECK:      llvm.return
builtin.module {
  llvm.func @exchange_then_store(%a: i32, %s: !llvm.ptr<3>, %g: !llvm.ptr<1>, %x: f32, %p: i1) {
    llvm.inline_asm has_side_effects "st.shared.b32 [$0], $1;", "r,f" %a, %x : (i32, f32) -> ()
    nvvm.barrier0
    %v = llvm.load %s : !llvm.ptr<3> -> f32
    nvvm.barrier0
    llvm.inline_asm has_side_effects "@$2 st.global.b32 [$0], $1;", "l,f,b" %g, %v, %p : (!llvm.ptr<1>, f32, i1) -> ()
    llvm.return
  }

  // A second exchange follows: the first one's trailing barrier moves down past the
  // global store and the arithmetic, to just before the second exchange's write.
  // CHECK-LABEL: llvm.func @two_exchanges
  // CHECK:      %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;"
  // CHECK-NEXT: %[[W:.*]] = llvm.fadd %[[V]], %[[V]] : f32
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.shared.b32 [$0], $1;", "r,f" %{{.*}}, %[[W]]
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.load
  // CHECK-NEXT: llvm.return
  llvm.func @two_exchanges(%a: i32, %s: !llvm.ptr<3>, %g: !llvm.ptr<1>, %x: f32) {
    llvm.inline_asm has_side_effects "st.shared.b32 [$0], $1;", "r,f" %a, %x : (i32, f32) -> ()
    nvvm.barrier0
    %v = llvm.load %s : !llvm.ptr<3> -> f32
    nvvm.barrier0
    llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;", "l,f" %g, %v : (!llvm.ptr<1>, f32) -> ()
    %w = llvm.fadd %v, %v : f32
    llvm.inline_asm has_side_effects "st.shared.b32 [$0], $1;", "r,f" %a, %w : (i32, f32) -> ()
    nvvm.barrier0
    %u = llvm.load %s : !llvm.ptr<3> -> f32
    nvvm.barrier0
    llvm.return
  }

  // In a loop whose next trip writes the buffer again, the barrier stays in the body,
  // now just before the back edge.
  // CHECK-LABEL: llvm.func @in_a_loop
  // CHECK:      ^[[BODY:.*]]:
  // CHECK:      llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;"
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.br
  llvm.func @in_a_loop(%a: i32, %s: !llvm.ptr<3>, %g: !llvm.ptr<1>, %x: f32, %c: i1) {
    llvm.br ^head
  ^head:
    llvm.cond_br %c, ^body, ^exit
  ^body:
    llvm.inline_asm has_side_effects "st.shared.b32 [$0], $1;", "r,f" %a, %x : (i32, f32) -> ()
    nvvm.barrier0
    %v = llvm.load %s : !llvm.ptr<3> -> f32
    nvvm.barrier0
    llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;", "l,f" %g, %v : (!llvm.ptr<1>, f32) -> ()
    llvm.br ^head
  ^exit:
    llvm.return
  }

  // Kept in place: a window that reads global memory (a later store of another thread
  // could overtake the read), and one that reaches the start of its block.  An
  // instruction the pass does not know (here a fence) stops the move.
  // CHECK-LABEL: llvm.func @kept
  // CHECK:      llvm.inline_asm has_side_effects "ld.global.b32 $0, [$1];"
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;"
  // CHECK:      ^[[NEXT:.*]]:
  // CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.return
  // CHECK-LABEL: llvm.func @unknown_instruction
  // CHECK:      llvm.load %{{.*}} : !llvm.ptr<3> -> f32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;"
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;"
  llvm.func @kept(%a: i32, %s: !llvm.ptr<3>, %g: !llvm.ptr<1>, %x: f32) {
    nvvm.barrier0
    %v = llvm.inline_asm has_side_effects "ld.global.b32 $0, [$1];", "=f,l" %g : (!llvm.ptr<1>) -> f32
    nvvm.barrier0
    llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;", "l,f" %g, %v : (!llvm.ptr<1>, f32) -> ()
    llvm.br ^next
  ^next:
    %u = llvm.load %s : !llvm.ptr<3> -> f32
    nvvm.barrier0
    llvm.return
  }
  llvm.func @unknown_instruction(%a: i32, %s: !llvm.ptr<3>, %g: !llvm.ptr<1>, %x: f32) {
    llvm.inline_asm has_side_effects "st.shared.b32 [$0], $1;", "r,f" %a, %x : (i32, f32) -> ()
    nvvm.barrier0
    %v = llvm.load %s : !llvm.ptr<3> -> f32
    nvvm.barrier0
    llvm.inline_asm has_side_effects "st.global.b32 [$0], $1;", "l,f" %g, %v : (!llvm.ptr<1>, f32) -> ()
    llvm.inline_asm has_side_effects "fence.proxy.async.shared::cta;", "" : () -> ()
    llvm.return
  }
}
