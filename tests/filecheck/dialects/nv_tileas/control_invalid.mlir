// Control verifier rules (valid cases in control.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: pragma-directives
func.func @pragma() {
  // expected-error@+1 {{'nv_tileas.pragma' op needs ocgEnterDirectives or ocgLeaveDirectives}}
  nv_tileas.pragma {
    nv_tileas.yield
  }
  func.return
}

// -----

// RULE: region-yield-types
func.func @pragma_results(%x: tensor<128xf32>) {
  // expected-error@+1 {{'nv_tileas.pragma' op region must end with nv_tileas.yield of the result types}}
  %r = nv_tileas.pragma -> (tensor<128xf32>) attributes {ocgEnterDirectives = ["a"]} {
    nv_tileas.yield
  }
  func.return
}
