// Verifier diagnostics of nvvm.griddepcontrol.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

llvm.func @bad() attributes {nvvm.kernel} {
  // expected-error@+1 {{kind must be one of wait, launch_dependents, got 'sleep'}}
  nvvm.griddepcontrol sleep
  llvm.return
}
