"""Two arrays updated in place with tiles of very different sizes (512 and 64).

``x *= 2`` on 512-element tiles and ``y += 1`` on 64-element tiles, in one kernel.

Coverage: the CTA is sized for the large tile, so the small tile is replicated
over threads of several warps; only one copy of each element may store (or a copy
that loads after another copy stored would write ``y + 2``). In-place updates
(the same array loaded and stored), exact tiles (no masks).
Inputs, numpy reference and tolerance: ``cases/mixed_tiles_inplace.py``.
"""

from __future__ import annotations

import cuda.tile as ct
from _common import array_constraint, kernel_signature
from cases.mixed_tiles_inplace import BIG, SMALL, TOLERANCE, flatten_args, make_inputs, reference
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def mixed_tiles_inplace(x, y):
    """Double a 512-element tile of ``x`` and increment a 64-element tile of ``y``."""
    b = ct.bid(0)
    t = ct.load(x, (b,), (BIG,))
    u = ct.load(y, (b,), (SMALL,))
    ct.store(y, (b,), u + 1.0)
    ct.store(x, (b,), t * 2.0)


KERNEL = mixed_tiles_inplace


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    return [kernel_signature([f32, f32])]
