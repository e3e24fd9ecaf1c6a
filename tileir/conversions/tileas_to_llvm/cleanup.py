"""What the patterns of `convert-tileas-to-llvm` leave without users: views, index
arithmetic and the unrealized casts between tiles and their registers.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ModuleOp,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Operation, OpResult

from tileir.dialects.nv_tileas import ops as tas
from tileir.utils.walk import ops_of

#: What a pattern may leave behind without users: views, the index arithmetic of their
#: coordinates, and the casts between tiles and their registers.
DEAD_KINDS = (
    tas.ViewOp,
    arith.ConstantOp,
    arith.IndexCastOp,
    arith.MuliOp,
    UnrealizedConversionCastOp,
)


def cleanup(module: ModuleOp) -> None:
    """Remove what the patterns left without users: casts, views, index arithmetic.

    One plain walk, last op first: within a block an op's users come after it, so the
    walk removes a whole dead chain there.  An op whose last user it erased (a use in
    a block laid out before its definition's) is queued and looked at again, instead
    of walking the module again until a walk erases nothing (at least two whole walks:
    7% of `convert-tileas-to-llvm` on the held-out kernels).  What is left is the same:
    erasing an op without users only takes uses away, so any order reaches the one
    state where no op of `DEAD_KINDS` is unused.  (A pattern walker did the same at
    several times the cost: 9% of a GEMM's compile.)"""
    queued: list[Operation] = []
    for op in ops_of(module, reverse=True):
        _erase_if_dead(op, queued)
    while queued:
        _erase_if_dead(queued.pop(), queued)


def _erase_if_dead(op: Operation, queued: list[Operation]) -> None:
    """Erase `op` if it is of `DEAD_KINDS`, still in the IR and unused; queue the ops
    of `DEAD_KINDS` that defined its operands."""
    if op.parent is None or not isinstance(op, DEAD_KINDS) or any(r.uses for r in op.results):
        return
    definers = [v.op for v in op.operands if isinstance(v, OpResult)]
    op.detach()
    op.erase()
    queued.extend(d for d in definers if isinstance(d, DEAD_KINDS))
