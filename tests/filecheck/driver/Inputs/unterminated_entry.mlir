cuda_tile.module @m {
  entry @k() {
