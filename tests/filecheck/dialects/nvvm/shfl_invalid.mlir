// Verifier diagnostics of nvvm.shfl.sync.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

%v = "test.op"() : () -> i32
// expected-error@+1 {{kind must be one of bfly, up, down, idx, got 'xor'}}
%r = nvvm.shfl.sync xor %v, %v, %v, %v : i32 -> i32

// -----

%v = "test.op"() : () -> i32
%w = "test.op"() : () -> i64
// expected-error@+1 {{the value must be one 32-bit word (i32 or f32), got i64}}
%r = nvvm.shfl.sync idx %v, %w, %v, %v : i64 -> i64

// -----

%v = "test.op"() : () -> i32
// expected-error@+1 {{the result type f32 must be the value's type i32}}
%r = nvvm.shfl.sync bfly %v, %v, %v, %v : i32 -> f32
