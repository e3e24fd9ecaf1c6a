// Verifier diagnostics of nvvm.ldmatrix, nvvm.mma.sync and nvvm.fence.proxy.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

%p = "test.op"() : () -> i32
// expected-error@+1 {{num must be 1, 2 or 4 matrices, got 3}}
%r = nvvm.ldmatrix %p {num = 3 : i32, layout = "row"} : (i32) -> !llvm.struct<(i32, i32, i32)>

// -----

%p = "test.op"() : () -> i32
// expected-error@+1 {{layout must be one of row, col, got 'diag'}}
%r = nvvm.ldmatrix %p {num = 1 : i32, layout = "diag"} : (i32) -> i32

// -----

%p = "test.op"() : () -> i32
// expected-error@+1 {{the result must be !llvm.struct<(i32, i32)> for num = 2, got i32}}
%r = nvvm.ldmatrix %p {num = 2 : i32, layout = "row"} : (i32) -> i32

// -----

%w = "test.op"() : () -> i32
%f = "test.op"() : () -> f32
// expected-error@+1 {{shape must be m16n8k8, m16n8k16 or m16n8k32, got m16n16k16}}
%d = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{operandSegmentSizes = array<i32: 4, 2, 4>, shape = array<i32: 16, 16, 16>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "f16", multiplicandBPtxType = "f16", accumulatorPtxType = "f32"}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%w = "test.op"() : () -> i32
%f = "test.op"() : () -> f32
// expected-error@+1 {{m16n8 mma.sync takes layoutA = row and layoutB = col}}
%d = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{operandSegmentSizes = array<i32: 4, 2, 4>, shape = array<i32: 16, 8, 16>, layoutA = "col", layoutB = "col", multiplicandAPtxType = "f16", multiplicandBPtxType = "f16", accumulatorPtxType = "f32"}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%w = "test.op"() : () -> i32
%f = "test.op"() : () -> f32
// expected-error@+1 {{multiplicandAPtxType must be one of f16, bf16, tf32, s8, u8, e4m3, e5m2, got 'f64'}}
%d = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{operandSegmentSizes = array<i32: 4, 2, 4>, shape = array<i32: 16, 8, 16>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "f64", multiplicandBPtxType = "f16", accumulatorPtxType = "f32"}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%w = "test.op"() : () -> i32
// expected-error@+1 {{C must be 4 f32 registers for a f32 accumulator}}
%d = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %w, %w, %w, %w) <{operandSegmentSizes = array<i32: 4, 2, 4>, shape = array<i32: 16, 8, 16>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "f16", multiplicandBPtxType = "f16", accumulatorPtxType = "f32"}> : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%w = "test.op"() : () -> i32
%f = "test.op"() : () -> f32
// expected-error@+1 {{the result must be a struct of 4 f32 registers}}
%d = "nvvm.mma.sync"(%w, %w, %w, %w, %w, %w, %f, %f, %f, %f) <{operandSegmentSizes = array<i32: 4, 2, 4>, shape = array<i32: 16, 8, 16>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "f16", multiplicandBPtxType = "f16", accumulatorPtxType = "f32"}> : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32)>

// -----

%w = "test.op"() : () -> i32
%f = "test.op"() : () -> f32
// expected-error@+1 {{A takes 2 or 4 words and B 1 or 2}}
%d = "nvvm.mma.sync"(%w, %w, %w, %f, %f, %f, %f) <{operandSegmentSizes = array<i32: 1, 2, 4>, shape = array<i32: 16, 8, 16>, layoutA = "row", layoutB = "col", multiplicandAPtxType = "f16", multiplicandBPtxType = "f16", accumulatorPtxType = "f32"}> : (i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>

// -----

// expected-error@+1 {{tileir emits only the async proxy fence on the CTA's shared memory}}
nvvm.fence.proxy {kind = "alias", space = "cta"}
