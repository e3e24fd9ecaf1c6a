// Round-trip of the elementwise families in NVIDIA's printed form, in both the
// custom and the generic form.
// RUN: tileir-opt %s | filecheck %s
// RUN: tileir-opt %s | tileir-opt | filecheck %s
// RUN: tileir-opt %s --print-op-generic | tileir-opt | filecheck %s

cuda_tile.module @kernels {
  // CHECK-LABEL: entry @floats
  entry @floats(%a: tile<f32>, %h: tile<f16>) {
    %t = reshape %a : tile<f32> -> tile<1x1xf32>
    %x = broadcast %t : tile<1x1xf32> -> tile<8x4xf32>
    // The custom rounding directive leaves MLIR's double space when it prints nothing.
    // CHECK: %[[ADD:.*]] = addf %{{.*}}, %{{.*}}  : tile<8x4xf32>
    %0 = addf %x, %x : tile<8x4xf32>
    // CHECK: subf %{{.*}}, %{{.*}} rounding<zero> flush_to_zero : tile<8x4xf32>
    %1 = subf %0, %x rounding<zero> flush_to_zero : tile<8x4xf32>
    // CHECK: mulf %{{.*}}, %{{.*}} rounding<positive_inf> : tile<8x4xf32>
    %2 = mulf %1, %x rounding<positive_inf> : tile<8x4xf32>
    // CHECK: divf %{{.*}}, %{{.*}} rounding<approx> : tile<8x4xf32>
    %3 = divf %2, %x rounding<approx> : tile<8x4xf32>
    // CHECK: fma %{{.*}}, %{{.*}}, %{{.*}}  : tile<8x4xf32>
    %4 = fma %3, %x, %0 : tile<8x4xf32>
    // CHECK: maxf %{{.*}}, %{{.*}} flush_to_zero propagate_nan : tile<8x4xf32>
    %5 = maxf %4, %x propagate_nan flush_to_zero : tile<8x4xf32>
    // CHECK: minf %{{.*}}, %{{.*}} : tile<8x4xf32>
    %6 = minf %5, %x : tile<8x4xf32>
    // CHECK: exp %{{.*}}  : tile<8x4xf32>
    %7 = exp %6 : tile<8x4xf32>
    // CHECK: exp %{{.*}} rounding<approx> : tile<8x4xf32>
    %8 = exp %7 rounding<approx> : tile<8x4xf32>
    // CHECK: tanh %{{.*}}  : tile<8x4xf32>
    %9 = tanh %8 rounding<full> : tile<8x4xf32>
    // CHECK: sqrt %{{.*}} rounding<approx> : tile<8x4xf32>
    %10 = sqrt %9 rounding<approx> : tile<8x4xf32>
    // CHECK: rsqrt %{{.*}} flush_to_zero : tile<8x4xf32>
    %11 = rsqrt %10 flush_to_zero : tile<8x4xf32>
    // CHECK: exp2 %{{.*}} : tile<8x4xf32>
    %12 = exp2 %11 : tile<8x4xf32>
    // CHECK: absf %{{.*}} : tile<8x4xf32>
    %13 = absf %12 : tile<8x4xf32>
    // CHECK: negf %{{.*}} : tile<8x4xf32>
    %14 = negf %13 : tile<8x4xf32>
    // CHECK: cmpf less_than unordered %{{.*}}, %{{.*}} : tile<8x4xf32> -> tile<8x4xi1>
    %15 = cmpf less_than unordered %14, %x : tile<8x4xf32> -> tile<8x4xi1>
    // CHECK: select %{{.*}}, %{{.*}}, %{{.*}} : tile<8x4xi1>, tile<8x4xf32>
    %16 = select %15, %14, %x : tile<8x4xi1>, tile<8x4xf32>
    // CHECK: ftof %{{.*}}  : tile<8x4xf32> -> tile<8x4xf16>
    %17 = ftof %16 : tile<8x4xf32> -> tile<8x4xf16>
    // CHECK: ftoi %{{.*}} signed  : tile<8x4xf16> -> tile<8x4xi32>
    %18 = ftoi %17 signed : tile<8x4xf16> -> tile<8x4xi32>
    // CHECK: itof %{{.*}} unsigned  : tile<8x4xi32> -> tile<8x4xbf16>
    %19 = itof %18 unsigned : tile<8x4xi32> -> tile<8x4xbf16>
    // CHECK: log %{{.*}} : tile<f16>
    %20 = log %h : tile<f16>
    // CHECK: return
    return
  }

  // CHECK-LABEL: entry @integers
  entry @integers(%a: tile<i32>, %b: tile<i32>) {
    // CHECK: addi %arg0, %arg1 : tile<i32>
    %0 = addi %a, %b : tile<i32>
    // CHECK: subi %{{.*}}, %arg1 overflow<no_signed_wrap> : tile<i32>
    %1 = subi %0, %b overflow<no_signed_wrap> : tile<i32>
    // CHECK: muli %{{.*}}, %arg1 : tile<i32>
    %2 = muli %1, %b overflow<none> : tile<i32>
    // CHECK: divi %{{.*}}, %arg1 signed rounding<negative_inf> : tile<i32>
    %3 = divi %2, %b signed rounding<negative_inf> : tile<i32>
    // CHECK: divi %{{.*}}, %arg1 unsigned : tile<i32>
    %4 = divi %3, %b unsigned rounding<zero> : tile<i32>
    // CHECK: remi %{{.*}}, %arg1 signed : tile<i32>
    %5 = remi %4, %b signed : tile<i32>
    // CHECK: maxi %{{.*}}, %arg1 unsigned : tile<i32>
    %6 = maxi %5, %b unsigned : tile<i32>
    // CHECK: shri %{{.*}}, %arg1 signed : tile<i32>
    %7 = shri %6, %b signed : tile<i32>
    // CHECK: shli %{{.*}}, %arg1 : tile<i32>
    %8 = shli %7, %b : tile<i32>
    // CHECK: xori %{{.*}}, %arg1 : tile<i32>
    %9 = xori %8, %b : tile<i32>
    // CHECK: cmpi less_than %{{.*}}, %arg1, signed : tile<i32> -> tile<i1>
    %10 = cmpi less_than %9, %b, signed : tile<i32> -> tile<i1>
    // CHECK: exti %{{.*}} unsigned : tile<i1> -> tile<i32>
    %11 = exti %10 unsigned : tile<i1> -> tile<i32>
    // CHECK: trunci %{{.*}} : tile<i32> -> tile<i8>
    %12 = trunci %11 : tile<i32> -> tile<i8>
    // CHECK: negi %{{.*}} : tile<i8>
    %13 = negi %12 : tile<i8>
    // CHECK: absi %{{.*}} : tile<i8>
    %14 = absi %13 : tile<i8>
    // CHECK: mulhii %arg0, %arg1 : tile<i32>
    %15 = mulhii %a, %b : tile<i32>
    // CHECK: bitcast %{{.*}} : tile<i32> -> tile<f32>
    %16 = bitcast %15 : tile<i32> -> tile<f32>
    return
  }
}
