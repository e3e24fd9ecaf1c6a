// nvvm.cp.async.commit.group and nvvm.cp.async.wait.group (upstream MLIR's names): the
// group bookkeeping of cp.async.  They round-trip, print as cp.async.commit_group /
// cp.async.wait_group N (cp.async.wait_all for 0), and ptxas accepts them on sm_80.
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_80}' | tee %t.ptx | filecheck %s --check-prefix=PTX
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin
// RUN: tileir-opt %s -p dce | filecheck %s --check-prefix=KEPT

// IR-LABEL: llvm.func @groups
// IR: nvvm.cp.async.commit.group
// IR-NEXT: nvvm.cp.async.wait.group 1
// IR-NEXT: nvvm.cp.async.wait.group 0
// PTX-LABEL: .visible .entry groups(
// PTX: cp.async.commit_group;
// PTX-NEXT: cp.async.wait_group 1;
// PTX-NEXT: cp.async.wait_all;
// Nothing uses them, and dce keeps them: they order memory.
// KEPT-COUNT-3: nvvm.cp.async
llvm.func @groups() attributes {nvvm.kernel} {
  nvvm.cp.async.commit.group
  nvvm.cp.async.wait.group 1
  nvvm.cp.async.wait.group 0
  llvm.return
}
