// Shared-memory accesses are llvm.load / llvm.store through !llvm.ptr<3> (LLBuilder
// shared_pointer / load / store / load_words / store_words).  A shared pointer is a
// 32-bit address (llvm.inttoptr of the arena's i32 address takes its register); a
// constant getelementptr used only as an address folds into the access ([%r+8]); a
// store of a vector and a load of a struct of 2 or 4 words aligned to the whole access
// are one vector access; an i8 loads sign-extended into its 16-bit register.
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_80}' | tee %t.ptx | filecheck %s --check-prefix=PTX
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// IR-LABEL: llvm.func @shared
// IR: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// IR: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> !llvm.struct<(i32, i32, i32, i32)>

// PTX-LABEL: .visible .entry shared(
// PTX: ld.param.u32 %[[A:r[0-9]+]], [shared_param_0];
// PTX-NEXT: ld.param.u32 %[[W:r[0-9]+]], [shared_param_1];
// PTX-NEXT: ld.param.s8 %[[B:rs[0-9]+]], [shared_param_2];
// PTX-NEXT: ld.param.f32 %[[F:f[0-9]+]], [shared_param_3];
// PTX-NEXT: ld.param.u64 %[[D:rd[0-9]+]], [shared_param_4];
// PTX-NEXT: st.shared.b32 [%[[A]]], %[[W]];
// PTX-NEXT: st.shared.b32 [%[[A]]+8], %[[F]];
// PTX-NEXT: st.shared.b8 [%[[A]]+8], %[[B]];
// PTX-NEXT: st.shared.b64 [%[[A]]], %[[D]];
// PTX-NEXT: st.shared.v4.b32 [%[[A]]], {%[[W]], %[[W]], %[[W]], %[[W]]};
// PTX-NEXT: st.shared.v2.b64 [%[[A]]], {%[[D]], %[[D]]};
// PTX-NEXT: ld.shared.s8 %{{rs[0-9]+}}, [%[[A]]+8];
// PTX-NEXT: ld.shared.b32 %{{f[0-9]+}}, [%[[A]]];
// PTX-NEXT: ld.shared.v4.b32 {%[[R0:r[0-9]+]], %{{r[0-9]+}}, %{{r[0-9]+}}, %{{r[0-9]+}}}, [%[[A]]];
// PTX-NEXT: ld.shared.v2.b64 {%{{rd[0-9]+}}, %{{rd[0-9]+}}}, [%[[A]]+16];
// A getelementptr with another use is an add; a variable index a mad.
// PTX-NEXT: add.s32 %[[P:r[0-9]+]], %[[A]], 4;
// PTX-NEXT: st.shared.b32 [%[[P]]], %[[R0]];
// PTX-NEXT: mad.lo.s32 %[[Q:r[0-9]+]], %[[W]], 4, %[[A]];
// PTX-NEXT: ld.shared.b32 %{{r[0-9]+}}, [%[[Q]]];
// PTX-NEXT: ret;
llvm.func @shared(%a: i32, %w: i32, %b: i8, %f: f32, %d: i64) attributes {nvvm.kernel} {
  %p = llvm.inttoptr %a : i32 to !llvm.ptr<3>
  %p8 = llvm.getelementptr %p[8] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %p16 = llvm.getelementptr %p[16] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  llvm.store %w, %p : i32, !llvm.ptr<3>
  llvm.store %f, %p8 : f32, !llvm.ptr<3>
  llvm.store %b, %p8 : i8, !llvm.ptr<3>
  llvm.store %d, %p : i64, !llvm.ptr<3>
  %u = llvm.mlir.undef : vector<4xi32>
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %c2 = llvm.mlir.constant(2 : i32) : i32
  %c3 = llvm.mlir.constant(3 : i32) : i32
  %v0 = llvm.insertelement %w, %u[%c0 : i32] : vector<4xi32>
  %v1 = llvm.insertelement %w, %v0[%c1 : i32] : vector<4xi32>
  %v2 = llvm.insertelement %w, %v1[%c2 : i32] : vector<4xi32>
  %v3 = llvm.insertelement %w, %v2[%c3 : i32] : vector<4xi32>
  llvm.store %v3, %p {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
  %du = llvm.mlir.undef : vector<2xi64>
  %d0 = llvm.insertelement %d, %du[%c0 : i32] : vector<2xi64>
  %d1 = llvm.insertelement %d, %d0[%c1 : i32] : vector<2xi64>
  llvm.store %d1, %p {alignment = 16 : i64} : vector<2xi64>, !llvm.ptr<3>
  %lb = llvm.load %p8 : !llvm.ptr<3> -> i8
  %lf = llvm.load %p : !llvm.ptr<3> -> f32
  %lv = llvm.load %p {alignment = 16 : i64} : !llvm.ptr<3> -> !llvm.struct<(i32, i32, i32, i32)>
  %ld = llvm.load %p16 {alignment = 16 : i64} : !llvm.ptr<3> -> !llvm.struct<(i64, i64)>
  %r0 = llvm.extractvalue %lv[0] : !llvm.struct<(i32, i32, i32, i32)>
  %p4 = llvm.getelementptr %p[4] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  %i4 = llvm.ptrtoint %p4 : !llvm.ptr<3> to i32
  llvm.store %r0, %p4 : i32, !llvm.ptr<3>
  %q = llvm.getelementptr %p[%w] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i32
  %lq = llvm.load %q : !llvm.ptr<3> -> i32
  llvm.return
}
