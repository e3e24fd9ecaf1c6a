// Debug info: `#cuda_tile.di_*` attributes, `loc(...)` forms and MLIR's alias
// printing (location aliases after the module, sorted by nesting depth).
// RUN: tileir-opt %s --print-debuginfo | filecheck %s
// RUN: tileir-opt %s --print-debuginfo --print-op-generic | tileir-opt --print-debuginfo | filecheck %s

#file = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 3, name = "k", linkageName = "k", compileUnit = #cu, scopeLine = 4>
#block = #cuda_tile.di_lexical_block<scope = #sp, file = #file, line = 5, column = 2>
#l3 = loc("/src/k.py":3:0)
#fn = #cuda_tile.di_loc<#l3 in #sp>

cuda_tile.module @kernels {
  // CHECK: entry @k() {
  // CHECK-NEXT: %cst_1_i32 = constant <i32: 1> : tile<i32> loc(#[[L5:loc[0-9]*]])
  // CHECK-NEXT: %cst_2_i32 = constant <i32: 2> : tile<i32> loc(#[[L6:loc[0-9]*]])
  // CHECK-NEXT: return loc(#[[UNKNOWN:loc]])
  // CHECK-NEXT: } loc(#[[FN:loc[0-9]*]])
  entry @k() {
    %a = constant <i32: 1> : tile<i32> loc(#cuda_tile.di_loc<loc("/src/k.py":5:2) in #sp>)
    %b = constant <i32: 2> : tile<i32> loc(#cuda_tile.di_loc<loc("/src/k.py":6:4) in #block>)
    return loc(unknown)
  } loc(#fn)
} loc(unknown)
// CHECK: #di_file = #cuda_tile.di_file<"k.py" in "/src">
// CHECK-NEXT: #[[UNKNOWN]] = loc(unknown)
// CHECK-NEXT: #[[F3:loc[0-9]+]] = loc("/src/k.py":3:0)
// CHECK-NEXT: #[[F5:loc[0-9]+]] = loc("/src/k.py":5:2)
// CHECK-NEXT: #[[F6:loc[0-9]+]] = loc("/src/k.py":6:4)
// CHECK-NEXT: #di_compile_unit = #cuda_tile.di_compile_unit<file = #di_file>
// CHECK-NEXT: #di_subprogram = #cuda_tile.di_subprogram<file = #di_file, line = 3, name = "k", linkageName = "k", compileUnit = #di_compile_unit, scopeLine = 4>
// CHECK-NEXT: #di_lexical_block = #cuda_tile.di_lexical_block<scope = #di_subprogram, file = #di_file, line = 5, column = 2>
// CHECK-NEXT: #[[FN]] = #cuda_tile.di_loc<#[[F3]] in #di_subprogram>
// CHECK-NEXT: #[[L5]] = #cuda_tile.di_loc<#[[F5]] in #di_subprogram>
// CHECK-NEXT: #[[L6]] = #cuda_tile.di_loc<#[[F6]] in #di_lexical_block>
