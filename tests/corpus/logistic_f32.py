"""1-D float32 logistic functions with a runtime temperature.

With ``z = x / temperature``:
``sig = 1 / (1 + exp(-z))``, ``logsig = z - (max(z, 0) + log(1 + exp(-|z|)))``
(= log(sigmoid(z)), the stable form), and ``steps = floor(x * 4) * 0.25``.

Coverage: 1-D grid, f32 ``divf`` (tile / runtime scalar and literal / tile),
``subf``, ``log``, ``floor``, ``exp``, ``maxf``, ``abs``, negation, three
outputs, a ragged length (1000 vs 128), bases assumed only 8-byte aligned.

Inputs, numpy reference and tolerance: ``cases/logistic_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.logistic_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


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


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=8)
    return [kernel_signature([f32, f32, f32, f32, scalar_constraint(ct.float32)])]
