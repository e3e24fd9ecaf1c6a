"""1-D float32 kernel with structured control flow over loop-carried tiles.

``t`` is ``2x`` or ``x - 1`` by a runtime ``if``; a ``for`` loop with a
``continue`` accumulates ``acc += t * i`` for ``i`` not ``1 (mod 3)``; a
``while True`` loop with a ``break`` clamps ``t`` to a limit halved each trip;
``out = acc + t``.

Coverage: ``if``/``else`` yielding a tile, ``for`` with a loop-carried tile and
``continue``, ``loop`` with ``break`` carrying a tile and two scalars, a
ragged length (1000 vs 128).

Inputs, numpy reference and tolerance: ``cases/control_flow_f32.py`` (no cuTile needed).
"""

from __future__ import annotations

import cuda.tile as ct
from _common import (
    array_constraint,
    kernel_signature,
    scalar_constraint,
)
from cases.control_flow_f32 import (
    TILE,
    TOLERANCE,
    flatten_args,
    make_inputs,
    reference,
)
from cuda.tile.compilation import KernelSignature

__all__ = ["KERNEL", "TILE", "TOLERANCE", "flatten_args", "make_inputs", "reference", "signatures"]


@ct.kernel
def control_flow_f32(x, out, n: int, limit: float):
    """out = acc + t with t, acc built by an if, a for with continue and a while with break."""
    pid = ct.bid(0)
    t = ct.load(x, (pid,), (TILE,))
    if n > 3:
        t = t * 2.0
    else:
        t = t - 1.0
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for i in range(n):
        if i % 3 == 1:
            continue
        acc = acc + t * ct.astype(i, ct.float32)
    i = 0
    while True:
        if i >= n:
            break
        t = ct.minimum(t, limit)
        limit = limit * 0.5
        i += 1
    ct.store(out, (pid,), acc + t)


KERNEL = control_flow_f32


def signatures() -> list[KernelSignature]:
    f32 = array_constraint(ct.float32, 1, base_addr_divisible_by=16)
    return [
        kernel_signature([f32, f32, scalar_constraint(ct.int32), scalar_constraint(ct.float32)])
    ]
