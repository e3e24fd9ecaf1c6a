"""1-D float32 vector add: ``c = a + b``.

Coverage: 1-D grid (``ct.bid(0)``), f32, ``addf``, zero padding on loads, a
length (10000) that is not a multiple of the tile (1024), 16-byte aligned bases.
"""

from __future__ import annotations

import cuda.tile as ct
import numpy as np
from _common import (
    KernelInputs,
    array_constraint,
    cdiv,
    empty_output,
    flatten_args,
    kernel_signature,
    make_kernel_inputs,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]

TILE = 1024
N = 10_000


@ct.kernel
def vadd_f32(a, b, c):
    """c[i] = a[i] + b[i]; block ``bid(0)`` handles elements [bid*TILE, (bid+1)*TILE)."""
    pid = ct.bid(0)
    x = ct.load(a, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(pid,), tile=x + y)


KERNEL = vadd_f32
TOLERANCE = {"c": (0.0, 0.0)}


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f32, f32, f32])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    a = rng.standard_normal(N).astype(np.float32)
    b = rng.standard_normal(N).astype(np.float32)
    return make_kernel_inputs(
        params=("a", "b", "c"),
        arrays={"a": a, "b": b, "c": empty_output((N,), np.float32)},
        outputs=("c",),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    arrays = inputs["arrays"]
    return {"c": arrays["a"] + arrays["b"]}
