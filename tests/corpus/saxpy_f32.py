"""1-D float32 SAXPY with a runtime scalar: ``out = alpha * x + y``.

Coverage: 1-D grid, f32, a runtime ``float`` argument (broadcast into the tile),
``a*b+c`` (cuTile contracts it to ``fma``), the tile size as a
``ct.Constant[int]`` parameter, a ragged length (4099 vs 256), and no alignment
assumption at all on the base addresses (``base_addr_divisible_by=1``).
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

TILE = 256
N = 4099


@ct.kernel
def saxpy_f32(x, y, out, alpha: float, tile: ct.Constant[int]):
    """out[i] = alpha * x[i] + y[i] for a 1-D float32 vector, ``tile`` elements per block."""
    pid = ct.bid(0)
    tx = ct.load(x, (pid,), (tile,))
    ty = ct.load(y, (pid,), (tile,))
    ct.store(out, (pid,), alpha * tx + ty)


KERNEL = saxpy_f32
# fma contraction: one rounding instead of numpy's two.
TOLERANCE = {"out": (1e-6, 1e-6)}


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=1)
    return [kernel_signature([f32, f32, f32, scalar_constraint(ct.float32), TILE])]


def make_inputs(rng: np.random.Generator) -> KernelInputs:
    x = rng.uniform(-4.0, 4.0, N).astype(np.float32)
    y = rng.uniform(-4.0, 4.0, N).astype(np.float32)
    return make_kernel_inputs(
        params=("x", "y", "out", "alpha", "tile"),
        arrays={"x": x, "y": y, "out": empty_output((N,), np.float32)},
        scalars={"alpha": 1.75},
        constants={"tile": TILE},
        outputs=("out",),
        grid=(cdiv(N, TILE), 1, 1),
    )


def reference(inputs: KernelInputs) -> dict[str, np.ndarray]:
    a = inputs["arrays"]
    alpha = np.float32(inputs["scalars"]["alpha"])
    return {"out": alpha * a["x"] + a["y"]}
