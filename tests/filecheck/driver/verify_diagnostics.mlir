// --verify-diagnostics checks tileir's diagnostics against the expected-* annotations of
// each split of the input, as mlir-opt does: this file passes (exit code 0) because every
// error below is produced on the line its annotation names, and nothing else is.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics | filecheck %s

// The same with one expected message altered: the run must fail and say why.
// RUN: sed -e 's/{{op extending to smaller/{{op extending to larger/' %s \
// RUN:   | not tileir-opt --split-input-file --verify-diagnostics 2>&1 \
// RUN:   | filecheck %s --check-prefix=ALTERED
// (The expected report is written beside the annotation, in the chunk @same_line.)

// Each kind of mismatch, reported on stderr the way mlir-opt reports it; exit code 1.
// RUN: not tileir-opt %S/Inputs/verify_diagnostics_mismatch.mlir --split-input-file \
// RUN:   --verify-diagnostics 2>&1 >/dev/null | filecheck %s --check-prefix=MISMATCH
// MISMATCH:      verify_diagnostics_mismatch.mlir:7:{{[0-9]+}}: error: unexpected error: 'cuda_tile.exti' op extending to smaller or identical integer
// MISMATCH-NEXT:     %e = exti %c signed : tile<i32> -> tile<i16>
// MISMATCH-NEXT: {{^ +\^$}}
// MISMATCH:      verify_diagnostics_mismatch.mlir:17:8: error: expected error "extending to smaller or identical integer" was not produced
// MISMATCH:      verify_diagnostics_mismatch.mlir:30:{{[0-9]+}}: error: unexpected error: 'cuda_tile.exti' op extending to smaller or identical integer
// MISMATCH:      verify_diagnostics_mismatch.mlir:28:8: error: expected error "extending to smaller or identical integer" was not produced
// MISMATCH:      verify_diagnostics_mismatch.mlir:41:53: error: 'error' diagnostic emitted when expecting a 'warning'
// MISMATCH:      verify_diagnostics_mismatch.mlir:41:53: error: expected warning "extending to smaller" was not produced
// MISMATCH:      verify_diagnostics_mismatch.mlir:51:8: error: invalid regex: missing ), unterminated subpattern
// MISMATCH:      verify_diagnostics_mismatch.mlir:53:8: error: use of undefined marker '#nowhere'
// MISMATCH-NOT:  error:

// Errors of passes and targets are checked too (-p and -t work as without the flag). The
// ptx target's error has no source location: `@unknown` names it, and without that it is
// reported against the split it came from.
// RUN: tileir-opt %S/Inputs/verify_diagnostics_target.mlir -p canonicalize -t ptx --verify-diagnostics
// RUN: not tileir-opt %S/Inputs/invalid.mlir --disable-verify -t ptx --verify-diagnostics 2>&1 \
// RUN:   | filecheck %s --check-prefix=UNKNOWN
// UNKNOWN: invalid.mlir:1: error: unexpected error: the module has no kernel to print as PTX (lower it to llvm first) (the diagnostic has no source location; it comes from the input starting at line 1)

// A chunk without annotations must verify; its output is printed as usual.
// CHECK: cuda_tile.module @valid
// CHECK: %[[C:.*]] = constant <i32: 1> : tile<i32>
// CHECK: exti %[[C]] signed : tile<i32> -> tile<i64>
cuda_tile.module @valid {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    %e = exti %c signed : tile<i32> -> tile<i64>
    return
  }
}

// -----

// An annotation on the line of the error (line numbers are those of the whole file).
cuda_tile.module @same_line {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    // ALTERED: stdin:[[# @LINE + 2]]:{{[0-9]+}}: error: unexpected error: 'cuda_tile.exti' op extending to smaller or identical integer
    // ALTERED: stdin:[[# @LINE + 1]]:53: error: expected error "op extending to larger or identical integer" was not produced
    %e = exti %c signed : tile<i32> -> tile<i16> // expected-error {{op extending to smaller or identical integer}}
    return
  }
}
// ALTERED-NOT: error:

// -----

// A relative line, and the full message of a verifier.
cuda_tile.module @relative_line {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    // expected-error@+1 {{'cuda_tile.exti' op extending to smaller or identical integer}}
    %e = exti %c unsigned : tile<i32> -> tile<i32>
    return
  }
}

// -----

// `@below` names the next line that holds no annotation; `-re` takes {{regex}} fragments.
cuda_tile.module @below_and_regex {
  entry @k() {
    %c = constant <f32: 1.0> : tile<2x2xf32>
    // expected-error-re@below {{'cuda_tile.{{[a-z]+}}' op {{.*}}number of elements}}
    %r = reshape %c : tile<2x2xf32> -> tile<8xf32>
    return
  }
}

// -----

// `@above` names the previous line without an annotation.
cuda_tile.module @above {
  entry @k() {
    %c = constant <i64: 1> : tile<i64>
    %e = exti %c signed : tile<i64> -> tile<i8>
    // expected-error@above {{extending to smaller}}
    return
  }
}

// -----

// A parse error is a diagnostic like any other (the chunk stops there).
cuda_tile.module @parse_error {
  entry @k(%p: tile<ptr<f32>>) {
    // expected-error@+1 {{divisor must be a power of 2}}
    %a = assume div_by<3>, %p : tile<ptr<f32>>
    return
  }
}

// -----

// A marker names a line by name, as in clang's -verify.
cuda_tile.module @marker {
  entry @k() {
    // expected-error@#narrowing {{extending to smaller or identical integer}}
    %c = constant <i16: 1> : tile<i16>
    %e = exti %c signed : tile<i16> -> tile<i8> // #narrowing
    return
  }
}
