// A vector access the ptx target cannot print is a located error, not a traceback.
// RUN: not tileir-opt %s -t 'ptx{arch=sm_80}' 2>&1 | filecheck %s

// CHECK: error: {{.*}}'llvm.load' op is not supported by tileir yet: a 16-byte vector access aligned to 4 bytes
llvm.func @unaligned(%a: i32) attributes {nvvm.kernel} {
  %p = llvm.inttoptr %a : i32 to !llvm.ptr<3>
  %lv = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<3> -> !llvm.struct<(i32, i32, i32, i32)>
  llvm.return
}
