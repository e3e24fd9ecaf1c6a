"""Passes that stay inside cuda_tile: `fuse-fma`, `loop-split` and
`synthesize-debug-info-scopes` (NVIDIA's cuda-tile transforms)."""
