// nv_tileaa verifier rules: tokens, pointers, assume, load/store, atomics (valid forms in memory.mlir).
// RUN: tileir-opt %s --split-input-file --verify-diagnostics

func.func @join_one(%t: !nv_tileaa.mem_token) {
  // expected-error@+1 {{'nv_tileaa.join_mem_token' op expects at least 2 tokens, got 1}}
  %j = nv_tileaa.join_mem_token %t : !nv_tileaa.mem_token
  func.return
}

// -----

func.func @producers() {
  // expected-error@+1 {{'nv_tileaa.create_mem_token' op num_producers must be non-negative, got -1}}
  %t = nv_tileaa.create_mem_token {num_producers = -1 : i32} : !nv_tileaa.mem_token
  func.return
}

// -----

func.func @addptr_not_ptr(%p: tensor<16xi32>, %o: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileaa.addptr' op expected a pointer or tensor of pointers, got tensor<16xi32>}}
  %q = nv_tileaa.addptr %p, %o : tensor<16xi32>, tensor<16xi32>
  func.return
}

// -----

func.func @addptr_float(%p: !cuda_tile.ptr<f32>, %o: f32) {
  // expected-error@+1 {{'nv_tileaa.addptr' op expected integer offsets, got f32}}
  %q = nv_tileaa.addptr %p, %o : !cuda_tile.ptr<f32>, f32
  func.return
}

// -----

func.func @addptr_shape(%p: tensor<16x!cuda_tile.ptr<f32>>, %o: tensor<8xi32>) {
  // expected-error@+1 {{'nv_tileaa.addptr' op pointer and offset shapes differ}}
  %q = nv_tileaa.addptr %p, %o : tensor<16x!cuda_tile.ptr<f32>>, tensor<8xi32>
  func.return
}

// -----

func.func @assume_div(%p: !cuda_tile.ptr<f32>) {
  // expected-error@+1 {{'nv_tileaa.assume' op div_by divisor must be a positive power of 2, got 12}}
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<12> : !cuda_tile.ptr<f32>
  func.return
}

// -----

func.func @assume_div_float(%p: f32) {
  // expected-error@+1 {{'nv_tileaa.assume' op div_by needs integers or pointers, got f32}}
  %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : f32
  func.return
}

// -----

func.func @assume_bounded(%p: f32) {
  // expected-error@+1 {{'nv_tileaa.assume' op bounded needs integers, got f32}}
  %a = nv_tileaa.assume %p, #cuda_tile.bounded<0, 16> : f32
  func.return
}

// -----

func.func @assume_same(%p: tensor<4x8xi32>) {
  // expected-error@+1 {{'nv_tileaa.assume' op same_elements lists 1 extents for rank 2}}
  %a = nv_tileaa.assume %p, #cuda_tile.same_elements<[4]> : tensor<4x8xi32>
  func.return
}

// -----

func.func @load_sem(%q: tensor<16x!cuda_tile.ptr<f32>>) {
  // expected-error@+1 {{'nv_tileaa.load' op memory ordering 'release' is not allowed (expected one of weak, relaxed, acquire)}}
  %x, %t = nv_tileaa.load release device %q : tensor<16x!cuda_tile.ptr<f32>> -> tensor<16xf32>
  func.return
}

// -----

func.func @load_weak_scope(%q: tensor<16x!cuda_tile.ptr<f32>>) {
  // expected-error@+1 {{'nv_tileaa.load' op weak accesses take no memory scope}}
  %x, %t = "nv_tileaa.load"(%q) <{memory_ordering_semantics = 0 : i32, memory_scope = 1 : i32, operandSegmentSizes = array<i32: 1, 0, 0, 0>}> : (tensor<16x!cuda_tile.ptr<f32>>) -> (tensor<16xf32>, !nv_tileaa.mem_token)
  func.return
}

// -----

func.func @load_not_ptr(%q: tensor<16xf32>) {
  // expected-error@+1 {{'nv_tileaa.load' op expected pointers, got tensor<16xf32>}}
  %x, %t = nv_tileaa.load weak %q : tensor<16xf32> -> tensor<16xf32>
  func.return
}

// -----

func.func @load_type(%q: tensor<16x!cuda_tile.ptr<f32>>) {
  // expected-error@+1 {{'nv_tileaa.load' op result type tensor<16xf16> does not match the pointers tensor<16x!cuda_tile.ptr<f32>>}}
  %x, %t = nv_tileaa.load weak %q : tensor<16x!cuda_tile.ptr<f32>> -> tensor<16xf16>
  func.return
}

// -----

func.func @load_mask(%q: tensor<16x!cuda_tile.ptr<f32>>, %m: tensor<16xi8>) {
  // expected-error@+1 {{'nv_tileaa.load' op mask must be i1 of the pointers' shape, got tensor<16xi8>}}
  %x, %t = nv_tileaa.load weak %q, %m : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi8> -> tensor<16xf32>
  func.return
}

