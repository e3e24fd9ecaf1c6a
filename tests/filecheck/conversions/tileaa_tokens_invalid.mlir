// Token hop two (seed 004): asynchronous mem tokens claim mbarrier slots from the CTA's
// pool of 32; exhaustion is a hard error.  The mbarrier emission is not supported yet.
// RUN: tileir-opt %s --split-input-file --verify-diagnostics -p convert-tileaa-to-tileas

func.func @async_token() {
  // expected-error@+1 {{is not supported by tileir yet: an asynchronous mem token (2 producers): the mbarrier lowering (mbarrier.init, parity waits) needs NVVM mbarrier ops}}
  %t = nv_tileaa.create_mem_token {num_producers = 2 : i32} : !nv_tileaa.mem_token
  func.return
}

// -----

func.func @pool_exhausted() {
  %t1 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t2 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t3 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t4 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t5 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t6 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t7 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t8 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t9 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t10 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t11 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t12 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t13 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t14 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t15 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t16 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t17 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t18 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t19 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t20 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t21 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t22 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t23 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t24 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t25 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t26 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t27 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t28 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t29 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t30 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t31 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  %t32 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  // expected-error@+1 {{needs an mbarrier, but the CTA's pool of 32 is exhausted by the asynchronous tokens before it in this kernel}}
  %t33 = nv_tileaa.create_mem_token {num_producers = 1 : i32} : !nv_tileaa.mem_token
  func.return
}
