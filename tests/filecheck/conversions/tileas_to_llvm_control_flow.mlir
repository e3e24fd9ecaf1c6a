// convert-tileas-to-llvm: scf.if and scf.while carrying a tile become branches whose
// block arguments are the tile's registers (4 per thread here: 256 elements, 64
// threads); tileas-assign-layouts gives the carried tile one layout everywhere.
// RUN: tileir-opt %s -p tileas-assign-layouts,convert-tileas-to-llvm{arch=sm_80},cse | filecheck %s

// CHECK-LABEL: llvm.func @carried
// CHECK: llvm.cond_br %{{.*}}, ^[[THEN:.*]], ^[[ELSE:[a-z0-9]*]]
// CHECK: ^[[THEN]]:
// CHECK-COUNT-4: llvm.fadd
// CHECK: llvm.br ^[[MERGE:.*]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32)
// CHECK: ^[[ELSE]]:
// CHECK-COUNT-4: llvm.fsub
// CHECK: llvm.br ^[[MERGE]]
// CHECK: ^[[MERGE]](%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: llvm.br ^[[BEFORE:.*]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32, f32, f32, f32, f32)
// CHECK: ^[[BEFORE]](%[[I:.*]]: i32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: llvm.icmp "slt" %[[I]]
// CHECK: llvm.cond_br %{{.*}}, ^[[AFTER:.*]](%{{.*}} : i32, f32, f32, f32, f32), ^[[EXIT:.*]](%{{.*}} : i32, f32, f32, f32, f32)
// CHECK: ^[[AFTER]](%{{.*}}: i32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-COUNT-4: llvm.fmul
// CHECK: llvm.br ^[[BEFORE]]
// CHECK: ^[[EXIT]](%{{.*}}: i32, %[[R0:.*]]: f32, %[[R1:.*]]: f32, %[[R2:.*]]: f32, %[[R3:.*]]: f32):
// CHECK: st.global.v4.b32 {{.*}} %[[R0]], %[[R1]], %[[R2]], %[[R3]]
// CHECK-NOT: scf.
// CHECK-NOT: cuda_tile.
builtin.module {
  func.func @carried(%p: !cuda_tile.ptr<f32>, %n: i32) attributes {nv_tileas.kernel} {
    %s = nv_tileas.splat %p : !cuda_tile.ptr<f32> -> tensor<256x!cuda_tile.ptr<f32>>
    %i = cuda_tile.iota : tensor<256xi32>
    %ptrs = nv_tileas.addptr %s, %i : tensor<256x!cuda_tile.ptr<f32>>, tensor<256xi32>
    %view = nv_tileas.view %ptrs : tensor<256x!cuda_tile.ptr<f32>> -> !nv_tileas.tiled_view<256xf32, gmem>
    %c0 = arith.constant 0 : index
    %x = nv_tileas.tiled_load %view[%c0] {atom = #nv_tileas<atom ldg_128b>, in_bounds = array<i1: true>} : !nv_tileas.tiled_view<256xf32, gmem> -> tensor<256xf32>
    %zero = cuda_tile.constant <i32: 0> : i32
    %one = cuda_tile.constant <i32: 1> : i32
    %big = cuda_tile.cmpi greater_than %n, %zero, signed : i32 -> i1
    %t = scf.if %big -> (tensor<256xf32>) {
      %a = cuda_tile.addf %x, %x : tensor<256xf32>
      scf.yield %a : tensor<256xf32>
    } else {
      %b = cuda_tile.subf %x, %x : tensor<256xf32>
      scf.yield %b : tensor<256xf32>
    }
    %r:2 = scf.while (%k = %zero, %acc = %t) : (i32, tensor<256xf32>) -> (i32, tensor<256xf32>) {
      %go = cuda_tile.cmpi less_than %k, %n, signed : i32 -> i1
      scf.condition(%go) %k, %acc : i32, tensor<256xf32>
    } do {
    ^bb0(%k2: i32, %acc2: tensor<256xf32>):
      %sq = cuda_tile.mulf %acc2, %acc2 : tensor<256xf32>
      %k3 = cuda_tile.addi %k2, %one : i32
      scf.yield %k3, %sq : i32, tensor<256xf32>
    }
    nv_tileas.tiled_store %r#1, %view[%c0] {atom = #nv_tileas<atom stg_128b>, in_bounds = array<i1: true>} : tensor<256xf32>, !nv_tileas.tiled_view<256xf32, gmem>
    func.return
  }
}