// -----

func.func @load_other(%q: tensor<16x!cuda_tile.ptr<f32>>, %m: tensor<16xi1>, %o: tensor<16xf16>) {
  // expected-error@+1 {{'nv_tileaa.load' op 'other' must have the result type tensor<16xf32>, got tensor<16xf16>}}
  %x, %t = nv_tileaa.load weak %q, %m, %o : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xi1>, tensor<16xf16> -> tensor<16xf32>
  func.return
}

// -----

func.func @load_other_no_mask(%q: tensor<16x!cuda_tile.ptr<f32>>, %o: tensor<16xf32>) {
  // expected-error@+1 {{'nv_tileaa.load' op 'other' requires a mask}}
  %x, %t = "nv_tileaa.load"(%q, %o) <{memory_ordering_semantics = 0 : i32, operandSegmentSizes = array<i32: 1, 0, 1, 0>}> : (tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>) -> (tensor<16xf32>, !nv_tileaa.mem_token)
  func.return
}

// -----

func.func @store_sem(%q: tensor<16x!cuda_tile.ptr<f32>>, %v: tensor<16xf32>) {
  // expected-error@+1 {{'nv_tileaa.store' op memory ordering 'acquire' is not allowed (expected one of weak, relaxed, release)}}
  %t = nv_tileaa.store acquire device %q, %v : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>
  func.return
}

// -----

func.func @store_type(%q: tensor<16x!cuda_tile.ptr<f32>>, %v: tensor<8xf32>) {
  // expected-error@+1 {{'nv_tileaa.store' op value type tensor<8xf32> does not match the pointers tensor<16x!cuda_tile.ptr<f32>>}}
  %t = nv_tileaa.store weak %q, %v : tensor<16x!cuda_tile.ptr<f32>>, tensor<8xf32>
  func.return
}

// -----

func.func @rmw_weak(%q: tensor<16x!cuda_tile.ptr<i32>>, %v: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileaa.atomic_rmw' op memory ordering 'weak' is not allowed (expected one of relaxed, acquire, release, acq_rel)}}
  %x, %t = "nv_tileaa.atomic_rmw"(%q, %v) <{memory_ordering_semantics = 0 : i32, mode = 3 : i32, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>) -> (tensor<16xi32>, !nv_tileaa.mem_token)
  func.return
}

// -----

func.func @rmw_mode(%q: tensor<16x!cuda_tile.ptr<f32>>, %v: tensor<16xf32>) {
  // expected-error@+1 {{'nv_tileaa.atomic_rmw' op atomic mode 'add' does not apply to f32}}
  %x, %t = nv_tileaa.atomic_rmw relaxed device add %q, %v : tensor<16x!cuda_tile.ptr<f32>>, tensor<16xf32>
  func.return
}

// -----

func.func @rmw_width(%q: tensor<16x!cuda_tile.ptr<i16>>, %v: tensor<16xi16>) {
  // expected-error@+1 {{'nv_tileaa.atomic_rmw' op atomic mode 'xchg' does not apply to i16}}
  %x, %t = nv_tileaa.atomic_rmw relaxed device xchg %q, %v : tensor<16x!cuda_tile.ptr<i16>>, tensor<16xi16>
  func.return
}

// -----

func.func @rmw_bad_mode(%q: tensor<16x!cuda_tile.ptr<i32>>, %v: tensor<16xi32>) {
  // expected-error@+1 {{custom op 'nv_tileaa.atomic_rmw' expected an atomic mode (and, or, xor, add, addf, max, min, umax, umin, xchg), got 'nand'}}
  %x, %t = nv_tileaa.atomic_rmw relaxed device nand %q, %v : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi32>
  func.return
}

// -----

func.func @cas_types(%q: tensor<16x!cuda_tile.ptr<i32>>, %c: tensor<16xi64>, %v: tensor<16xi32>) {
  // expected-error@+1 {{'nv_tileaa.atomic_cas' op compare type tensor<16xi64> must be the value type tensor<16xi32>}}
  %x, %t = nv_tileaa.atomic_cas relaxed device %q, %c, %v : tensor<16x!cuda_tile.ptr<i32>>, tensor<16xi64>, tensor<16xi32>
  func.return
}

// -----

func.func @cas_width(%q: tensor<16x!cuda_tile.ptr<f16>>, %c: tensor<16xf16>, %v: tensor<16xf16>) {
  // expected-error@+1 {{'nv_tileaa.atomic_cas' op atomic_cas needs 32- or 64-bit elements, got f16}}
  %x, %t = nv_tileaa.atomic_cas relaxed device %q, %c, %v : tensor<16x!cuda_tile.ptr<f16>>, tensor<16xf16>, tensor<16xf16>
  func.return
}
