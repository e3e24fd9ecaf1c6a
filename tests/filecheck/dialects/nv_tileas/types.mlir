// nv_tileas types (seed 002) and the two foreign types the seeds write: each spelling
// prints and parses back; fields equal to their default are not printed.
// RUN: tileir-opt %s | tileir-opt --print-local-scope | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt --print-local-scope | filecheck %s

// CHECK-LABEL: func.func @tokens
// CHECK-SAME: %p: !nv_tileas.async.pipeline.producer_token, %c: !nv_tileas.async.pipeline.consumer_token, %t: !nv_tileas.async.token, %d: !nv_tileas.tma_desc
func.func @tokens(%p: !nv_tileas.async.pipeline.producer_token, %c: !nv_tileas.async.pipeline.consumer_token,
                  %t: !nv_tileas.async.token, %d: !nv_tileas.tma_desc) {
  func.return
}

// The element-type-only spelling: count not fixed yet (?), stride 1, shared memory.
// CHECK-LABEL: func.func @iterators
// CHECK-SAME: %a: !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>,
// CHECK-SAME: %b: !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>,
// CHECK-SAME: %c: !nv_tileas.async.pipeline.iterator<tile<128x128xf16>, count = 4>,
// CHECK-SAME: %d: !nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 2, stride = 2, space = rmem>,
// CHECK-SAME: %e: !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>)
func.func @iterators(%a: !nv_tileas.async.pipeline.iterator<tile<128x128xf16>>,
                     %b: !nv_tileas.async.pipeline.iterator<!cuda_tile.tile<128x128xf16>, count = ?, stride = 1, space = smem>,
                     %c: !nv_tileas.async.pipeline.iterator<tile<128x128xf16>, count = 4>,
                     %d: !nv_tileas.async.pipeline.iterator<tensor<64xf32>, count = 2, stride = 2, space = rmem>,
                     %e: !nv_tileas.async.pipeline.iterator<tile<128x128xf16>, space = smem>) {
  func.return
}

// CHECK-LABEL: func.func @tiled_views
// CHECK-SAME: %g: !nv_tileas.tiled_view<256xf32, gmem>,
// CHECK-SAME: %dyn: !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]>,
// CHECK-SAME: %s: !nv_tileas.tiled_view<128x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>>,
// CHECK-SAME: %t: !nv_tileas.tiled_view<128x128xf32, tmem>,
// CHECK-SAME: %r: !nv_tileas.tiled_view<16x16xf16, rmem>,
// CHECK-SAME: %bare: !nv_tileas.tiled_view<128x128xf16, smem>)
func.func @tiled_views(%g: !nv_tileas.tiled_view<256xf32, gmem>,
                       %dyn: !nv_tileas.tiled_view<?x?xf16, gmem, strides = [?, 1]>,
                       %s: !nv_tileas.tiled_view<128x64xf16, smem, layout = #nv_tileas.shared<{swizzle = 128B, order = [1, 0]}>>,
                       %t: !nv_tileas.tiled_view<128x128xf32, tmem>,
                       %r: !nv_tileas.tiled_view<16x16xf16, rmem>,
                       %bare: !nv_tileas.tiled_view<128x128xf16, smem>) {
  func.return
}

// CHECK-LABEL: func.func @foreign
// CHECK-SAME: %f: !async.value<tile<128x128xf16>>, %g: !async.value<i32>, %d: !cute_nvgpu.tma_descriptor_tiled
func.func @foreign(%f: !async.value<tile<128x128xf16>>, %g: !async.value<i32>, %d: !cute_nvgpu.tma_descriptor_tiled) {
  func.return
}

// Attributes print in their opaque forms.
// CHECK-LABEL: func.func @attributes
// CHECK: #nv_tileas<residency tmem>
// CHECK-SAME: #nv_tileas<rmw_mode addf>
// CHECK-SAME: #nv_tileas<swizzle_mode 64B>
// CHECK-SAME: #nv_tileas<oob_mode nan>
// CHECK-SAME: #nv_tileas<padding neg_inf>
// CHECK-SAME: #nv_tileas<mem_semantic acquire_release>
// CHECK-SAME: #nv_tileas<mem_scope cluster>
func.func @attributes() attributes {all = [#nv_tileas<residency tmem>, #nv_tileas<rmw_mode addf>, #nv_tileas<swizzle_mode 64B>, #nv_tileas<oob_mode nan>, #nv_tileas<padding neg_inf>, #nv_tileas<mem_semantic acquire_release>, #nv_tileas<mem_scope cluster>]} {
  func.return
}
