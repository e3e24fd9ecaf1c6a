"""Running cuda_tile kernels on a GPU: `launch` compiles with tileir, assembles with
ptxas and launches through the CUDA driver (cuda-python or CuPy, imported only
when a launch needs them).  Its signature is `tileir.interpreter.launch`'s, so the
two can be compared on the same arguments (tests/gpu/test_runtime_gpu.py); `time_kernel`
times launches of tileir's cubin, or another's, on them (benchmarks/bench_gpu.py)."""

from tileir.runtime.backends import GpuUnavailable
from tileir.runtime.launcher import (
    RuntimeResult,
    arch_for,
    block_size,
    compile_kernel,
    launch,
    time_kernel,
)

__all__ = [
    "GpuUnavailable",
    "RuntimeResult",
    "arch_for",
    "block_size",
    "compile_kernel",
    "launch",
    "time_kernel",
]
