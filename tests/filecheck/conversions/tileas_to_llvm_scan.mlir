// convert-tileas-to-llvm: the work-efficient scan (tileir/conversions/tileas_to_llvm/
// reductions.py, LowerScan).  A 256-element cumsum over two warps, four consecutive
// elements per thread: each thread adds its four elements in order (from the
// identity); the threads' totals are scanned across the lanes in five Kogge-Stone
// steps (`shfl.sync.up` by 1, 2, 4, 8, 16, the sum kept where the lane has a lane that
// far before it), one more `shfl.sync.up` by 1 gives each lane the carry of the lanes
// before it; the last lane of each warp publishes the warp's total in shared memory
// before a barrier and the second warp reads the first's (lane 31: byte 248); no
// barrier closes that read, since nothing writes shared memory after it
// (llvm-defer-read-barriers); then each element is added to its carry once.  A reversed scan of one element per
// lane shuffles down instead, and needs no exclusive carry.  Correctness against the
// interpreter: tests/pytest/test_scan_codegen.py.
// RUN: tileir-as %s --gpu-name sm_80 --emit=llvm | filecheck %s

// CHECK-LABEL: llvm.func @cumsum
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK: %[[P0:.*]] = llvm.fadd %{{.*}}, %[[ZERO]] : f32
// CHECK-NEXT: %[[P1:.*]] = llvm.fadd %{{.*}}, %[[P0]] : f32
// CHECK-NEXT: %[[P2:.*]] = llvm.fadd %{{.*}}, %[[P1]] : f32
// CHECK-NEXT: %[[P3:.*]] = llvm.fadd %{{.*}}, %[[P2]] : f32
// CHECK: nvvm.shfl.sync up %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: llvm.fadd %[[P3]], %{{.*}} : f32
// CHECK-NEXT: llvm.select
// CHECK: nvvm.shfl.sync up %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync up %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync up %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync up %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync up %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: @$2 st.shared.b32 [$0+0], $1;
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: %[[BASE:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<3>
// CHECK-NEXT: %[[LANE31:.*]] = llvm.getelementptr %[[BASE]][248] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
// CHECK-NEXT: llvm.load %[[LANE31]] : !llvm.ptr<3> -> i32
// CHECK-NOT: llvm.load
// CHECK-NOT: nvvm.barrier0
// CHECK: %[[CARRY:.*]] = llvm.fadd
// CHECK-NEXT: llvm.fadd %[[P0]], %[[CARRY]] : f32
// CHECK-NEXT: llvm.fadd %[[P1]], %[[CARRY]] : f32
// CHECK-NEXT: llvm.fadd %[[P2]], %[[CARRY]] : f32
// CHECK-NEXT: llvm.fadd %[[P3]], %[[CARRY]] : f32
// CHECK-NOT: shfl

// CHECK-LABEL: llvm.func @suffix_max
// CHECK: nvvm.shfl.sync down %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK-NEXT: llvm.call_intrinsic "llvm.smax.i32"
// CHECK: nvvm.shfl.sync down %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync down %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync down %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK: nvvm.shfl.sync down %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32 -> i32
// CHECK-NOT: shfl
// CHECK-NOT: {{shared|ptr<3>}}

cuda_tile.module @scans {
  entry @cumsum(%p0: tile<ptr<f32>>, %p1: tile<ptr<f32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %a0 = assume div_by<16>, %p0 : tile<ptr<f32>>
    %a1 = assume div_by<16>, %p1 : tile<ptr<f32>>
    %tv0 = make_tensor_view %a0, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(256), tensor_view<256xf32, strides=[1]>>
    %tv1 = make_tensor_view %a1, shape = [256], strides = [1] : tensor_view<256xf32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(256), tensor_view<256xf32, strides=[1]>>
    %x, %t = load_view_tko weak %pv0[%c0] : partition_view<tile=(256), tensor_view<256xf32, strides=[1]>>, tile<i32> -> tile<256xf32>, token
    %r = scan %x dim=0 reverse=false identities=[0.0 : f32] : tile<256xf32> -> tile<256xf32>
    (%e: tile<f32>, %acc: tile<f32>) {
      %s = addf %e, %acc : tile<f32>
      yield %s : tile<f32>
    }
    %st = store_view_tko weak %r, %pv1[%c0] : tile<256xf32>, partition_view<tile=(256), tensor_view<256xf32, strides=[1]>>, tile<i32> -> token
    return
  }
  entry @suffix_max(%p0: tile<ptr<i32>>, %p1: tile<ptr<i32>>) {
    %c0 = constant <i32: 0> : tile<i32>
    %tv0 = make_tensor_view %p0, shape = [32], strides = [1] : tensor_view<32xi32, strides=[1]>
    %pv0 = make_partition_view %tv0 : partition_view<tile=(32), tensor_view<32xi32, strides=[1]>>
    %tv1 = make_tensor_view %p1, shape = [32], strides = [1] : tensor_view<32xi32, strides=[1]>
    %pv1 = make_partition_view %tv1 : partition_view<tile=(32), tensor_view<32xi32, strides=[1]>>
    %x, %t = load_view_tko weak %pv0[%c0] : partition_view<tile=(32), tensor_view<32xi32, strides=[1]>>, tile<i32> -> tile<32xi32>, token
    %r = scan %x dim=0 reverse=true identities=[-2147483648 : i32] : tile<32xi32> -> tile<32xi32>
    (%e: tile<i32>, %acc: tile<i32>) {
      %s = maxi %e, %acc signed : tile<i32>
      yield %s : tile<i32>
    }
    %st = store_view_tko weak %r, %pv1[%c0] : tile<32xi32>, partition_view<tile=(32), tensor_view<32xi32, strides=[1]>>, tile<i32> -> token
    return
  }
}
