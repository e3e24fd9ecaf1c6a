// print_tko and assert on the GPU: vprintf with a .global format and a .local
// argument buffer (ints of 32 bits or fewer widened to 32 bits, 64-bit ints with
// `ll`, floats as f64), one call per distinct element a thread holds, predicated on
// the element's owner; assert calls __assertfail then traps where an element is false.
// RUN: tileir-as %s --gpu-name sm_90a --emit=ptx | filecheck %s
// RUN: tileir-as %s --gpu-name sm_80 -o %t.80.cubin
// RUN: tileir-as %s --gpu-name sm_90a -o %t.90.cubin
// RUN: tileir-as %s --gpu-name sm_100a -o %t.100.cubin

entry @prints(%arg0: tile<i64>, %arg1: tile<f16>) {
  %t = make_token : token
  %bx, %by, %bz = get_tile_block_id : tile<i32>
  %iota = iota : tile<64xi32>
  %neg = constant <i32: -3> : tile<i32>
  // Scalars: thread 0 prints; %a becomes %e, i64 gets ll, 100% stays literal.
  // CHECK: .global .align 1 .b8 __tileir_format[{{[0-9]+}}] = {110, 111, 32, 97, 114, 103, 115, 10, 0};
  // CHECK-NOT: __tileir_buffer
  // CHECK: mov.u64 %tileir_args, 0;
  // CHECK: @%p{{[0-9]+}} call (retval0), vprintf, (param0, param1);
  %0 = print_tko "no args\0A" token=%t -> token
  // "%d %llx %e %%\n"
  // CHECK: .b8 __tileir_format[15] = {37, 100, 32, 37, 108, 108, 120, 32, 37, 101, 32, 37, 37, 10, 0};
  // CHECK: .local .align 8 .b8 __tileir_buffer[24];
  // CHECK-NEXT: st.local.u32 [__tileir_buffer+0], %r{{[0-9]+}};
  // CHECK-NEXT: st.local.u64 [__tileir_buffer+8], %rd{{[0-9]+}};
  // CHECK-NEXT: st.local.f64 [__tileir_buffer+16], %fd{{[0-9]+}};
  // CHECK: vprintf
  %1 = print_tko "%d %x %a %%\0A", %neg, %arg0, %arg1 token=%0 : tile<i32>, tile<i64>, tile<f16> -> token
  // A 64-element tile (the kernel shrinks to the 2 warps it fills): each thread prints
  // its element, with the block id (%u: zero-extended).
  // CHECK: .b8 __tileir_format[9] = {105, 61, 37, 100, 32, 37, 117, 10, 0}
  // CHECK: st.local.u32 [__tileir_buffer+0], %r{{[0-9]+}};
  // CHECK-NEXT: st.local.u32 [__tileir_buffer+4], %r{{[0-9]+}};
  // CHECK: {{^}}	call (retval0), vprintf
  %2 = print_tko "i=%d %u\0A", %iota, %bx token=%1 : tile<64xi32>, tile<i32> -> token
  // CHECK: .global .align 1 .b8 __tileir_message[7] = {115, 109, 97, 108, 108, 63, 0};
  // CHECK: @!%p{{[0-9]+}} call __assertfail, (param0, param1, param2, param3, param4);
  // CHECK-NEXT: @!%p{{[0-9]+}} trap;
  %c64 = constant <i32: 64> : tile<64xi32>
  %ok = cmpi less_than %iota, %c64, signed : tile<64xi32> -> tile<64xi1>
  assert %ok, "small?" : tile<64xi1>
  return
}

// Small integers: sign-extended for %d, zero-extended for %u (as the interpreter reads them).
// CHECK-LABEL: .entry small_ints
// CHECK: cvt.s32.s8 [[S:%r[0-9]+]], [[X:%rs[0-9]+]];
// CHECK: cvt.u32.u8 [[U:%r[0-9]+]], [[X]];
// CHECK: st.local.u32 [__tileir_buffer+0], [[S]];
// CHECK-NEXT: st.local.u32 [__tileir_buffer+4], [[U]];
entry @small_ints(%x: tile<i8>) {
  %t = make_token : token
  %0 = print_tko "%d %u\0A", %x, %x token=%t : tile<i8>, tile<i8> -> token
  return
}
