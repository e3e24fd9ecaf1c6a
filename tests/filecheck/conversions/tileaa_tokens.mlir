// Token hop two (seed 004): in convert-tileaa-to-tileas, an asynchronous mem token
// (num_producers > 0) becomes its mbarrier slot (an i32 handle) and an mbarrier init
// whose count is its producer count, done by thread 0 at the top of the kernel and
// published by one CTA barrier; a join becomes a chain of parity waits, one per
// asynchronous input in operand order, its synchronous inputs staying joined; a memory
// access that takes an asynchronous token waits for it first.  Synchronous tokens are
// left alone.  Slots are counted per kernel.  The lowered kernels assemble for every
// target.
// RUN: tileir-opt %s -p convert-tileaa-to-tileas | filecheck %s
// RUN: tileir-opt %s -p 'convert-tileaa-to-tileas,tileas-assign-layouts,tileas-insert-barriers,convert-tileas-to-llvm{arch=sm_80},cse,dce' -t 'ptx{arch=sm_80}' | tee %t.80.ptx | filecheck %s --check-prefix=PTX80
// RUN: %ptxas -arch=sm_80 %t.80.ptx -o %t.80.cubin
// RUN: tileir-opt %s -p 'convert-tileaa-to-tileas,tileas-assign-layouts,tileas-insert-barriers,convert-tileas-to-llvm{arch=sm_90a},cse,dce' -t 'ptx{arch=sm_90a}' | tee %t.90.ptx | filecheck %s --check-prefix=PTX90
// RUN: %ptxas -arch=sm_90a %t.90.ptx -o %t.90.cubin
// RUN: tileir-opt %s -p 'convert-tileaa-to-tileas,tileas-assign-layouts,tileas-insert-barriers,convert-tileas-to-llvm{arch=sm_100a},cse,dce' -t 'ptx{arch=sm_100a}' > %t.100.ptx
// RUN: %ptxas -arch=sm_100a %t.100.ptx -o %t.100.cubin

// CHECK-LABEL: func.func @hop_two
// The prologue: thread 0 initializes slot 0 for 2 producers and slot 1 for 1, then a
// CTA barrier; the pool holds the kernel's 2 barriers.
// CHECK-NEXT: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[LEADER:.*]] = llvm.icmp "eq" %[[TID]], %[[ZERO]] : i32
// CHECK-NEXT: %[[SLOT0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[BAR0:.*]] = nvvm.mbarrier.pool.address %[[SLOT0]] {pool_size = 2 : i32} : i32 -> !llvm.ptr<3>
// CHECK-NEXT: %[[TWO:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.init.shared %[[BAR0]], %[[TWO]], predicate = %[[LEADER]] : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: %[[SLOT1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[BAR1:.*]] = nvvm.mbarrier.pool.address %[[SLOT1]] {pool_size = 2 : i32} : i32 -> !llvm.ptr<3>
// CHECK-NEXT: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: nvvm.mbarrier.init.shared %[[BAR1]], %[[ONE]], predicate = %[[LEADER]] : !llvm.ptr<3>, i32, i1
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[PHASE:.*]] = llvm.mlir.constant(0 : i32) : i32
// No asynchronous create_mem_token is left; the synchronous one stays.
// CHECK-NOT: num_producers
// CHECK-NEXT: %[[SYNC:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// The join of %a, %s, %b: a parity-0 wait on %a's barrier, then on %b's, in operand
// order; the synchronous input %s is what the join leaves.
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity.shared %[[BAR0]], %[[PHASE]] : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity.shared %[[BAR1]], %[[PHASE]] : !llvm.ptr<3>, i32
// CHECK-NOT: nv_tileaa.join_mem_token
// CHECK: nv_tileas.tiled_load %{{.*}} token %[[SYNC]]
// The store took %b directly: it waits for %b's barrier, then follows a fresh token.
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity.shared %[[BAR1]], %[[PHASE]] : !llvm.ptr<3>, i32
// CHECK-NEXT: %[[FRESH:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK: nv_tileas.tiled_store %{{.*}} token %[[FRESH]]

