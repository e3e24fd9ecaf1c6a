"""1-D residual add with dtype casts: float16 in, float32 and bfloat16 out.

``out = f32(x) + beta * f32(residual)``, ``out_bf16 = bf16(out)``.

Coverage: 1-D grid, f16 -> f32 and f32 -> bf16 ``ftof``, a runtime ``float``
``beta`` (``a*b+c`` contracted to ``fma``), two outputs of different dtypes, a
ragged length (2500 vs 256), 16-byte aligned inputs and f32 output, and a bf16
output with no alignment assumption (``base_addr_divisible_by=1``).
"""

from __future__ import annotations

import cuda.tile as ct
import ml_dtypes
import numpy as np
from _common import (
    KernelInputs,
    array_constraint,
    cdiv,
    empty_output,
    flatten_args,
    kernel_signature,
    make_kernel_inputs,
    scalar_constraint,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]

TILE = 256
N = 2500
BF16 = ml_dtypes.bfloat16


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
# fma contraction in f32; the bf16 copy may then round the other way (1 bf16 ulp).
TOLERANCE = {"out": (1e-6, 1e-6), "out_bf16": (8e-3, 1e-6)}


def signatures() -> list[KernelSignature]:
    f16 = array_constraint(ct.float16, 1, base_addr_divisible_by=16)
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    bf16 = array_constraint(ct.bfloat16, 1, base_addr_divisible_by=1)
    return [kernel_signature([f16, f16, f32, bf16, scalar_constraint(ct.float32)])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.standard_normal(N).astype(np.float16)
    residual = rng.standard_normal(N).astype(np.float16)
    return make_kernel_inputs(
        params=("x", "residual", "out", "out_bf16", "beta"),
        arrays={
            "x": x,
            "residual": residual,
            "out": empty_output((N,), np.float32),
            "out_bf16": empty_output((N,), BF16),
        },
        scalars={"beta": 0.3},
        outputs=("out", "out_bf16"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"].astype(np.float32)
    r = inputs["arrays"]["residual"].astype(np.float32)
    beta = np.float32(inputs["scalars"]["beta"])
    y = x + beta * r
    return {"out": y, "out_bf16": y.astype(BF16)}
