// The ptx target's error has no source location: only an `@unknown` annotation names it.
// expected-error@unknown {{the module has no kernel to print as PTX}}
cuda_tile.module @m {
  entry @k() {
    return
  }
}
