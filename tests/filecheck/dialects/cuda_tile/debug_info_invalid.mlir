// The debug-info attribute parsers (the scoping rules are in debug_info_scopes.test:
// their diagnostics are located in the debug-info file names).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

// expected-error @below {{expected a parameter name in struct}}
#cu = #cuda_tile.di_compile_unit<>

// -----

#file = #cuda_tile.di_file<"k.py" in "/src">
#cu = #cuda_tile.di_compile_unit<file = #file>
// expected-error @below {{struct is missing required parameter: name}}
#sp = #cuda_tile.di_subprogram<file = #file, line = 1, linkageName = "k", compileUnit = #cu, scopeLine = 2>

// -----

#file = #cuda_tile.di_file<"k.py" in "/src">
// expected-error @below {{expected a parameter name in struct}}
#sp = #cuda_tile.di_subprogram<file = #file, 1>
