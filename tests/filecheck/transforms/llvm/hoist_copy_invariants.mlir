// RUN: tileir-opt %s -p llvm-hoist-copy-invariants | filecheck %s

// llvm-hoist-copy-invariants: in a loop that issues cp.async and no tensor-core
// instruction (a warp-specialized producer's), cheap integer arithmetic whose operands
// are defined before the loop, or are constants, and which is the same in every thread
// of the CTA moves to the end of the loop's preheader, chains whole (the row bound of
// a ring copy), even out of a branch of the body; what depends on the iteration, or on
// the thread (registers a small producer budget pays for), stays.

// %b and %o depend only on the CTA and the parameters: they move, with the constant 7
// cloned before %o; %u uses the thread index and %s the iteration: they stay.
// CHECK-LABEL: llvm.func @producer
// CHECK:       %[[C:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-NEXT:  %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:  %[[B:.*]] = llvm.sub %{{.*}}, %[[C]] : i32
// CHECK-NEXT:  %[[C7:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:  %[[O:.*]] = llvm.xor %[[B]], %[[C7]] : i32
// CHECK-NEXT:  llvm.br ^bb1
// CHECK:       ^bb1(%[[I:.*]]: i32):
// CHECK-NOT:   llvm.sub
// CHECK-NOT:   llvm.xor
// CHECK:       ^bb2:
// CHECK:       %[[U:.*]] = llvm.add %[[T]], %[[O]] : i32
// CHECK-NEXT:  %[[S:.*]] = llvm.add %[[I]], %[[U]] : i32
// CHECK:       cp.async.cg.shared.global
builtin.module {
  llvm.func @producer(%n: i32, %m: i32, %g: !llvm.ptr<1>) {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c = nvvm.read.ptx.sreg.ctaid.x : i32
    %t = nvvm.read.ptx.sreg.tid.x : i32
    llvm.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    %w = llvm.icmp "slt" %i, %m : i32
    llvm.cond_br %w, ^bb2, ^bb3
  ^bb2:
    %c7 = llvm.mlir.constant(7 : i32) : i32
    %b = llvm.sub %m, %c : i32
    %o = llvm.xor %b, %c7 : i32
    %u = llvm.add %t, %o : i32
    %s = llvm.add %i, %u : i32
    llvm.inline_asm has_side_effects "cp.async.cg.shared.global [$0], [$1], 16;", "r,l" %s, %g : (i32, !llvm.ptr<1>) -> ()
    llvm.br ^bb3
  ^bb3:
    %i1 = llvm.add %i, %c1 : i32
    %p = llvm.icmp "slt" %i1, %n : i32
    llvm.cond_br %p, ^bb1(%i1 : i32), ^bb4
  ^bb4:
    llvm.return
  }

  // The loop also multiplies on the tensor cores (a one-agent pipeline, whose
  // accumulators take its registers; here a typed nvvm op): nothing moves.
  // CHECK-LABEL: llvm.func @with_accumulators
  // CHECK:       ^bb1(%{{.*}}: i32):
  // CHECK-NEXT:  llvm.sub
  llvm.func @with_accumulators(%n: i32, %m: i32, %g: !llvm.ptr<1>) {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %t = nvvm.read.ptx.sreg.ctaid.x : i32
    llvm.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    %b = llvm.sub %m, %t : i32
    %s = llvm.add %i, %b : i32
    llvm.inline_asm has_side_effects "cp.async.cg.shared.global [$0], [$1], 16;", "r,l" %s, %g : (i32, !llvm.ptr<1>) -> ()
    nvvm.wgmma.fence.aligned
    %i1 = llvm.add %i, %c1 : i32
    %p = llvm.icmp "slt" %i1, %n : i32
    llvm.cond_br %p, ^bb1(%i1 : i32), ^bb2
  ^bb2:
    llvm.return
  }

  // A loop without copies (an epilogue's, a memory-bound kernel's): nothing moves.
  // CHECK-LABEL: llvm.func @no_copies
  // CHECK:       ^bb1(%{{.*}}: i32):
  // CHECK-NEXT:  llvm.sub
  llvm.func @no_copies(%n: i32, %m: i32, %g: !llvm.ptr<1>) {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %t = nvvm.read.ptx.sreg.ctaid.x : i32
    llvm.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    %b = llvm.sub %m, %t : i32
    %s = llvm.add %i, %b : i32
    llvm.store %s, %g : i32, !llvm.ptr<1>
    %i1 = llvm.add %i, %c1 : i32
    %p = llvm.icmp "slt" %i1, %n : i32
    llvm.cond_br %p, ^bb1(%i1 : i32), ^bb2
  ^bb2:
    llvm.return
  }
}
