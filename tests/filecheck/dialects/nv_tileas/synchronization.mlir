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

// The agent barrier waits for the threads of the agent that runs it: in an agent body,
// directly or in the agent's loops (tileas-specialize-agents writes it for a cta_barrier
// the consumer takes over).  Like the CTA barrier, CSE never merges two, DCE never drops
// one.
// RULE: agent-barrier-placement
// CHECK-LABEL: func.func @agent_barrier
// CHECK: nv_tileas.async.pipeline.agent_switch
// CHECK: }, {
// CHECK-NEXT: nv_tileas.agent_barrier
// CHECK: scf.for
// CHECK-NEXT: nv_tileas.agent_barrier
// KEPT-LABEL: func.func @agent_barrier
// KEPT: }, {
// KEPT-NEXT: nv_tileas.agent_barrier
// KEPT-NEXT: nv_tileas.agent_barrier
func.func @agent_barrier(%n: index) {
  nv_tileas.async.pipeline.agent_switch attributes {num_agents_per_group = 1 : i32, max_regs = array<i32: 40, 232>, isolated = false} {
    nv_tileas.async.pipeline.yield
  }, {
    nv_tileas.agent_barrier
    nv_tileas.agent_barrier
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      nv_tileas.agent_barrier
      scf.yield
    }
    nv_tileas.async.pipeline.yield
  }
  func.return
}
