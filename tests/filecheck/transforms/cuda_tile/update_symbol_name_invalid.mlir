// test-debuginfo-update-symbol-name: the scope must enclose the symbol; both must exist.
// RUN: tileir-opt %s --verify-diagnostics --test-debuginfo-update-symbol-name="symbol-to-rename=kernels::k scope=kernels::other new-name=k2"
// RUN: not tileir-opt %s --test-debuginfo-update-symbol-name="symbol-to-rename=kernels::missing new-name=k2" 2>&1 | filecheck %s --check-prefix=MISSING

// MISSING: error: could not find symbol op with name '@kernels::@missing'
cuda_tile.module @kernels {
  // expected-error @below {{attempted to update symbol names in a scope that did not enclose the symbol itself}}
  entry @k() {
    return
  }
  // expected-note @below {{scope defined here}}
  entry @other() {
    return
  }
}
