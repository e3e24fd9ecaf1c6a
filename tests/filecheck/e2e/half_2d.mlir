// A 2-D f16 kernel (tests/corpus/tanh_exp_f16_2d.py): 16-byte vectors of eight
// halves along rows whose pitch is known divisible by 8, f32 math in between, and
// correct rounding back to f16.
// RUN: tileir-as %corpus/tanh_exp_f16_2d.mlir --gpu-name sm_90 -o %t.ptx
// RUN: filecheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin
// RUN: tileir-as %corpus/tanh_exp_f16_2d.mlir --gpu-name sm_80 -o %t80.ptx
// RUN: %ptxas -arch=sm_80 %t80.ptx -o %t80.cubin

// CHECK: .reqntid 128, 1, 1
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.x;
// CHECK: mov.u32 %r{{[0-9]+}}, %ctaid.y;
// CHECK: @t_all ld.global.v4.b32 {t_w0, t_w1, t_w2, t_w3}
// CHECK: mov.b32 {%rs{{[0-9]+}}, %rs{{[0-9]+}}}, t_w0;
// CHECK: cvt.f32.f16
// CHECK: cvt.rn.f16.f32
// CHECK: @t_all st.global.v4.b32
