// tileas-remove-layout-conversions (seed 000 "Layout Conversion Folding"): a chain
// convert_layout(convert_layout(x : A -> B) : B -> C) is trimmed only when A and C lie in
// compatible storage classes and the atom catalog has a direct atom from A to C; the inner
// conversion is left for DCE (second RUN line).
// RUN: tileir-opt %s --split-input-file -p tileas-remove-layout-conversions --print-local-scope | filecheck %s
// RUN: tileir-opt %s --split-input-file -p tileas-remove-layout-conversions,dce --print-local-scope | filecheck %s --check-prefix=DCE
// The pass takes no options: any is a diagnostic, not a traceback.
// RUN: not tileir-opt %s -p 'tileas-remove-layout-conversions{num-stages=2}' --print-local-scope 2>&1 | filecheck %s --check-prefix=OPTION
// OPTION: error: pass 'tileas-remove-layout-conversions' has no option 'num-stages' (its options: none)
// OPTION-NOT: Traceback

#r4 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#r1 = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>

// Register -> shared -> the same register layout: identity (lanes and vector width agree).
// CHECK-LABEL: func.func @round_trip_identity
// CHECK-SAME: (%[[X:[^:]*]]: tensor<128xf32, #nv_tileas.blocked
// CHECK-NEXT: %[[Y:.*]] = nv_tileas.convert_layout %[[X]]
// CHECK-NEXT: "test.op"(%[[X]])
// DCE-LABEL: func.func @round_trip_identity
// DCE-NEXT: "test.op"
func.func @round_trip_identity(%x: tensor<128xf32, #r4>) {
  %y = nv_tileas.convert_layout %x : tensor<128xf32, #r4> -> tensor<128xf32, #s>
  %z = nv_tileas.convert_layout %y : tensor<128xf32, #s> -> tensor<128xf32, #r4>
  "test.op"(%z) : (tensor<128xf32, #r4>) -> ()
  func.return
}

// -----

#a = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#b = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>

// BLOCKED: register -> shared -> another register layout: the layouts disagree on lane
// assignment, and registers have no direct register-to-register atom; the shared
// intermediate is what makes the conversion legal.
// CHECK-LABEL: func.func @blocked_different_register_layouts
// CHECK: %[[Y:.*]] = nv_tileas.convert_layout %{{.*}} : tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4]{{.*}}>> -> tensor<128xf32, #nv_tileas.shared
// CHECK-NEXT: %[[Z:.*]] = nv_tileas.convert_layout %[[Y]]
// CHECK-NEXT: "test.op"(%[[Z]])
func.func @blocked_different_register_layouts(%x: tensor<128xf32, #a>) {
  %y = nv_tileas.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #s>
  %z = nv_tileas.convert_layout %y : tensor<128xf32, #s> -> tensor<128xf32, #b>
  "test.op"(%z) : (tensor<128xf32, #b>) -> ()
  func.return
}

// -----

// Two spellings of one distribution agree: a 2-D layout and a 2-D layout whose
// unit dimension's order differs hold every element in the same register and lane.
#p = #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>
#q = #nv_tileas.blocked<{sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [0, 1]}>
#s2 = #nv_tileas.shared<{swizzle = none, order = [1, 0]}>

// CHECK-LABEL: func.func @equivalent_spelling
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x128xf32
// CHECK: %[[D:.*]] = nv_tileas.convert_layout %[[X]] : tensor<1x128xf32, #nv_tileas.blocked<{{.*}}order = [1, 0]}>> -> tensor<1x128xf32, #nv_tileas.blocked<{{.*}}order = [0, 1]}>>
// CHECK-NEXT: "test.op"(%[[D]])
func.func @equivalent_spelling(%x: tensor<1x128xf32, #p>) {
  %y = nv_tileas.convert_layout %x : tensor<1x128xf32, #p> -> tensor<1x128xf32, #s2>
  %z = nv_tileas.convert_layout %y : tensor<1x128xf32, #s2> -> tensor<1x128xf32, #q>
  "test.op"(%z) : (tensor<1x128xf32, #q>) -> ()
  func.return
}

// -----

#r4 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#r1 = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>

// Register -> register -> shared: the catalog has a direct register-to-shared atom
// (sts_128b: four contiguous f32 per thread), so the chain becomes one conversion.
// CHECK-LABEL: func.func @direct_store_atom
// CHECK-SAME: (%[[X:[^:]*]]: tensor<128xf32
// CHECK-NEXT: nv_tileas.convert_layout %[[X]] : tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4]{{.*}}>> -> tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [1]
// CHECK-NEXT: %[[D:.*]] = nv_tileas.convert_layout %[[X]] : tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4]{{.*}}>> -> tensor<128xf32, #nv_tileas.shared
// CHECK-NEXT: "test.op"(%[[D]])
func.func @direct_store_atom(%x: tensor<128xf32, #r4>) {
  %y = nv_tileas.convert_layout %x : tensor<128xf32, #r4> -> tensor<128xf32, #r1>
  %z = nv_tileas.convert_layout %y : tensor<128xf32, #r1> -> tensor<128xf32, #s>
  "test.op"(%z) : (tensor<128xf32, #s>) -> ()
  func.return
}

// -----

#h1 = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#h8 = #nv_tileas.blocked<{sizePerThread = [8], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>

// BLOCKED: one f16 per thread (16 bits) is narrower than the narrowest shared store atom
// (sts_32b): no direct atom, the chain stays.
// CHECK-LABEL: func.func @blocked_no_direct_atom
// CHECK: %[[Y:.*]] = nv_tileas.convert_layout %{{.*}} : tensor<128xf16, #nv_tileas.blocked<{sizePerThread = [1]
// CHECK-NEXT: %[[Z:.*]] = nv_tileas.convert_layout %[[Y]] : tensor<128xf16, #nv_tileas.blocked<{sizePerThread = [8]
// CHECK-NEXT: "test.op"(%[[Z]])
func.func @blocked_no_direct_atom(%x: tensor<128xf16, #h1>) {
  %y = nv_tileas.convert_layout %x : tensor<128xf16, #h1> -> tensor<128xf16, #h8>
  %z = nv_tileas.convert_layout %y : tensor<128xf16, #h8> -> tensor<128xf16, #s>
  "test.op"(%z) : (tensor<128xf16, #s>) -> ()
  func.return
}

// -----

#r4 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>

// BLOCKED: the source has no layout, so no storage class to compare.
// CHECK-LABEL: func.func @blocked_unknown_storage
// CHECK: nv_tileas.convert_layout
// CHECK-NEXT: %[[Z:.*]] = nv_tileas.convert_layout
// CHECK-NEXT: "test.op"(%[[Z]])
func.func @blocked_unknown_storage(%x: tensor<128xf32>) {
  %y = nv_tileas.convert_layout %x : tensor<128xf32> -> tensor<128xf32, #r4>
  %z = nv_tileas.convert_layout %y : tensor<128xf32, #r4> -> tensor<128xf32>
  "test.op"(%z) : (tensor<128xf32>) -> ()
  func.return
}

// -----

#r4 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>
#sw = #nv_tileas.shared<{swizzle = 128B, order = [0]}>

// BLOCKED: shared -> register -> another shared arrangement: no shared-to-shared atom.
// CHECK-LABEL: func.func @blocked_shared_to_shared
// CHECK: nv_tileas.convert_layout
// CHECK-NEXT: %[[Z:.*]] = nv_tileas.convert_layout
// CHECK-NEXT: "test.op"(%[[Z]])
func.func @blocked_shared_to_shared(%x: tensor<128xf32, #s>) {
  %y = nv_tileas.convert_layout %x : tensor<128xf32, #s> -> tensor<128xf32, #r4>
  %z = nv_tileas.convert_layout %y : tensor<128xf32, #r4> -> tensor<128xf32, #sw>
  "test.op"(%z) : (tensor<128xf32, #sw>) -> ()
  func.return
}

// -----

#r4 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>

// BLOCKED: the chain crosses into a loop body (another block); the body keeps the layout
// it was given.
// CHECK-LABEL: func.func @blocked_across_regions
// CHECK: scf.for
// CHECK-NEXT: %[[Z:.*]] = nv_tileas.convert_layout
// CHECK-NEXT: "test.op"(%[[Z]])
func.func @blocked_across_regions(%x: tensor<128xf32, #r4>, %lb: index, %ub: index, %st: index) {
  %y = nv_tileas.convert_layout %x : tensor<128xf32, #r4> -> tensor<128xf32, #s>
  scf.for %k = %lb to %ub step %st {
    %z = nv_tileas.convert_layout %y : tensor<128xf32, #s> -> tensor<128xf32, #r4>
    "test.op"(%z) : (tensor<128xf32, #r4>) -> ()
  }
  func.return
}

// -----

#a = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#b = #nv_tileas.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>

// A longer chain collapses step by step: A -> S -> B -> S -> A is A.
// CHECK-LABEL: func.func @long_chain
// CHECK-SAME: (%[[X:[^:]*]]: tensor<128xf32
// CHECK: "test.op"(%[[X]])
// DCE-LABEL: func.func @long_chain
// DCE-NEXT: "test.op"
func.func @long_chain(%x: tensor<128xf32, #a>) {
  %1 = nv_tileas.convert_layout %x : tensor<128xf32, #a> -> tensor<128xf32, #s>
  %2 = nv_tileas.convert_layout %1 : tensor<128xf32, #s> -> tensor<128xf32, #a>
  %3 = nv_tileas.convert_layout %2 : tensor<128xf32, #a> -> tensor<128xf32, #s>
  %4 = nv_tileas.convert_layout %3 : tensor<128xf32, #s> -> tensor<128xf32, #a>
  "test.op"(%4) : (tensor<128xf32, #a>) -> ()
  func.return
}

// -----

#r4 = #nv_tileas.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#r1 = #nv_tileas.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#s = #nv_tileas.shared<{swizzle = none, order = [0]}>

// Shared -> register -> register: the catalog's shared-to-register atom (lds_128b) reads
// the destination's four contiguous f32 directly.
// CHECK-LABEL: func.func @direct_load_atom
// CHECK-SAME: (%[[X:[^:]*]]: tensor<128xf32
// CHECK: %[[D:.*]] = nv_tileas.convert_layout %[[X]] : tensor<128xf32, #nv_tileas.shared<{swizzle = none, order = [0]}>> -> tensor<128xf32, #nv_tileas.blocked<{sizePerThread = [4]
// CHECK-NEXT: "test.op"(%[[D]])
func.func @direct_load_atom(%x: tensor<128xf32, #s>) {
  %y = nv_tileas.convert_layout %x : tensor<128xf32, #s> -> tensor<128xf32, #r1>
  %z = nv_tileas.convert_layout %y : tensor<128xf32, #r1> -> tensor<128xf32, #r4>
  "test.op"(%z) : (tensor<128xf32, #r4>) -> ()
  func.return
}
