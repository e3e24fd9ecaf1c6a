// f16/bf16 pairs in 32-bit words are plain LLVM (LLBuilder.pack_halves / unpack_halves):
// the pair as a vector<2 x half> (llvm.insertelement) bitcast to i32, and back as LLVM's
// canonical trunc / lshr 16 / trunc.  The ptx target prints each as the one vector mov
// the inline asm they replace held: `mov.b32 %r, {%lo, %hi}` and
// `mov.b32 {%lo, %hi}, %r`; the shift, its constant, the lane indices and the
// i16 -> f16 bitcasts print nothing.  A truncation or a shift on its own prints as
// before.
// RUN: tileir-opt %s | tileir-opt | filecheck %s --check-prefix=IR
// RUN: tileir-opt %s -t 'ptx{arch=sm_80}' | tee %t.ptx | filecheck %s --check-prefix=PTX
// RUN: %ptxas -arch=sm_80 %t.ptx -o %t.cubin

// IR-LABEL: llvm.func @pairs
// IR: llvm.insertelement %{{.*}}, %{{.*}}[%{{.*}} : i32] : vector<2xf16>
// IR: llvm.bitcast %{{.*}} : vector<2xf16> to i32

// PTX-LABEL: .visible .entry pairs(
// PTX: ld.param.b16 %[[LO:rs[0-9]+]], [pairs_param_0];
// PTX: ld.param.b16 %[[HI:rs[0-9]+]], [pairs_param_1];
// PTX: mov.b32 %[[W:r[0-9]+]], {%[[LO]], %[[HI]]};
// PTX-NEXT: mov.b32 {%[[L:rs[0-9]+]], %[[H:rs[0-9]+]]}, %[[W]];
// PTX: cvt.f32.f16 %{{f[0-9]+}}, %[[L]];
// PTX: cvt.f32.f16 %{{f[0-9]+}}, %[[H]];
// A truncation and a shift of another word, on their own.
// PTX: cvt.u16.u32 %{{rs[0-9]+}}, %[[N:r[0-9]+]];
// PTX: shr.u32 %{{r[0-9]+}}, %[[N]], %{{r[0-9]+}};
llvm.func @pairs(%lo: f16, %hi: f16, %n: i32) attributes {nvvm.kernel} {
  %u = llvm.mlir.undef : vector<2xf16>
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %v0 = llvm.insertelement %lo, %u[%c0 : i32] : vector<2xf16>
  %v1 = llvm.insertelement %hi, %v0[%c1 : i32] : vector<2xf16>
  %w = llvm.bitcast %v1 : vector<2xf16> to i32
  %c16 = llvm.mlir.constant(16 : i32) : i32
  %l16 = llvm.trunc %w : i32 to i16
  %s = llvm.lshr %w, %c16 : i32
  %h16 = llvm.trunc %s : i32 to i16
  %l = llvm.bitcast %l16 : i16 to f16
  %h = llvm.bitcast %h16 : i16 to f16
  %lf = llvm.fpext %l : f16 to f32
  %hf = llvm.fpext %h : f16 to f32
  %lone = llvm.trunc %n : i32 to i16
  %c16n = llvm.mlir.constant(16 : i32) : i32
  %shifted = llvm.lshr %n, %c16n : i32
  llvm.return
}
