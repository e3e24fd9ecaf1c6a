// Verifier warnings: the op still verifies, the warning is reported (and matched by
// `expected-warning`).  Hints are only checked under --Wunsupported-hints; with
// --Werr-hints bad hints also fail the op.
// RUN: tileir-opt %s --split-input-file --Wunsupported-hints --verify-diagnostics
// RUN: tileir-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=SILENT
// RUN: not tileir-opt %s --split-input-file --Wunsupported-hints --Werr-hints 2>&1 >/dev/null | filecheck %s --check-prefix=ERR

// SILENT: warnings.mlir:17:5: warning: extract index 0 value 2 may be out of bounds (max valid index: 1)
// SILENT-NEXT: {{^}}    %x = extract %a[%c2] : tile<8xf32> -> tile<4xf32>
// SILENT-NEXT: {{^}}    ^
// SILENT-NEXT: warnings.mlir:20:5: warning: extract index 0 has negative value -3, which may cause undefined behavior
// SILENT-NOT: hint
cuda_tile.module @extract_out_of_range {
  testing$func @f(%a: tile<8xf32>) {
    %c2 = constant <i32: 2> : tile<i32>
    // expected-warning @below {{extract index 0 value 2 may be out of bounds (max valid index: 1)}}
    %x = extract %a[%c2] : tile<8xf32> -> tile<4xf32>
    %cm3 = constant <i32: -3> : tile<i32>
    // expected-warning @below {{extract index 0 has negative value -3, which may cause undefined behavior}}
    %y = extract %a[%cm3] : tile<8xf32> -> tile<4xf32>
    %c1 = constant <i32: 1> : tile<i32>
    %z = extract %a[%c1] : tile<8xf32> -> tile<4xf32>
    return
  }
}

// -----

// ERR: warnings.mlir:35:3: warning: unknown hint key sm_100a
// ERR-NEXT: {{^}}  entry @e() optimization_hints=<sm_100a={num_cta_in_cga=2}> {
// ERR-NEXT: {{^}}  ^
// ERR-NEXT: warnings.mlir:35:3: error: 'cuda_tile.entry' op Optimization hints verification failed
cuda_tile.module @bad_hint {
  // expected-warning @below {{unknown hint key sm_100a}}
  entry @e() optimization_hints=<sm_100a={num_cta_in_cga=2}> {
    return
  }
}

// -----

// A chunk after a failing one is still processed.
// ERR: warnings.mlir:46:3: warning: expected power-of-two ≤ 32 for sm_90.num_worker_warps_per_cta
cuda_tile.module @bad_warps {
  // expected-warning @below {{expected power-of-two ≤ 32 for sm_90.num_worker_warps_per_cta}}
  entry @e() optimization_hints=<sm_90={num_worker_warps_per_cta=3}> {
    return
  }
}
