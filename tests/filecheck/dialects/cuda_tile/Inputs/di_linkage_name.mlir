#file = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, name = "k", linkageName = "k", compileUnit = #cu, scopeLine = 2>
cuda_tile.module @m {
  entry @other() {
    return
  } loc(#cuda_tile.di_loc<loc("k.py":1:0) in #sp>)
}
