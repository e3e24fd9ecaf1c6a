// Verifier diagnostics of the warpgroup MMA ops (nvvm.wgmma.*), one case per rule.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{group must be at least 0, got -1}}
nvvm.wgmma.wait.group.sync.aligned -1

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{shape must be m, n, k}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{typeA must be one of f16, bf16, tf32, e4m3, e5m2, s8, u8, got 'f64'}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f64", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{typeA f16 and typeB bf16 cannot be multiplied together}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "bf16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(i32, i32)>
// expected-error@+1 {{typeD of bf16 operands must be one of f32, got 'f16'}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "bf16", typeB = "bf16", typeD = "f16", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(i32, i32)> -> !llvm.struct<(i32, i32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{shape must be m64nNk16 with N a multiple of 8 up to 256 for f16 operands, got m64n12k16}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 12, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{shape must be m64nNk32 with N a multiple of 8 up to 256 for e4m3 operands, got m64n8k16}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "e4m3", typeB = "e4m3", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{scaleD must be one of one, zero, got 'two'}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "two", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{scaleB must be one of one, neg, got 'zero'}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "zero", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{layoutA must be one of row, col, got 'diag'}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "diag", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(i32, i32, i32, i32)>
// expected-error@+1 {{integer operands cannot be negated (scaleA/B = neg)}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 32>, typeA = "s8", typeB = "s8", typeD = "s32", scaleD = "one", scaleA = "neg", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(i32, i32, i32, i32)> -> !llvm.struct<(i32, i32, i32, i32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{only 16-bit operands may be transposed: tf32 takes layoutA = row and layoutB = col}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 8>, typeA = "tf32", typeB = "tf32", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "row"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{the accumulator must be a struct of 2 i32 registers for m64n8 into f16}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f16", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32)>
// expected-error@+1 {{the accumulator must be a struct of 4 f32 registers for m64n8 into f32}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32)> -> !llvm.struct<(f32, f32)>

// -----

%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{the result type !llvm.struct<(i32, i32, i32, i32)> must be the accumulator's !llvm.struct<(f32, f32, f32, f32)>}}
%r = nvvm.wgmma.mma_async %d, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(i32, i32, i32, i32)>

// -----

%a = "test.op"() : () -> !llvm.struct<(i32, i32)>
%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{A in registers must be a struct of 4 i32 words}}
%r = nvvm.wgmma.mma_async %a, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "row", layoutB = "col"} : !llvm.struct<(i32, i32)>, !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>

// -----

%a = "test.op"() : () -> !llvm.struct<(i32, i32, i32, i32)>
%d = "test.op"() : () -> i64
%c = "test.op"() : () -> !llvm.struct<(f32, f32, f32, f32)>
// expected-error@+1 {{A in registers is K-major: layoutA must be row}}
%r = nvvm.wgmma.mma_async %a, %d, %c {shape = array<i32: 64, 8, 16>, typeA = "f16", typeB = "f16", typeD = "f32", scaleD = "one", scaleA = "one", scaleB = "one", layoutA = "col", layoutB = "col"} : !llvm.struct<(i32, i32, i32, i32)>, !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
