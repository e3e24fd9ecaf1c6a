// Not a kernel at nv_tileas: it still carries the nv_tileaa marker
// (tileas_to_llvm_kernel_marker.mlir).
func.func @k() attributes {nv_tileaa.kernel} {
  func.return
}
