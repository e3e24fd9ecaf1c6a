// Every chunk of this file but the last one has a mismatch (see verify_diagnostics.mlir).

// An error nobody expected.
cuda_tile.module @unexpected {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    %e = exti %c signed : tile<i32> -> tile<i16>
    return
  }
}

// -----

// An expected error that valid IR does not produce.
cuda_tile.module @not_produced {
  entry @k() {
    // expected-error@+1 {{extending to smaller or identical integer}}
    %c = constant <i32: 1> : tile<i32>
    return
  }
}

// -----

// The right message on the wrong line.
cuda_tile.module @wrong_line {
  entry @k() {
    // expected-error@+1 {{extending to smaller or identical integer}}
    %c = constant <i32: 1> : tile<i32>
    %e = exti %c signed : tile<i32> -> tile<i16>
    return
  }
}

// -----

// The right message and line, the wrong kind.
cuda_tile.module @wrong_kind {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    %e = exti %c signed : tile<i32> -> tile<i16> // expected-warning {{extending to smaller}}
    return
  }
}

// -----

// Annotations that cannot be used: a regex that does not compile, an unknown marker.
cuda_tile.module @bad_annotations {
  entry @k() {
    // expected-error-re@+1 {{extending {{(}} integer}}
    %c = constant <i32: 1> : tile<i32>
    // expected-error@#nowhere {{extending}}
    return
  }
}

// -----

cuda_tile.module @fine {
  entry @k() {
    %c = constant <i32: 1> : tile<i32>
    %e = exti %c signed : tile<i32> -> tile<i16> // expected-error {{extending to smaller}}
    return
  }
}
