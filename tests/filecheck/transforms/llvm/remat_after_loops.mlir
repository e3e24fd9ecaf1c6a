// RUN: tileir-opt %s -p llvm-remat-after-loops | filecheck %s

// llvm-remat-after-loops: cheap index arithmetic computed before a kernel's first loop
// and used only in (or after) its second loop is recomputed there instead of living
// across the first loop: after a loop just before its user, and in a later loop (the
// causal attention's masked loop on sm_100a: the mask's columns, its copies' offsets)
// before its user in that loop's body, where its operands are live anyway, if that loop
// issues tcgen05.mma (its accumulators in tensor memory, not in registers).

// %x is used only in the second loop: its copy is made in that loop's body.  %y is
// used in the first loop too: not copied.
// CHECK-LABEL: llvm.func @into_later_loop
// CHECK:       ^bb1(%{{.*}}: i32):
// CHECK-NOT:   llvm.xor
// CHECK:       llvm.cond_br
// CHECK:       ^bb3(%[[J:.*]]: i32):
// CHECK:       %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:  %[[X:.*]] = llvm.xor %[[T]], %{{.*}} : i32
// CHECK-NEXT:  llvm.add %[[J]], %[[X]] : i32
// CHECK-NEXT:  llvm.add %[[J]], %[[Y:.*]] : i32
builtin.module {
  llvm.func @into_later_loop(%n: i32, %g: !llvm.ptr<1>) {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c5 = llvm.mlir.constant(5 : i32) : i32
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %x = llvm.xor %t, %c5 : i32
    %y = llvm.mul %t, %c5 : i32
    llvm.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    %a = llvm.add %i, %y : i32
    llvm.store %a, %g : i32, !llvm.ptr<1>
    %i1 = llvm.add %i, %c1 : i32
    %p = llvm.icmp "slt" %i1, %n : i32
    llvm.cond_br %p, ^bb1(%i1 : i32), ^bb2
  ^bb2:
    llvm.br ^bb3(%c0 : i32)
  ^bb3(%j: i32):
    %b = llvm.add %j, %x : i32
    %e = llvm.add %j, %y : i32
    llvm.inline_asm has_side_effects "tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $2, $3, 1;", "r,l,l,r" %j, %g, %g, %j : (i32, !llvm.ptr<1>, !llvm.ptr<1>, i32) -> ()
    llvm.store %b, %g : i32, !llvm.ptr<1>
    llvm.store %e, %g : i32, !llvm.ptr<1>
    %j1 = llvm.add %j, %c1 : i32
    %q = llvm.icmp "slt" %j1, %n : i32
    llvm.cond_br %q, ^bb3(%j1 : i32), ^bb4
  ^bb4:
    llvm.return
  }

  // The user is in a loop nested in the second loop: a copy there would run more
  // often than once an iteration of the loop entered, so nothing is copied.
  // CHECK-LABEL: llvm.func @not_into_a_nest
  // CHECK:       llvm.xor
  // CHECK-NOT:   llvm.xor
  // CHECK:       llvm.return
  llvm.func @not_into_a_nest(%n: i32, %g: !llvm.ptr<1>) {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c5 = llvm.mlir.constant(5 : i32) : i32
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %x = llvm.xor %t, %c5 : i32
    llvm.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    llvm.store %i, %g : i32, !llvm.ptr<1>
    %i1 = llvm.add %i, %c1 : i32
    %p = llvm.icmp "slt" %i1, %n : i32
    llvm.cond_br %p, ^bb1(%i1 : i32), ^bb2
  ^bb2:
    llvm.br ^bb3(%c0 : i32)
  ^bb3(%j: i32):
    llvm.br ^bb4(%c0 : i32)
  ^bb4(%k: i32):
    %b = llvm.add %k, %x : i32
    llvm.store %b, %g : i32, !llvm.ptr<1>
    %k1 = llvm.add %k, %c1 : i32
    %r = llvm.icmp "slt" %k1, %n : i32
    llvm.cond_br %r, ^bb4(%k1 : i32), ^bb5
  ^bb5:
    %j1 = llvm.add %j, %c1 : i32
    %q = llvm.icmp "slt" %j1, %n : i32
    llvm.cond_br %q, ^bb3(%j1 : i32), ^bb6
  ^bb6:
    llvm.return
  }

  // The same without tcgen05.mma in the later loop (its MMAs' accumulators would be in
  // registers): nothing is copied.
  // CHECK-LABEL: llvm.func @not_into_a_register_loop
  // CHECK:       llvm.xor
  // CHECK-NOT:   llvm.xor
  // CHECK:       llvm.return
  llvm.func @not_into_a_register_loop(%n: i32, %g: !llvm.ptr<1>) {
    %c1 = llvm.mlir.constant(1 : i32) : i32
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c5 = llvm.mlir.constant(5 : i32) : i32
    %t = nvvm.read.ptx.sreg.tid.x : i32
    %x = llvm.xor %t, %c5 : i32
    llvm.br ^bb1(%c0 : i32)
  ^bb1(%i: i32):
    llvm.store %i, %g : i32, !llvm.ptr<1>
    %i1 = llvm.add %i, %c1 : i32
    %p = llvm.icmp "slt" %i1, %n : i32
    llvm.cond_br %p, ^bb1(%i1 : i32), ^bb2
  ^bb2:
    llvm.br ^bb3(%c0 : i32)
  ^bb3(%j: i32):
    %b = llvm.add %j, %x : i32
    llvm.store %b, %g : i32, !llvm.ptr<1>
    %j1 = llvm.add %j, %c1 : i32
    %q = llvm.icmp "slt" %j1, %n : i32
    llvm.cond_br %q, ^bb3(%j1 : i32), ^bb4
  ^bb4:
    llvm.return
  }
}
