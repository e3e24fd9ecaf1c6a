// nvvm.barrier (upstream MLIR's name): a named barrier of some of the CTA's threads, as a
// warp-specialized agent's barriers become (tileas_to_llvm/agents.py).  It round-trips,
// prints as bar.sync with immediates where its operands are constants (registers
// otherwise), and ptxas accepts it.
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_80}' | tee %t.ptx | filecheck %s --check-prefix=PTX
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// IR-LABEL: llvm.func @named
// IR: nvvm.barrier0
// IR: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}} : i32, i32
// IR: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}} : i32, i32
// PTX-LABEL: .visible .entry named(
// PTX: bar.sync 0;
// PTX: bar.sync 2, 128;
// PTX: bar.sync %r{{[0-9]+}}, 64;
llvm.func @named(%id: i32) attributes {nvvm.kernel} {
  nvvm.barrier0
  %two = llvm.mlir.constant(2 : i32) : i32
  %n = llvm.mlir.constant(128 : i32) : i32
  nvvm.barrier id = %two number_of_threads = %n : i32, i32
  %m = llvm.mlir.constant(64 : i32) : i32
  nvvm.barrier id = %id number_of_threads = %m : i32, i32
  llvm.return
}
