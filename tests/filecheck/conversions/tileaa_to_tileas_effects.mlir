// convert-tileaa-to-tileas: prints, assertions, grid-dependency control and globals become
// tileir's nv_tileas forms (tileir/conversions/tileaa_effects.py; seed 003 has none of
// them).  A print's or a grid-dependency op's token only orders, so the op loses it and
// its input token goes on to what followed it; tileas-insert-barriers then reads the same
// access history (a barrier before the store, which follows the load through the print
// and the launch) and drops every token.  The kernel assembles for every target.
// RUN: tileir-opt %s -p convert-cuda-tile-to-tileaa,convert-tileaa-to-tileas | filecheck %s
// RUN: tileir-as %s --gpu-name sm_90a --emit=tileas | filecheck %s --check-prefix=TILEAS
// RUN: tileir-as %s --gpu-name sm_90a --emit=ptx | filecheck %s --check-prefix=PTX
// RUN: tileir-as %s --gpu-name sm_80 -o %t.80.cubin
// RUN: tileir-as %s --gpu-name sm_100a -o %t.100.cubin

// CHECK: nv_tileas.global @table dense<[1, 2, 3, 4]> : tensor<4xi32> {alignment = 16 : i64, constant, sym_visibility = "private"}
// CHECK-LABEL: func.func @effects
// CHECK: %[[T0:.*]] = nv_tileaa.create_mem_token
// CHECK-NEXT: nv_tileas.gdc_wait
// CHECK-NEXT: %[[P:.*]] = nv_tileas.get_global @table : !cuda_tile.ptr<i32>
// CHECK: %[[V:.*]], %[[T1:.*]] = nv_tileas.tiled_load %{{.*}}[] token %[[T0]]
// CHECK-NEXT: nv_tileas.print "v=%d\0A", %[[V]] : i32
// CHECK: nv_tileas.assert %{{.*}}, "positive" : i1
// CHECK-NEXT: nv_tileas.gdc_launch_dependents
// CHECK: nv_tileas.tiled_store %[[V]], %{{.*}}[] token %[[T1]]
// CHECK-NOT: cuda_tile.print_tko
// CHECK-NOT: cuda_tile.gdc_

// TILEAS-NOT: nv_tileaa
// TILEAS: nv_tileas.global @table
// TILEAS: nv_tileas.gdc_wait
// TILEAS: nv_tileas.print "v=%d\0A"
// TILEAS: nv_tileas.assert
// TILEAS: nv_tileas.gdc_launch_dependents
// TILEAS: nv_tileas.cta_barrier
// TILEAS-NEXT: nv_tileas.tiled_store
// TILEAS-NOT: nv_tileaa

// PTX: .global .align 16 .b8 tileir_global_table[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};
// PTX: griddepcontrol.wait;
// PTX: vprintf
// PTX: __assertfail
// PTX: griddepcontrol.launch_dependents;
// PTX: bar.sync 0;
// PTX: st.global
cuda_tile.module @kernels {
  global private constant @table alignment = 16 <i32: [1, 2, 3, 4]> : tile<4xi32>
  entry @effects(%out: tile<ptr<i32>>) {
    %t0 = make_token : token
    %w = gdc_wait_tko token = %t0 -> token
    %p = get_global @table : tile<ptr<i32>>
    %v, %t1 = load_ptr_tko weak %p token=%w : tile<ptr<i32>> -> tile<i32>, token
    %t2 = print_tko "v=%d\0A", %v token=%t1 : tile<i32> -> token
    %zero = constant <i32: 0> : tile<i32>
    %ok = cmpi greater_than %v, %zero, signed : tile<i32> -> tile<i1>
    assert %ok, "positive" : tile<i1>
    %t3 = gdc_launch_dependents_tko token = %t2 -> token
    %t4 = store_ptr_tko weak %out, %v token=%t3 : tile<ptr<i32>>, tile<i32> -> token
    return
  }
}
