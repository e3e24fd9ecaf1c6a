// Synchronization: the CTA barrier tileas-insert-barriers places (tileir's op, not in
// seed 003's roster; see tileir/dialects/nv_tileas/ops/synchronization.py).
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s
// RUN: tileir-opt %s -p cse,dce | filecheck %s --check-prefix=KEPT

// A barrier in the kernel body, in a loop and in a branch: every thread of the CTA
// runs there.
// RULE: cta-barrier-placement
// CHECK-LABEL: func.func @barriers
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.cta_barrier
// CHECK: scf.if
// CHECK-NEXT: nv_tileas.cta_barrier
// Two barriers in a row stay two: CSE never merges a barrier and DCE never drops one.
// KEPT-LABEL: func.func @barriers
// KEPT-COUNT-4: nv_tileas.cta_barrier
func.func @barriers(%n: index, %c: i1) {
  nv_tileas.cta_barrier
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    nv_tileas.cta_barrier
    scf.yield
  }
  scf.if %c {
    nv_tileas.cta_barrier
  }
  nv_tileas.cta_barrier
  func.return
}

// The grid-dependency points of programmatic dependent launch, in the kernel body and in
// a loop; like the barrier, CSE never merges them and DCE never drops them.
// RULE: gdc-placement
// CHECK-LABEL: func.func @grid_dependency
// CHECK-NEXT: nv_tileas.gdc_wait
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.gdc_launch_dependents
// KEPT-LABEL: func.func @grid_dependency
// KEPT-NEXT: nv_tileas.gdc_wait
// KEPT-NEXT: nv_tileas.gdc_wait
// KEPT: nv_tileas.gdc_launch_dependents
func.func @grid_dependency(%n: index) {
  nv_tileas.gdc_wait
  nv_tileas.gdc_wait
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    nv_tileas.gdc_launch_dependents
    scf.yield
  }
  func.return
}
