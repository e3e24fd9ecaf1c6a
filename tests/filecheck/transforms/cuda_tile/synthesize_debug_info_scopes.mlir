// synthesize-debug-info-scopes (tileir/transforms/cuda_tile/synthesize_debug_info_scopes.py)
// RUN: tileir-opt %s -p synthesize-debug-info-scopes --split-input-file --print-debuginfo | filecheck %s

// File positions come from each op (through call-site and fused locations), else from
// the function; the compile unit is the module's file.
// CHECK-LABEL: @located
// CHECK-NEXT: addi %arg0, %arg0 : tile<i32> loc(#[[ADD:loc[0-9]*]])
// CHECK-NEXT: return %{{.*}} : tile<i32> loc(#[[RET:loc[0-9]*]])
// CHECK-NEXT: } loc(#[[FN:loc[0-9]*]])
// CHECK-DAG: #[[FILE:di_file[0-9]*]] = #cuda_tile.di_file<"k.py" in "/src">
// CHECK-DAG: #[[MODFILE:di_file[0-9]*]] = #cuda_tile.di_file<"mod.py" in "/src">
// CHECK-DAG: #[[FNPOS:loc[0-9]*]] = loc("/src/k.py":10:1)
// CHECK-DAG: #[[ADDPOS:loc[0-9]*]] = loc("/src/k.py":12:3)
// CHECK-DAG: #[[RETPOS:loc[0-9]*]] = loc("/src/k.py":13:3)
// CHECK-DAG: #[[CU:di_compile_unit[0-9]*]] = #cuda_tile.di_compile_unit<file = #[[MODFILE]]>
// CHECK-DAG: #[[SP:di_subprogram[0-9]*]] = #cuda_tile.di_subprogram<file = #[[FILE]], line = 10, name = "located", linkageName = "located", compileUnit = #[[CU]], scopeLine = 10>
// CHECK-DAG: #[[FN]] = #cuda_tile.di_loc<#[[FNPOS]] in #[[SP]]>
// CHECK-DAG: #[[ADD]] = #cuda_tile.di_loc<#[[ADDPOS]] in #[[SP]]>
// CHECK-DAG: #[[RET]] = #cuda_tile.di_loc<#[[RETPOS]] in #[[SP]]>
cuda_tile.module @m {
  testing$func @located(%arg0: tile<i32>) -> tile<i32> {
    %x = addi %arg0, %arg0 : tile<i32> loc(callsite("/lib/inner.py":1:1 at "/src/k.py":12:3))
    return %x : tile<i32> loc(fused[unknown, "/src/k.py":13:3])
  } loc("/src/k.py":10:1)
} loc("/src/mod.py":1:1)

// -----

// No positions at all: "<unknown>", line 1, for every op.
// CHECK-LABEL: @unlocated
// CHECK-NEXT: return loc(#[[L:loc[0-9]*]])
// CHECK-NEXT: } loc(#[[L]])
// CHECK-DAG: #[[FILE:di_file[0-9]*]] = #cuda_tile.di_file<"<unknown>" in "">
// CHECK-DAG: #[[POS:loc[0-9]*]] = loc("<unknown>":1:1)
// CHECK-DAG: #[[SP:di_subprogram[0-9]*]] = #cuda_tile.di_subprogram<file = #[[FILE]], line = 1, name = "unlocated", linkageName = "unlocated", compileUnit = #{{.*}}, scopeLine = 1>
// CHECK-DAG: #[[L]] = #cuda_tile.di_loc<#[[POS]] in #[[SP]]>
cuda_tile.module @m {
  testing$func @unlocated() {
    return loc(unknown)
  } loc(unknown)
} loc(unknown)

// -----

// A function that has a scope already is left alone.
// CHECK-LABEL: @scoped
// CHECK-NEXT: return loc(#loc)
// CHECK-NOT: scopeLine
// CHECK: #loc = loc(unknown)
#file = #cuda_tile.di_file<"a.py" in "">
#sp = #cuda_tile.di_subprogram<file = #file, line = 5, name = "scoped", linkageName = "scoped", compileUnit = #cuda_tile.di_compile_unit<file = #file>>
cuda_tile.module @m {
  testing$func @scoped() {
    return loc(unknown)
  } loc(#cuda_tile.di_loc<loc("a.py":1:1) in #sp>)
}
