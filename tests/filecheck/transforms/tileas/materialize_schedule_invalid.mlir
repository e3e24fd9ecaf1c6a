// tileas-materialize-schedule rejects a stage count below one: the option (an unlocated
// error, exit 1, no traceback) and a loop's nv_tileas.num_stages hint (located).
// RUN: not tileir-opt %s -p 'tileas-materialize-schedule{num-stages=0}' 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not tileir-opt %s -p 'tileas-materialize-schedule{num-stages=two}' 2>&1 | filecheck %s --check-prefix=WORD
// RUN: tileir-opt %s --verify-diagnostics -p tileas-materialize-schedule

// ZERO: error: tileas-materialize-schedule: option num-stages must be at least 1, got 0
// ZERO-NOT: Traceback
// WORD: error: option 'num-stages' of pass 'tileas-materialize-schedule' takes an integer, not 'two'
// WORD-NOT: Traceback

func.func @bad_hint(%v: !nv_tileas.tiled_view<4096xf32, gmem>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  // expected-error@+1 {{'scf.for' op nv_tileas.num_stages must be a positive integer, got 0 : i32}}
  scf.for %k = %c0 to %c32 step %c1 {
    %a = nv_tileas.tiled_load %v[%k] {atom = #nv_tileas<atom ldg_128b>} : !nv_tileas.tiled_view<4096xf32, gmem> -> tensor<128xf32>
  } {nv_tileas.num_stages = 0 : i32}
  func.return
}
