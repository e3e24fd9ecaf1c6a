// RUN: tileir-opt %s -p llvm-sink-tmem-loads | filecheck %s

// llvm-sink-tmem-loads: each tcgen05.ld block (load + tcgen05.wait::ld) and the pure
// ops computed from what it loaded move down to their first use in the block, so an
// epilogue runs one column slice at a time: load, convert, store, then the next load.
// Ops that do not depend on a load keep their order; no load moves past a write of
// tensor memory (tcgen05.mma / tcgen05.st / tcgen05.dealloc).

// CHECK-LABEL: llvm.func @epilogue
// CHECK:      %[[ADDR:.*]] = llvm.add %arg0, %arg1 : i32
// CHECK-NEXT: %[[L0:.*]] = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x2.b32 {$0, $1}, [$2];\0Atcgen05.wait::ld.sync.aligned;"
// CHECK-NEXT: %[[A:.*]] = llvm.extractvalue %[[L0]][0]
// CHECK-NEXT: %[[B:.*]] = llvm.extractvalue %[[L0]][1]
// CHECK-NEXT: %[[S0:.*]] = llvm.fadd %[[A]], %[[B]] : f32
// CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.f32 [$0], $1;", "l,f" %arg2, %[[S0]]
// CHECK-NEXT: %[[L1:.*]] = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x2.b32 {$0, $1}, [$2+2];\0Atcgen05.wait::ld.sync.aligned;"
// CHECK-NEXT: %[[C:.*]] = llvm.extractvalue %[[L1]][0]
// CHECK-NEXT: %[[D:.*]] = llvm.extractvalue %[[L1]][1]
// CHECK-NEXT: %[[S1:.*]] = llvm.fadd %[[C]], %[[D]] : f32
// CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.f32 [$0+4], $1;", "l,f" %arg2, %[[S1]]
// CHECK-NEXT: llvm.return
builtin.module {
  llvm.func @epilogue(%arg0: i32, %arg1: i32, %arg2: !llvm.ptr<1>) {
    %addr = llvm.add %arg0, %arg1 : i32
    %l0 = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x2.b32 {$0, $1}, [$2];\0Atcgen05.wait::ld.sync.aligned;", "=f,=f,r" %addr : (i32) -> !llvm.struct<(f32, f32)>
    %l1 = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x2.b32 {$0, $1}, [$2+2];\0Atcgen05.wait::ld.sync.aligned;", "=f,=f,r" %addr : (i32) -> !llvm.struct<(f32, f32)>
    %a = llvm.extractvalue %l0[0] : !llvm.struct<(f32, f32)>
    %b = llvm.extractvalue %l0[1] : !llvm.struct<(f32, f32)>
    %c = llvm.extractvalue %l1[0] : !llvm.struct<(f32, f32)>
    %d = llvm.extractvalue %l1[1] : !llvm.struct<(f32, f32)>
    %s0 = llvm.fadd %a, %b : f32
    %s1 = llvm.fadd %c, %d : f32
    llvm.inline_asm has_side_effects "st.global.f32 [$0], $1;", "l,f" %arg2, %s0 : (!llvm.ptr<1>, f32) -> ()
    llvm.inline_asm has_side_effects "st.global.f32 [$0+4], $1;", "l,f" %arg2, %s1 : (!llvm.ptr<1>, f32) -> ()
    llvm.return
  }

  // A pure intrinsic on a loaded value moves with it; an op that also reads a value the
  // block computes otherwise (a partner's value loaded from shared memory) stays where
  // it is, so that value does not live longer.
  // CHECK-LABEL: llvm.func @intrinsics
  // CHECK:      %[[P:.*]] = llvm.load
  // CHECK-NEXT: %[[L:.*]] = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x1.b32
  // CHECK-NEXT: %[[M:.*]] = llvm.call_intrinsic "llvm.maxnum.f32"(%[[L]], %[[P]])
  // CHECK-NEXT: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[L]])
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.f32 [$0], $1;", "l,f" %{{.*}}, %[[E]]
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.shared.f32 [$0], $1;", "r,f" %{{.*}}, %[[M]]
  llvm.func @intrinsics(%arg0: i32, %arg1: !llvm.ptr<3>, %arg2: !llvm.ptr<1>) {
    %l = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x1.b32 {$0}, [$1];\0Atcgen05.wait::ld.sync.aligned;", "=f,r" %arg0 : (i32) -> f32
    %e = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%l) : (f32) -> f32
    %p = llvm.load %arg1 : !llvm.ptr<3> -> f32
    %m = llvm.call_intrinsic "llvm.maxnum.f32"(%l, %p) : (f32, f32) -> f32
    llvm.inline_asm has_side_effects "st.global.f32 [$0], $1;", "l,f" %arg2, %e : (!llvm.ptr<1>, f32) -> ()
    llvm.inline_asm has_side_effects "st.shared.f32 [$0], $1;", "r,f" %arg0, %m : (i32, f32) -> ()
    llvm.return
  }

  // A load stays before a tcgen05.mma that writes the columns it reads, even where its
  // first use comes after the MMA; the pure op on it still moves to its use.
  // CHECK-LABEL: llvm.func @before_a_write
  // CHECK:      %[[L:.*]] = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x1.b32 {$0}, [$1];\0Atcgen05.wait::ld.sync.aligned;"
  // CHECK-NEXT: llvm.inline_asm has_side_effects "tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $1, $2, 1;"
  // CHECK-NEXT: %[[X:.*]] = llvm.fadd %[[L]], %[[L]] : f32
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.f32 [$0], $1;", "l,f" %{{.*}}, %[[X]]
  llvm.func @before_a_write(%arg0: i32, %arg1: i64, %arg2: !llvm.ptr<1>) {
    %l = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x1.b32 {$0}, [$1];\0Atcgen05.wait::ld.sync.aligned;", "=f,r" %arg0 : (i32) -> f32
    %x = llvm.fadd %l, %l : f32
    llvm.inline_asm has_side_effects "tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $1, $2, 1;", "r,l,r" %arg0, %arg1, %arg0 : (i32, i64, i32) -> ()
    llvm.inline_asm has_side_effects "st.global.f32 [$0], $1;", "l,f" %arg2, %x : (!llvm.ptr<1>, f32) -> ()
    llvm.return
  }

  // The unpacking of a word of bytes a packed load returned (memory_asm.unpack_word)
  // moves down to the first use of its bytes: the word, one register, stays live where
  // four bytes would.  The load keeps its place.  A block that only looks like one (its
  // text not unpack_word's for its word) stays where it is.
  // CHECK-LABEL: llvm.func @byte_words
  // CHECK:      %[[W:.*]] = llvm.inline_asm "ld.global.b32 $0, [$1];", "=r,l" %arg1
  // CHECK-NEXT: %[[NOT:.*]] = llvm.inline_asm "{{.*}}bfe.s32 t_y, $4, 8, 8;
  // CHECK-NEXT: llvm.inline_asm has_side_effects "bar.sync 0;"
  // CHECK-NEXT: %[[U:.*]] = llvm.inline_asm "{{.*}}bfe.s32 t_y, $4, 24, 8;{{.*}}", "=h,=h,=h,=h,r" %[[W]]
  // CHECK-NEXT: %[[B0:.*]] = llvm.extractvalue %[[U]][0]
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.b8 [$0], $1;", "l,h" %{{[^,]*}}, %[[B0]]
  // CHECK-NEXT: %[[B3:.*]] = llvm.extractvalue %[[U]][3]
  // CHECK-NEXT: llvm.inline_asm has_side_effects "st.global.b8 [$0+3], $1;", "l,h" %{{[^,]*}}, %[[B3]]
  llvm.func @byte_words(%arg0: i32, %arg1: !llvm.ptr<1>) {
    %w = llvm.inline_asm "ld.global.b32 $0, [$1];", "=r,l" %arg1 : (!llvm.ptr<1>) -> i32
    %u = llvm.inline_asm "{\0A.reg .b32 t_x, t_y;\0Abfe.s32 t_y, $4, 0, 8;\0Acvt.u16.u32 $0, t_y;\0Abfe.s32 t_y, $4, 8, 8;\0Acvt.u16.u32 $1, t_y;\0Abfe.s32 t_y, $4, 16, 8;\0Acvt.u16.u32 $2, t_y;\0Abfe.s32 t_y, $4, 24, 8;\0Acvt.u16.u32 $3, t_y;\0A}", "=h,=h,=h,=h,r" %w : (i32) -> !llvm.struct<(i8, i8, i8, i8)>
    %b0 = llvm.extractvalue %u[0] : !llvm.struct<(i8, i8, i8, i8)>
    %b3 = llvm.extractvalue %u[3] : !llvm.struct<(i8, i8, i8, i8)>
    %n = llvm.inline_asm "{\0A.reg .b32 t_x, t_y;\0Abfe.s32 t_y, $4, 0, 8;\0Acvt.u16.u32 $0, t_y;\0Abfe.s32 t_y, $4, 8, 8;\0Acvt.u16.u32 $1, t_y;\0A}", "=h,=h,=h,=h,r" %w : (i32) -> !llvm.struct<(i8, i8, i8, i8)>
    llvm.inline_asm has_side_effects "bar.sync 0;", "" : () -> ()
    llvm.inline_asm has_side_effects "st.global.b8 [$0], $1;", "l,h" %arg1, %b0 : (!llvm.ptr<1>, i8) -> ()
    llvm.inline_asm has_side_effects "st.global.b8 [$0+3], $1;", "l,h" %arg1, %b3 : (!llvm.ptr<1>, i8) -> ()
    %l = llvm.inline_asm has_side_effects "tcgen05.ld.sync.aligned.32x32b.x1.b32 {$0}, [$1];\0Atcgen05.wait::ld.sync.aligned;", "=f,r" %arg0 : (i32) -> f32
    llvm.return
  }
}
