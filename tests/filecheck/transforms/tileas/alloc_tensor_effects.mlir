// alloc_tensor allocates its result (an allocation effect, not Pure): xDSL's CSE keeps two
// allocations of the same type apart (each is its own storage, which is what branch
// decomposition relies on), while DCE still removes an unused one.
// RUN: tileir-opt %s --split-input-file -p cse | filecheck %s --check-prefix=CSE
// RUN: tileir-opt %s --split-input-file -p dce | filecheck %s --check-prefix=DCE

// CSE-LABEL: func.func @two_allocations
// CSE-NEXT: %[[A:.*]] = nv_tileas.alloc_tensor : tensor<16xf32>
// CSE-NEXT: %[[B:.*]] = nv_tileas.alloc_tensor : tensor<16xf32>
// CSE-NEXT: "test.op"(%[[A]], %[[B]])
// DCE-LABEL: func.func @two_allocations
// DCE-COUNT-2: nv_tileas.alloc_tensor
func.func @two_allocations() {
  %a = nv_tileas.alloc_tensor : tensor<16xf32>
  %b = nv_tileas.alloc_tensor : tensor<16xf32>
  "test.op"(%a, %b) : (tensor<16xf32>, tensor<16xf32>) -> ()
  func.return
}

// -----

// An allocation inside a loop is not merged with one outside it.
// CSE-LABEL: func.func @loop_allocation
// CSE: nv_tileas.alloc_tensor
// CSE: scf.for
// CSE-NEXT: nv_tileas.alloc_tensor
func.func @loop_allocation(%lb: index, %ub: index, %st: index) {
  %a = nv_tileas.alloc_tensor : tensor<16xf32>
  "test.op"(%a) : (tensor<16xf32>) -> ()
  scf.for %k = %lb to %ub step %st {
    %b = nv_tileas.alloc_tensor : tensor<16xf32>
    "test.op"(%b) : (tensor<16xf32>) -> ()
  }
  func.return
}

// -----

// DCE-LABEL: func.func @unused_allocation
// DCE-NEXT: func.return
func.func @unused_allocation(%n: index) {
  %a = nv_tileas.alloc_tensor : tensor<16xf32>
  %b = nv_tileas.alloc_tensor(%n) : tensor<?xf32>
  func.return
}
