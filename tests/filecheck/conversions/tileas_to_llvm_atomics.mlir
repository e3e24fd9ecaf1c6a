// convert-tileas-to-llvm: atomics become one predicated `atom` per element a thread
// owns, with the order and scope spelled out; a relaxed or release RMW whose old values
// nobody reads becomes a `red` if `red` has its operation (never exch or cas); acq_rel atomics wait at CTA barriers on both sides, and an
// atomic whose token follows another thread's write waits before (the barriers are
// placed by tileas-insert-barriers, each `nv_tileas.cta_barrier` is one `nvvm.barrier0`).
// The nv_tileaa atomics become nv_tileas.atomic_rmw/atomic_cas first (convert-tileaa-to-tileas).
// RUN: tileir-opt %s -p convert-tileaa-to-tileas,tileas-assign-layouts,tileas-insert-barriers,convert-tileas-to-llvm{arch=sm_90a},cse | filecheck %s

// CHECK-LABEL: llvm.func @atomics
// CHECK: "@$0 red.relaxed.gpu.global.add.u32 [$1], $2;", "b,l,r"
// CHECK-NEXT: nvvm.barrier0
// CHECK: "{\0Amov.b32 $0, 0;\0A@$1 atom.acq_rel.cta.global.max.s32 $0, [$2], $3;\0A}", "=r,b,l,r"
// CHECK-NEXT: nvvm.barrier0
// CHECK: atom.relaxed.sys.global.cas.b32 $0, [$2], $3, $4;
// CHECK: atom.relaxed.gpu.global.add.f32
// CHECK: red.relaxed.gpu.global.add.f32
// CHECK-NOT: nv_tileaa.
builtin.module {
  func.func @atomics(%p: !cuda_tile.ptr<i32>, %q: !cuda_tile.ptr<f32>, %n: i32) attributes {nv_tileaa.kernel} {
    %s = nv_tileas.splat %p : !cuda_tile.ptr<i32> -> tensor<128x!cuda_tile.ptr<i32>>
    %i = cuda_tile.iota : tensor<128xi32>
    %ptrs = nv_tileaa.addptr %s, %i : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>
    %nn = nv_tileas.splat %n : i32 -> tensor<128xi32>
    %mask = cuda_tile.cmpi less_than %i, %nn, signed : tensor<128xi32> -> tensor<128xi1>
    %one = cuda_tile.constant <i32: 1> : tensor<128xi32>
    %t0 = nv_tileaa.create_mem_token : !nv_tileaa.mem_token
    %r0, %t1 = nv_tileaa.atomic_rmw relaxed device add %ptrs, %one, %mask token %t0 : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>, tensor<128xi1>
    %r1, %t2 = nv_tileaa.atomic_rmw acq_rel tl_blk max %ptrs, %i, %mask token %t1 : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>, tensor<128xi1>
    %r2, %t3 = nv_tileaa.atomic_cas relaxed sys %ptrs, %r1, %i, %mask token %t2 : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>, tensor<128xi32>, tensor<128xi1>
    %sq = nv_tileas.splat %q : !cuda_tile.ptr<f32> -> tensor<128x!cuda_tile.ptr<f32>>
    %fptrs = nv_tileaa.addptr %sq, %r2 : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
    %f = cuda_tile.itof %i signed : tensor<128xi32> -> tensor<128xf32>
    %r3, %t4 = nv_tileaa.atomic_rmw relaxed device addf %fptrs, %f, %mask token %t3 : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
    %e = nv_tileaa.addptr %fptrs, %i : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xi32>
    %r4, %t5 = nv_tileaa.atomic_rmw relaxed device addf %e, %r3, %mask token %t4 : tensor<128x!cuda_tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
    func.return
  }
}

// Old values nobody reads: a `red` only where PTX's `red` has the operation and the
// order (issue 13: an unused xchg, a lock release, was printed `red...exch`, not PTX).
// CHECK-LABEL: llvm.func @unused_old_values
// CHECK: "@$0 red.release.gpu.global.add.u32 [$1], $2;"
// CHECK: "{\0Amov.b32 $0, 0;\0A@$1 atom.acquire.gpu.global.add.u32 $0, [$2], $3;\0A}"
// CHECK: "{\0Amov.b32 $0, 0;\0A@$1 atom.release.gpu.global.exch.b32 $0, [$2], $3;\0A}"
// CHECK: "{\0Amov.b64 $0, 0;\0A@$1 atom.relaxed.cta.global.exch.b64 $0, [$2], $3;\0A}"
// CHECK-NOT: red.{{.*}}exch
builtin.module {
  func.func @unused_old_values(%p: !cuda_tile.ptr<i32>, %q: !cuda_tile.ptr<f64>) attributes {nv_tileaa.kernel} {
    %s = nv_tileas.splat %p : !cuda_tile.ptr<i32> -> tensor<128x!cuda_tile.ptr<i32>>
    %i = cuda_tile.iota : tensor<128xi32>
    %ptrs = nv_tileaa.addptr %s, %i : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>
    %one = cuda_tile.constant <i32: 1> : tensor<128xi32>
    %r0, %t0 = nv_tileaa.atomic_rmw release device add %ptrs, %one : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>
    %r1, %t1 = nv_tileaa.atomic_rmw acquire device add %ptrs, %one : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>
    %r2, %t2 = nv_tileaa.atomic_rmw release device xchg %ptrs, %one : tensor<128x!cuda_tile.ptr<i32>>, tensor<128xi32>
    %sq = nv_tileas.splat %q : !cuda_tile.ptr<f64> -> tensor<128x!cuda_tile.ptr<f64>>
    %fptrs = nv_tileaa.addptr %sq, %i : tensor<128x!cuda_tile.ptr<f64>>, tensor<128xi32>
    %half = cuda_tile.constant <f64: 0.5> : tensor<128xf64>
    %r3, %t3 = nv_tileaa.atomic_rmw relaxed tl_blk xchg %fptrs, %half : tensor<128x!cuda_tile.ptr<f64>>, tensor<128xf64>
    func.return
  }
}
