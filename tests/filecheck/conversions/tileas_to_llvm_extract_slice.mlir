// convert-tileas-to-llvm: `nv_tileas.extract_slice` of a tile goes through shared memory
// (shared_memory.py `LowerExtract`): every thread writes the source, and reads its
// result registers from the buffer at the tile coordinate (offset / size) times the
// sub-tile's step.  A dynamic offset is `index_cast(%i) * size`, as
// convert-tileaa-to-tileas makes it from cuda_tile's tile coordinate `%i`: the address
// uses `%i` itself; a static offset gives its coordinate as a constant.
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse,dce | filecheck %s
// RUN: tileir-opt %s -p convert-tileas-to-llvm{arch=sm_80},cse,dce -t 'ptx{arch=sm_80}' > %t.ptx
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// CHECK-LABEL: llvm.func @extract(
// CHECK-SAME: %[[I:[^:]*]]: i32
// CHECK-NOT: arith.
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: nvvm.barrier0
// CHECK: %[[STEP:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK: %[[AT:.*]] = llvm.mul %[[I]], %[[STEP]] : i32
// CHECK: llvm.add %{{.*}}, %[[AT]] : i32
// CHECK: nvvm.barrier0
// The static offset 1: coordinate 1.
// CHECK: nvvm.barrier0
// CHECK: llvm.mul %[[ONE]], %[[STEP]] : i32
// CHECK: nvvm.barrier0
// CHECK-NOT: arith.
// CHECK-NOT: nv_tileas.extract_slice
#l8 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#l1 = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
builtin.module {
  func.func @extract(%i: i32, %p: !cuda_tile.ptr<i32>) attributes {nv_tileas.kernel, nv_tileas.num_warps = 1 : i32} {
    %t = cuda_tile.iota : tensor<8xi32, #l8>
    %o = arith.index_cast %i : i32 to index
    %one = arith.constant 1 : index
    %off = arith.muli %o, %one : index
    %a = nv_tileas.extract_slice %t[%off][1][1] : tensor<8xi32, #l8> to tensor<1xi32, #l1>
    %b = nv_tileas.extract_slice %t[1][1][1] : tensor<8xi32, #l8> to tensor<1xi32, #l1>
    %s = cuda_tile.addi %a, %b : tensor<1xi32, #l1>
    %ps = nv_tileas.splat %p : !cuda_tile.ptr<i32> -> tensor<1x!cuda_tile.ptr<i32>, #l1>
    %v = nv_tileas.view %ps : tensor<1x!cuda_tile.ptr<i32>, #l1> -> !nv_tileas.tiled_view<1xi32, gmem>
    %c0 = arith.constant 0 : index
    nv_tileas.tiled_store %s, %v[%c0] {atom = #nv_tileas<atom stg_32b>} : tensor<1xi32, #l1>, !nv_tileas.tiled_view<1xi32, gmem>
    func.return
  }

  // In registers (`extract_plan`): the source's layout covers 32 elements per register
  // (one a lane), so the slice at the static offset 32 is register 1 of every thread,
  // laid out as the slice is: no barrier, no shared memory.  At offset 16 the slice's
  // elements sit in other lanes, and it goes through shared memory.
  // CHECK-LABEL: llvm.func @extract_in_registers(
  // CHECK-NOT: nvvm.barrier0
  // CHECK: %[[R1:.*]] = llvm.xor %{{.*}}, %{{.*}} : i32
  // CHECK-NEXT: llvm.inline_asm {{.*}}st.global.b32 {{.*}} %[[R1]], %{{.*}}
  // CHECK: nvvm.barrier0
  // CHECK: llvm.return
  func.func @extract_in_registers(%p: !cuda_tile.ptr<i32>) attributes {nv_tileas.kernel, nv_tileas.num_warps = 1 : i32} {
    %t = cuda_tile.iota : tensor<64xi32, #l1>
    %a = nv_tileas.extract_slice %t[32][32][1] : tensor<64xi32, #l1> to tensor<32xi32, #l1>
    %ps = nv_tileas.splat %p : !cuda_tile.ptr<i32> -> tensor<32x!cuda_tile.ptr<i32>, #l1>
    %v = nv_tileas.view %ps : tensor<32x!cuda_tile.ptr<i32>, #l1> -> !nv_tileas.tiled_view<32xi32, gmem>
    %c0 = arith.constant 0 : index
    nv_tileas.tiled_store %a, %v[%c0] {atom = #nv_tileas<atom stg_32b>} : tensor<32xi32, #l1>, !nv_tileas.tiled_view<32xi32, gmem>
    %b = nv_tileas.extract_slice %t[16][16][1] : tensor<64xi32, #l1> to tensor<16xi32, #l1>
    %s = cuda_tile.addi %b, %b : tensor<16xi32, #l1>
    func.return
  }
}
