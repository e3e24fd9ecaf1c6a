// Verifier diagnostics of the nvvm mbarrier ops.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

%s = "test.op"() : () -> i32
// expected-error@+1 {{pool_size must be between 1 and 32 (the CTA's mbarrier pool), got 33}}
%b = nvvm.mbarrier.pool.address %s {pool_size = 33 : i32} : i32 -> !llvm.ptr<3>

// -----

%s = "test.op"() : () -> i32
// expected-error@+1 {{pool_size must be between 1 and 32 (the CTA's mbarrier pool), got 0}}
%b = nvvm.mbarrier.pool.address %s {pool_size = 0 : i32} : i32 -> !llvm.ptr<3>

// -----

%s = "test.op"() : () -> i32
// expected-error@+1 {{the result must be a shared-memory pointer (!llvm.ptr<3>), got !llvm.ptr}}
%b = nvvm.mbarrier.pool.address %s {pool_size = 1 : i32} : i32 -> !llvm.ptr

// -----

%p = "test.op"() : () -> !llvm.ptr
%c = "test.op"() : () -> i32
// expected-error@+1 {{the mbarrier address must be a shared-memory pointer (!llvm.ptr<3>), got !llvm.ptr}}
nvvm.mbarrier.init.shared %p, %c : !llvm.ptr, i32

// -----

%p = "test.op"() : () -> !llvm.ptr<1>
// expected-error@+1 {{the mbarrier address must be a shared-memory pointer (!llvm.ptr<3>), got !llvm.ptr<1>}}
%s = nvvm.mbarrier.arrive.shared %p : !llvm.ptr<1> -> i64

// -----

%p = "test.op"() : () -> !llvm.ptr<3>
%c = "test.op"() : () -> i64
// expected-error@+1 {{Expected attribute i32 but got i64}}
nvvm.mbarrier.try_wait.parity.shared %p, %c : !llvm.ptr<3>, i64

// -----

%p = "test.op"() : () -> !llvm.ptr
%c = "test.op"() : () -> i32
// expected-error@+1 {{the mbarrier address must be a shared-memory pointer (!llvm.ptr<3>), got !llvm.ptr}}
%d = nvvm.mbarrier.test.wait.parity.shared %p, %c : !llvm.ptr, i32 -> i1
