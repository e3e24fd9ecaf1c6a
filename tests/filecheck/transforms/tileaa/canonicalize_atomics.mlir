// tileaa-canonicalize, atomic identities (seed 004 row "Atomic identities", "Atomic
// Folds"): strength reductions that keep the ordering edge, and what blocks them.
// RUN: tileir-opt %s --split-input-file -p tileaa-canonicalize | filecheck %s

// add, or, xor with 0 and and with all ones are identities: each becomes an atomic
// load with the atomic's ordering and scope, after the input token; its result token
// is the ordering edge the next access waits on.
// CHECK-LABEL: func.func @rmw_identities
// CHECK-NEXT: %[[A:.*]], %[[T1:.*]] = nv_tileaa.load relaxed device %p token %t : tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
// CHECK-NEXT: %[[B:.*]], %[[T2:.*]] = nv_tileaa.load acquire device %p token %[[T1]] : tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
// CHECK-NEXT: %[[C:.*]], %[[T3:.*]] = nv_tileaa.load relaxed sys %p token %[[T2]] : tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
// CHECK-NEXT: %[[D:.*]], %[[T4:.*]] = nv_tileaa.load relaxed device %p token %[[T3]] : tensor<16x!cuda_tile.ptr<i32>> -> tensor<16xi32>
// CHECK-NEXT: "test.op"(%[[A]], %[[B]], %[[C]], %[[D]], %[[T4]])
func.func @rmw_identities(%p: tensor<16x!cuda_tile.ptr<i32>>, %t: !nv_tileaa.mem_token) {
  %zero = cuda_tile.constant <i32: 0> : tensor<16xi32>
  %ones = cuda_tile.constant <i32: -1> : tensor<16xi32>
  %a, %t1 = nv_tileaa.atomic_rmw relaxed device add %p, %zero token %t : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  %b, %t2 = nv_tileaa.atomic_rmw acquire device or %p, %zero token %t1 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  %c, %t3 = nv_tileaa.atomic_rmw relaxed sys xor %p, %zero token %t2 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  %d, %t4 = nv_tileaa.atomic_rmw relaxed device and %p, %ones token %t3 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  "test.op"(%a, %b, %c, %d, %t4) : (tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// A splat of a constant zero is an identity too; the mask carries over to the load, and
// so does the absence of an input token.  max with the signed minimum is an identity.
// CHECK-LABEL: func.func @rmw_identities_masked
// CHECK-NEXT: %[[A:.*]], %[[T1:.*]] = nv_tileaa.load relaxed device %p, %m : tensor<16x!cuda_tile.ptr<i64>>, tensor<16xi1> -> tensor<16xi64>
// CHECK-NEXT: %[[B:.*]], %[[T2:.*]] = nv_tileaa.load relaxed device %p, %m token %[[T1]] : tensor<16x!cuda_tile.ptr<i64>>, tensor<16xi1> -> tensor<16xi64>
// CHECK-NEXT: "test.op"(%[[A]], %[[B]], %[[T2]])
func.func @rmw_identities_masked(%p: tensor<16x!cuda_tile.ptr<i64>>, %m: tensor<16xi1>, %x: i64) {
  %zero = cuda_tile.constant <i64: 0> : i64
  %s = nv_tileaa.splat %zero : i64 -> tensor<16xi64>
  %min = cuda_tile.constant <i64: -9223372036854775808> : tensor<16xi64>
  %a, %t1 = nv_tileaa.atomic_rmw relaxed device add %p, %s, %m : tensor<16x!cuda_tile.ptr<i64>>, tensor<16xi64>, tensor<16xi1>
  %b, %t2 = nv_tileaa.atomic_rmw relaxed device max %p, %min, %m token %t1 : tensor<16x!cuda_tile.ptr<i64>>, tensor<16xi64>, tensor<16xi1>
  "test.op"(%a, %b, %t2) : (tensor<16xi64>, tensor<16xi64>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// For addf the identity is -0.0; +0.0 is not one (-0.0 + +0.0 = +0.0), so that atomic
// stays.
// CHECK-LABEL: func.func @rmw_addf
// CHECK: %[[A:.*]], %[[T1:.*]] = nv_tileaa.load relaxed device %p token %t
// CHECK-NEXT: nv_tileaa.atomic_rmw relaxed device addf %p, %pz token %[[T1]]
func.func @rmw_addf(%p: tensor<16x!cuda_tile.ptr<f32>>, %t: !nv_tileaa.mem_token) {
  %nz = cuda_tile.constant <f32: -0.0> : tensor<16xf32>
  %pz = cuda_tile.constant <f32: 0.0> : tensor<16xf32>
  %a, %t1 = nv_tileaa.atomic_rmw relaxed device addf %p, %nz token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>
  %b, %t2 = nv_tileaa.atomic_rmw relaxed device addf %p, %pz token %t1 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>
  "test.op"(%a, %b, %t2) : (tensor<16xf32>, tensor<16xf32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// Blocked: a value that is not constant, a constant that is not the mode's identity
// (add 1, and 0, max 0), and release or acq_rel atomics (a load cannot release).
// CHECK-LABEL: func.func @rmw_blocked
// CHECK: nv_tileaa.atomic_rmw relaxed device add %p, %v token %t
// CHECK-NEXT: nv_tileaa.atomic_rmw relaxed device add %p, %one
// CHECK-NEXT: nv_tileaa.atomic_rmw relaxed device and %p, %zero
// CHECK-NEXT: nv_tileaa.atomic_rmw release device add %p, %zero
// CHECK-NEXT: nv_tileaa.atomic_rmw acq_rel device or %p, %zero
// CHECK-NEXT: nv_tileaa.atomic_rmw relaxed device max %p, %zero
func.func @rmw_blocked(%p: tensor<16x!cuda_tile.ptr<i32>>, %v: tensor<16xi32>, %t: !nv_tileaa.mem_token) {
  %zero = cuda_tile.constant <i32: 0> : tensor<16xi32>
  %one = cuda_tile.constant <i32: 1> : tensor<16xi32>
  %a, %t1 = nv_tileaa.atomic_rmw relaxed device add %p, %v token %t : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  %b, %t2 = nv_tileaa.atomic_rmw relaxed device add %p, %one token %t1 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  %c, %t3 = nv_tileaa.atomic_rmw relaxed device and %p, %zero token %t2 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  %d, %t4 = nv_tileaa.atomic_rmw release device add %p, %zero token %t3 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  %e, %t5 = nv_tileaa.atomic_rmw acq_rel device or %p, %zero token %t4 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  %f, %t6 = nv_tileaa.atomic_rmw relaxed device max %p, %zero token %t5 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  "test.op"(%a, %b, %c, %d, %e, %f, %t6) : (tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, tensor<16xi32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// xchg folds only with a proof that the value is already present: the same constant
// as a compare-and-swap's compare operand is no such proof (the CAS of 7 by 7 is
// itself an identity and becomes a load; the exchange stays).
// CHECK-LABEL: func.func @xchg_blocked
// CHECK: %[[A:.*]], %[[T1:.*]] = nv_tileaa.load relaxed device %p token %t
// CHECK-NEXT: nv_tileaa.atomic_rmw relaxed device xchg %p, %c token %[[T1]]
func.func @xchg_blocked(%p: tensor<16x!cuda_tile.ptr<i32>>, %t: !nv_tileaa.mem_token) {
  %c = cuda_tile.constant <i32: 7> : tensor<16xi32>
  %a, %t1 = nv_tileaa.atomic_cas relaxed device %p, %c, %c token %t : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>, tensor<16xi32>
  %b, %t2 = nv_tileaa.atomic_rmw relaxed device xchg %p, %c token %t1 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  "test.op"(%a, %b, %t2) : (tensor<16xi32>, tensor<16xi32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// A compare-and-swap with equal constant compare and replacement cannot change memory:
// an atomic load.  Other constant operands are rebuilt as constant tiles.
// CHECK-LABEL: func.func @cas
// CHECK-NEXT: %[[A:.*]], %[[T1:.*]] = nv_tileaa.load acquire device %p token %t : tensor<16x!cuda_tile.ptr<f32>> -> tensor<16xf32>
// CHECK-NEXT: %[[X:.*]] = cuda_tile.constant <f32: 1.500000e+00> : tensor<16xf32>
// CHECK-NEXT: %[[Y:.*]] = cuda_tile.constant <f32: 2.500000e+00> : tensor<16xf32>
// CHECK-NEXT: nv_tileaa.atomic_cas relaxed device %p, %[[X]], %[[Y]] token %[[T1]]
func.func @cas(%p: tensor<16x!cuda_tile.ptr<f32>>, %t: !nv_tileaa.mem_token) {
  %x = cuda_tile.constant <f32: 1.5> : f32
  %y = cuda_tile.constant <f32: 2.5> : f32
  %sx = nv_tileaa.splat %x : f32 -> tensor<16xf32>
  %sy = nv_tileaa.splat %y : f32 -> tensor<16xf32>
  %a, %t1 = nv_tileaa.atomic_cas acquire device %p, %sx, %sx token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xf32>
  %b, %t2 = nv_tileaa.atomic_cas relaxed device %p, %sx, %sy token %t1 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xf32>
  "test.op"(%a, %b, %t2) : (tensor<16xf32>, tensor<16xf32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// Blocked: operands that are not constants (even the same value), +0.0 against -0.0
// (the swap compares bits and would write -0.0), and acq_rel.
// CHECK-LABEL: func.func @cas_blocked
// CHECK: nv_tileaa.atomic_cas relaxed device %p, %v, %v token %t
// CHECK-NEXT: nv_tileaa.atomic_cas relaxed device %p, %pz, %nz
// CHECK-NEXT: nv_tileaa.atomic_cas acq_rel device %p, %pz, %pz
func.func @cas_blocked(%p: tensor<16x!cuda_tile.ptr<f32>>, %v: tensor<16xf32>, %t: !nv_tileaa.mem_token) {
  %nz = cuda_tile.constant <f32: -0.0> : tensor<16xf32>
  %pz = cuda_tile.constant <f32: 0.0> : tensor<16xf32>
  %a, %t1 = nv_tileaa.atomic_cas relaxed device %p, %v, %v token %t : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xf32>
  %b, %t2 = nv_tileaa.atomic_cas relaxed device %p, %pz, %nz token %t1 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xf32>
  %c, %t3 = nv_tileaa.atomic_cas acq_rel device %p, %pz, %pz token %t2 : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>, tensor<16xf32>
  "test.op"(%a, %b, %c, %t3) : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, !nv_tileaa.mem_token) -> ()
  func.return
}

// -----

// A relaxed atomic whose mask is off everywhere touches nothing: undefined old values
// (zeros) and the input token.  Blocked for an acquire atomic.
// CHECK-LABEL: func.func @atomic_masked_off
// CHECK: %[[Z:.*]] = cuda_tile.constant <i32: 0> : tensor<16xi32>
// CHECK-NEXT: %[[B:.*]], %[[T:.*]] = nv_tileaa.atomic_rmw acquire device add %p, %v, %false token %t
// CHECK-NEXT: "test.op"(%[[Z]], %[[B]], %[[T]])
func.func @atomic_masked_off(%p: tensor<16x!cuda_tile.ptr<i32>>, %v: tensor<16xi32>, %t: !nv_tileaa.mem_token) {
  %false = cuda_tile.constant <i1: false> : tensor<16xi1>
  %a, %t1 = nv_tileaa.atomic_rmw relaxed device add %p, %v, %false token %t : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>, tensor<16xi1>
  %b, %t2 = nv_tileaa.atomic_rmw acquire device add %p, %v, %false token %t1 : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>, tensor<16xi1>
  "test.op"(%a, %b, %t2) : (tensor<16xi32>, tensor<16xi32>, !nv_tileaa.mem_token) -> ()
  func.return
}
