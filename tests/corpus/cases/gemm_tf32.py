"""Inputs, numpy reference and tolerance of the ``gemm_tf32`` corpus kernel."""

from __future__ import annotations

import numpy as np
from _common import KernelInputs, cdiv, empty_output, flatten_args, make_kernel_inputs

__all__ = [
    "TILE_K",
    "TILE_M",
    "TILE_N",
    "TOLERANCE",
    "flatten_args",
    "flops",
    "make_inputs",
    "reference",
    "round_to_tf32",
]

TILE_M, TILE_N, TILE_K = 64, 64, 32
# No dimension is a multiple of its tile: the last tiles load zeros past the edge
# (zero rounds to zero in tf32 and adds nothing) and store only what is in bounds.
# The row strides (K and N elements) stay multiples of 4, as the signature declares.
M, N, K = 200, 100, 120
# The operands are rounded to tf32 first (as the kernel does), so every product of
# two tf32 values (11-bit significands) is exact in f32 and in f64; what differs is
# only how the 120 products of a sum are added: the reference adds them exactly
# (f64, then one rounding to f32), the tensor cores in f32 in their own order, one
# rounding per instruction (and the hardware may keep less than f32 between them).
# With |a|, |b| < 1 the sums stay below 16 in magnitude (ulp 1e-6): 15 K steps of 8
# products give a few 1e-6 (the simulator: 2e-6), so 1e-4 absolute leaves a wide
# margin while still telling the rounding apart: rounding the ties away from zero
# (`cvt.rna`) moves results by 2e-3, not rounding at all by 4e-3
# (`test_tf32_codegen.py` checks both).
TOLERANCE = {"c": (1e-5, 1e-4)}


def round_to_tf32(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to tf32 as cuda_tile's `ftof` rounds by default: to nearest,
    ties to even, at the 10th fraction bit; the result is an f32 whose 13 low bits
    are zero.  (Finite inputs only, which is all `make_inputs` makes.)"""
    x = np.ascontiguousarray(x, dtype=np.float32)
    assert np.isfinite(x).all()
    bits = x.view(np.uint32).astype(np.uint64)
    half_ulp = np.uint64(0x1000)
    kept_odd = (bits >> np.uint64(13)) & np.uint64(1)
    # Below half an ulp rounds down, above rounds up, exactly half goes to even.
    rounded = (bits + half_ulp - np.uint64(1) + kept_odd) & ~np.uint64(0x1FFF)
    return rounded.astype(np.uint32).view(np.float32)


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.uniform(-1.0, 1.0, (M, K)).astype(np.float32)
    b = rng.uniform(-1.0, 1.0, (K, N)).astype(np.float32)
    # A few exact ties (a tf32 value plus half its last place) in each operand: they
    # round to the even neighbour, up or down.
    ties = np.array([1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, -(0.5 + 2.0**-12)], np.float32)
    a[0, :3] = ties
    b[:3, 0] = ties
    return make_kernel_inputs(
        params=("a", "b", "c", "k_tiles"),
        arrays={"a": a, "b": b, "c": empty_output((M, N), np.float32)},
        scalars={"k_tiles": cdiv(K, TILE_K)},
        outputs=("c",),
        grid=(cdiv(M, TILE_M), cdiv(N, TILE_N), 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = round_to_tf32(inputs["arrays"]["a"]).astype(np.float64)
    b = round_to_tf32(inputs["arrays"]["b"]).astype(np.float64)
    return {"c": (a @ b).astype(np.float32)}


def flops(inputs: KernelInputs) -> int:
    """The multiply-adds of the product, counted as 2 FLOPs each (benchmarks/bench_gpu.py)."""
    return 2 * M * N * K
