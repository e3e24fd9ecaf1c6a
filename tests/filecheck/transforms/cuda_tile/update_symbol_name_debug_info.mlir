// test-debuginfo-update-symbol-name on a kernel with debug info, and its precondition.
// RUN: tileir-opt %s --split-input-file --print-debuginfo --verify-diagnostics --test-debuginfo-update-symbol-name="symbol-to-rename=kernels::k scope=kernels new-name=_mangled_k" | filecheck %s

// CHECK: entry @_mangled_k()
// CHECK-NOT: linkageName = "k"
// CHECK: #cuda_tile.di_subprogram<file = #{{.*}}, line = 1, name = "k", linkageName = "_mangled_k"
// CHECK-NOT: linkageName = "k"
#file = #cuda_tile.di_file<"k.py" in "/src">
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", linkageName = "k", compileUnit = #cuda_tile.di_compile_unit<file = #file>, scopeLine = 1>
#block = #cuda_tile.di_lexical_block<scope = #sp, file = #file, line = 2, column = 3>
cuda_tile.module @kernels {
  entry @k() {
    %c = constant <i32: 1> : tile<i32> loc(#cuda_tile.di_loc<loc("/src/k.py":2:3) in #block>)
    return loc(#cuda_tile.di_loc<loc("/src/k.py":3:3) in #sp>)
  } loc(#cuda_tile.di_loc<loc("/src/k.py":1:1) in #sp>)
}
