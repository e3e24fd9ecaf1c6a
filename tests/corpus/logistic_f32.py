"""1-D float32 logistic functions with a runtime temperature.

With ``z = x / temperature``:
``sig = 1 / (1 + exp(-z))``, ``logsig = z - (max(z, 0) + log(1 + exp(-|z|)))``
(= log(sigmoid(z)), the stable form), and ``steps = floor(x * 4) * 0.25``.

Coverage: 1-D grid, f32 ``divf`` (tile / runtime scalar and literal / tile),
``subf``, ``log``, ``floor``, ``exp``, ``maxf``, ``abs``, negation, three
outputs, a ragged length (1000 vs 128), bases assumed only 8-byte aligned.
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
    scalar_constraint,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]

TILE = 128
N = 1000


@ct.kernel
def logistic_f32(x, sig, logsig, steps, temperature: float):
    """sigmoid(x / T), log(sigmoid(x / T)) and x rounded down to a multiple of 1/4."""
    pid = ct.bid(0)
    tx = ct.load(x, (pid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    z = tx / temperature
    ct.store(sig, (pid,), 1.0 / (1.0 + ct.exp(-z)))
    softplus = ct.maximum(z, 0.0) + ct.log(1.0 + ct.exp(-ct.abs(z)))
    ct.store(logsig, (pid,), z - softplus)
    ct.store(steps, (pid,), ct.floor(tx * 4.0) * 0.25)


KERNEL = logistic_f32
TOLERANCE = {"sig": (1e-5, 1e-6), "logsig": (1e-5, 1e-5), "steps": (0.0, 0.0)}


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=8)
    return [kernel_signature([f32, f32, f32, f32, scalar_constraint(ct.float32)])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-12.0, 12.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "sig", "logsig", "steps", "temperature"),
        arrays={
            "x": x,
            "sig": empty_output((N,), np.float32),
            "logsig": empty_output((N,), np.float32),
            "steps": empty_output((N,), np.float32),
        },
        scalars={"temperature": 1.5},
        outputs=("sig", "logsig", "steps"),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    x = inputs["arrays"]["x"]
    one = np.float32(1.0)
    z = x / np.float32(inputs["scalars"]["temperature"])
    sig = one / (one + np.exp(-z))
    softplus = np.maximum(z, np.float32(0.0)) + np.log(one + np.exp(-np.abs(z)))
    steps = np.floor(x * np.float32(4.0)) * np.float32(0.25)
    return {"sig": sig, "logsig": (z - softplus).astype(np.float32), "steps": steps}