// PTX80-LABEL: .visible .entry hop_two(
// PTX80: .shared .align 8 .b64 __tileir_mbarriers[2];
// PTX80: @%p{{[0-9]+}} mbarrier.init.shared.b64 [%[[B0:r[0-9]+]]], %{{r[0-9]+}};
// PTX80: @%p{{[0-9]+}} mbarrier.init.shared.b64 [%[[B1:r[0-9]+]]], %{{r[0-9]+}};
// PTX80-NEXT: bar.sync 0;
// PTX80: mbarrier.test_wait.parity.shared.b64 %p_done, [%[[B0]]]
// PTX80: mbarrier.test_wait.parity.shared.b64 %p_done, [%[[B1]]]
// PTX80: ld.global
// PTX80: mbarrier.test_wait.parity.shared.b64 %p_done, [%[[B1]]]
// PTX80: st.global
// PTX90-LABEL: .visible .entry hop_two(
// PTX90: mbarrier.try_wait.parity.shared.b64 %p_done
func.func @hop_two(%p: !cuda_tile.ptr<f32>) attributes {nv_tileaa.kernel} {
  %a = nv_tileaa.create_mem_token {num_producers = 2 : i32} : !nv_tileaa.mem_token
  %b = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %s = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %j = nv_tileaa.join_mem_token %a, %s, %b : !nv_tileaa.mem_token
  %sp = nv_tileaa.splat %p : !cuda_tile.ptr<f32> -> tensor<128x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<128xi32>
  %ptrs = nv_tileaa.addptr %sp, %i : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs token %j : tensor<128x!cuda_tile.ptr<f32>> -> tensor<128xf32>
  %t2 = nv_tileaa.store weak %ptrs, %x token %b : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xf32>
  func.return
}

// A join of asynchronous tokens only: three waits (one per input, %a twice as it is
// joined twice) and a fresh synchronous token that follows nothing else.  A join that
// keeps two synchronous inputs stays a join of those two.
// CHECK-LABEL: func.func @joins
// CHECK: nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK: nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity.shared %[[A:.*]], %[[PH:.*]] : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity.shared %[[B:.*]], %[[PH]] : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity.shared %[[A]], %[[PH]] : !llvm.ptr<3>, i32
// CHECK-NEXT: %[[J1:.*]] = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
// CHECK-NEXT: nvvm.mbarrier.try_wait.parity.shared %[[B]], %[[PH]] : !llvm.ptr<3>, i32
// CHECK-NEXT: %[[J2:.*]] = nv_tileaa.join_mem_token %{{.*}}, %{{.*}} : !nv_tileaa.mem_token
// CHECK: nv_tileas.tiled_load %{{.*}} token %[[J1]]
// CHECK: nv_tileas.tiled_load %{{.*}} token %[[J2]]
// PTX80-LABEL: .visible .entry joins(
// PTX80: .shared .align 8 .b64 __tileir_mbarriers[2];
func.func @joins(%p: !cuda_tile.ptr<f32>) attributes {nv_tileaa.kernel} {
  %a = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %b = nv_tileaa.create_mem_token {num_producers = 3 : i32} : !nv_tileaa.mem_token
  %s1 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %s2 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %j1 = nv_tileaa.join_mem_token %a, %b, %a : !nv_tileaa.mem_token
  %j2 = nv_tileaa.join_mem_token %s1, %b, %s2 : !nv_tileaa.mem_token
  %sp = nv_tileaa.splat %p : !cuda_tile.ptr<f32> -> tensor<128x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<128xi32>
  %ptrs = nv_tileaa.addptr %sp, %i : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs token %j1 : tensor<128x!cuda_tile.ptr<f32>> -> tensor<128xf32>
  %y, %t2 = nv_tileaa.load weak %ptrs token %j2 : tensor<128x!cuda_tile.ptr<f32>> -> tensor<128xf32>
  %z = cuda_tile.addf %x, %y rounding<nearest_even> : tensor<128xf32>
  %t3 = nv_tileaa.store weak %ptrs, %z : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xf32>
  func.return
}

// Synchronous tokens only: no mbarrier machinery at all.
// CHECK-LABEL: func.func @synchronous
// CHECK-NOT: nvvm.
// CHECK: nv_tileaa.join_mem_token
// CHECK-NOT: nvvm.
// CHECK: func.return
// PTX80-LABEL: .visible .entry synchronous(
// PTX80-NOT: mbarrier
// PTX80: ret;
func.func @synchronous(%p: !cuda_tile.ptr<f32>) attributes {nv_tileaa.kernel} {
  %s1 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %s2 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
  %j = nv_tileaa.join_mem_token %s1, %s2 : !nv_tileaa.mem_token
  %sp = nv_tileaa.splat %p : !cuda_tile.ptr<f32> -> tensor<128x!cuda_tile.ptr<f32>>
  %i = cuda_tile.iota : tensor<128xi32>
  %ptrs = nv_tileaa.addptr %sp, %i : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
  %x, %t1 = nv_tileaa.load weak %ptrs token %j : tensor<128x!cuda_tile.ptr<f32>> -> tensor<128xf32>
  %t2 = nv_tileaa.store weak %ptrs, %x token %t1 : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xf32>
  func.return
}
