// convert-tileas-to-llvm lowers the functions marked `nv_tileas.kernel` (what
// convert-tileaa-to-tileas makes of `nv_tileaa.kernel`) to `nvvm.kernel` entries; it reads
// no nv_tileaa marker, and any other function is a located error.
// RUN: tileir-opt %s -p 'convert-tileas-to-llvm{arch=sm_80}' | filecheck %s
// RUN: not tileir-opt %S/Inputs/tileaa_kernel_marker.mlir -p 'convert-tileas-to-llvm{arch=sm_80}' 2>&1 | filecheck %s --check-prefix=ERR

// CHECK: llvm.func @k() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>
// ERR: tileaa_kernel_marker.mlir:3:1: error: 'func.func' op only kernels (functions from cuda_tile entries) can be lowered
func.func @k() attributes {nv_tileas.kernel} {
  func.return
}
