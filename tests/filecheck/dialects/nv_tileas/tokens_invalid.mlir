// Async token verifier rules (valid cases in tokens.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// RULE: future-types
func.func @future_wait(%f: !async.value<tensor<64xf32>>) {
  // expected-error@+1 {{'nv_tileas.async.future_wait' op result type tensor<64xf16> must be the future's value type tensor<64xf32>}}
  %x = nv_tileas.async.future_wait %f : !async.value<tensor<64xf32>> -> tensor<64xf16>
  func.return
}

// -----

// RULE: future-types
func.func @to_async(%x: tensor<64xf32>) {
  // expected-error@+1 {{'nv_tileas.async.to_async' op result !async.value<tensor<32xf32>> must wrap the operand type tensor<64xf32>}}
  %f = nv_tileas.async.to_async %x : tensor<64xf32> -> !async.value<tensor<32xf32>>
  func.return
}
