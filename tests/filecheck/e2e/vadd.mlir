// A real cuTile kernel (tests/corpus/vadd_f32.py) through tileir-as, for each target,
// checked by ptxas.
// RUN: tileir-as %corpus/vadd_f32.mlir --gpu-name sm_80 -o %t.sm80.ptx
// RUN: filecheck %s --check-prefixes=CHECK,SM80 --input-file=%t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin
// RUN: tileir-as %corpus/vadd_f32.mlir --gpu-name sm_90 -o %t.sm90.ptx
// RUN: filecheck %s --check-prefixes=CHECK,SM90 --input-file=%t.sm90.ptx
// RUN: %ptxas -arch=sm_90a %t.sm90.ptx -o %t.sm90.cubin
// RUN: tileir-as %corpus/vadd_f32.mlir --gpu-name sm_100a -o %t.sm100.ptx
// RUN: filecheck %s --check-prefixes=CHECK,SM100 --input-file=%t.sm100.ptx
// RUN: %ptxas -arch=sm_100a %t.sm100.ptx -o %t.sm100.cubin
// RUN: tileir-as %corpus/vadd_f32.mlir --gpu-name sm_80 -o %t.cubin

// SM80: .version 7.0
// SM80: .target sm_80
// SM90: .version 8.0
// SM90: .target sm_90a
// SM100: .version 8.6
// SM100: .target sm_100a
// CHECK: .address_size 64
// The entry's parameters, one for one and in order: a, its shape and stride, ...
// CHECK: .visible .entry vadd_f32_{{.*}}(
// CHECK-NEXT: .param .u64 [[K:.*]]_param_0,
// CHECK-NEXT: .param .u32 [[K]]_param_1,
// CHECK-NEXT: .param .u32 [[K]]_param_2,
// CHECK-NEXT: .param .u64 [[K]]_param_3,
// CHECK-NEXT: .param .u32 [[K]]_param_4,
// CHECK-NEXT: .param .u32 [[K]]_param_5,
// CHECK-NEXT: .param .u64 [[K]]_param_6,
// CHECK-NEXT: .param .u32 [[K]]_param_7,
// CHECK-NEXT: .param .u32 [[K]]_param_8
// CHECK-NEXT: )
// A 1024-element f32 tile over 4 warps: 8 elements per thread in two float4s.
// CHECK-NEXT: .reqntid 128, 1, 1
// No hint, no dot, 8 words a thread: no register budget, ptxas chooses (register_budget.mlir).
// CHECK-NOT: .maxnreg
// CHECK: cvta.to.global.u64
// CHECK: mov.u32 %r{{[0-9]+}}, %tid.x;
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// CHECK: @t_all ld.global.v4.b32
// CHECK: add.rn.f32
// CHECK: @t_all st.global.v4.b32
// CHECK: ret;
