"""1-D float32 SAXPY with a runtime scalar: ``out = alpha * x + y``.

Coverage: 1-D grid, f32, a runtime ``float`` argument (broadcast into the tile),
``a*b+c`` (cuTile contracts it to ``fma``), the tile size as a
``ct.Constant[int]`` parameter, a ragged length (4099 vs 256), and no alignment
assumption at all on the base addresses (``base_addr_divisible_by=1``).

Inputs, numpy reference and tolerance: ``cases/saxpy_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.saxpy_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def saxpy_f32(x, y, out, alpha: float, tile: ct.Constant[int]):
    """out[i] = alpha * x[i] + y[i] for a 1-D float32 vector, ``tile`` elements per block."""
    pid = ct.bid(0)
    tx = ct.load(x, (pid,), (tile,))
    ty = ct.load(y, (pid,), (tile,))
    ct.store(out, (pid,), alpha * tx + ty)


KERNEL = saxpy_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=1)
    return [kernel_signature([f32, f32, f32, scalar_constraint(ct.float32), TILE])]
