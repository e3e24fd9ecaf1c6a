"""1-D residual add with dtype casts: float16 in, float32 and bfloat16 out.

``out = f32(x) + beta * f32(residual)``, ``out_bf16 = bf16(out)``.

Coverage: 1-D grid, f16 -> f32 and f32 -> bf16 ``ftof``, a runtime ``float``
``beta`` (``a*b+c`` contracted to ``fma``), two outputs of different dtypes, a
ragged length (2500 vs 256), 16-byte aligned inputs and f32 output, and a bf16
output with no alignment assumption (``base_addr_divisible_by=1``).

Inputs, numpy reference and tolerance: ``cases/residual_cast_f16.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.residual_cast_f16 import TILE, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = [
    "KERNEL",
    "TILE",
    "TOLERANCE",
    "flatten_args",
    "make_inputs",
    "reference",
    "signatures",
]


@ct.kernel
def residual_cast_f16(x, residual, out, out_bf16, beta: float):
    """out = f32(x) + beta * f32(residual) (float32) and its bfloat16 rounding."""
    pid = ct.bid(0)
    tx = ct.astype(ct.load(x, (pid,), (TILE,)), ct.float32)
    tr = ct.astype(ct.load(residual, (pid,), (TILE,)), ct.float32)
    y = tx + beta * tr
    ct.store(out, (pid,), y)
    ct.store(out_bf16, (pid,), ct.astype(y, ct.bfloat16))


KERNEL = residual_cast_f16


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 1, base_addr_divisible_by=16)
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    bf16 = array_constraint(ct.bfloat16, 1, base_addr_divisible_by=1)
    return [kernel_signature([f16, f16, f32, bf16, scalar_constraint(ct.float32)])]
