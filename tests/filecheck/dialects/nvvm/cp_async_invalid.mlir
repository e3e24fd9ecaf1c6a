// Verifier diagnostics of nvvm.cp.async.wait.group.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

llvm.func @bad() attributes {nvvm.kernel} {
  // expected-error@+1 {{n must be at least 0, got -1}}
  nvvm.cp.async.wait.group -1
  llvm.return
}
