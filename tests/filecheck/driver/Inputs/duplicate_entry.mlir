cuda_tile.module @m {
  entry @k() {
    return
  }
  entry @k() {
    return
  }
}
