// Debug verifier rules: one broken case per rule (valid cases in debug.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: print-arguments
func.func @print_unterminated(%n: i32) {
  // expected-error@+1 {{'nv_tileas.print' op format has an unterminated conversion}}
  nv_tileas.print "n=%", %n : i32
  func.return
}

// -----

// RULE: print-arguments
func.func @print_shapes(%a: tensor<64xi32>, %b: tensor<32xi32>) {
  // expected-error@+1 {{'nv_tileas.print' op tensor arguments must share one shape}}
  nv_tileas.print "%d %d\0A", %a, %b : tensor<64xi32>, tensor<32xi32>
  func.return
}

// -----

// RULE: print-arguments
func.func @print_index(%i: index) {
  // expected-error@+1 {{'nv_tileas.print' op argument #0 must be an integer, a float or a pointer (or a tensor of them), got index}}
  nv_tileas.print "%d\0A", %i : index
  func.return
}

// -----

// RULE: assert-condition
func.func @assert_not_bool(%c: tensor<64xi32>) {
  // expected-error@+1 {{'nv_tileas.assert' op condition must be an i1 or a tensor of i1, got tensor<64xi32>}}
  nv_tileas.assert %c, "nonzero" : tensor<64xi32>
  func.return
}
