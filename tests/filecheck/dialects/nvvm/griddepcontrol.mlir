// nvvm.griddepcontrol (upstream MLIR's name): programmatic dependent launch.  It
// round-trips, prints as griddepcontrol.wait / .launch_dependents, and ptxas accepts it
// on sm_90a.
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_90a}' | tee %t.ptx | filecheck %s --check-prefix=PTX
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// IR-LABEL: llvm.func @pdl
// IR: nvvm.griddepcontrol wait
// IR-NEXT: nvvm.griddepcontrol launch_dependents
// PTX-LABEL: .visible .entry pdl(
// PTX: griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
llvm.func @pdl() attributes {nvvm.kernel} {
  nvvm.griddepcontrol wait
  nvvm.griddepcontrol launch_dependents
  llvm.return
}
