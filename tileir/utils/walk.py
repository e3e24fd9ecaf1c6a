"""`ops_of`: the ops xDSL's `Operation.walk` yields, in its order, as a list built in one
loop.

xDSL's walk is a chain of generators, one per level of nesting (op, region, block, the
block's op iterator, and again for each nested op), so every op of a kernel passes
through four or more generator frames and a Python `__next__` before the caller sees
it.  A compilation walks the whole module about fifteen times (verification at each
stage's end, the lowering's cleanup and legality check, the llvm passes, the PTX
printer's scans): on the held-out kernels those walks' own overhead was 5-6% of a warm
compilation under cProfile.  The callers that read the IR, or that erase ops only after
the walk (as `list(module.walk())` did), take the same ops from `ops_of` at a fraction
of the cost.  A caller that changes the IR while it walks keeps xDSL's lazy walk: a list
sees the IR as it was when the walk began.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects import func
from xdsl.ir import Operation

OpT = TypeVar("OpT", bound=Operation)


def ops_of(op: Operation, *, reverse: bool = False) -> list[Operation]:
    """`list(op.walk(reverse=reverse))`: `op`, then the ops of its regions, each op
    before its own regions (pre-order); `reverse` reverses the regions, blocks and ops
    of every level, as xDSL's does."""
    out: list[Operation] = []
    if reverse:
        _collect_reversed(op, out)
    else:
        _collect(op, out)
    return out


# Both read xDSL's own links (what its properties `first_block`, `next_op`, ... return)
# directly: the properties' calls were most of the walk's cost.


def _collect(op: Operation, out: list[Operation]) -> None:
    out.append(op)
    for region in op.regions:
        block = region._first_block  # pyright: ignore[reportPrivateUsage]
        while block is not None:
            child = block._first_op  # pyright: ignore[reportPrivateUsage]
            while child is not None:
                if child.regions:
                    _collect(child, out)
                else:
                    out.append(child)
                child = child._next_op  # pyright: ignore[reportPrivateUsage]
            block = block._next_block  # pyright: ignore[reportPrivateUsage]


def _collect_reversed(op: Operation, out: list[Operation]) -> None:
    out.append(op)
    for region in reversed(op.regions):
        block = region._last_block  # pyright: ignore[reportPrivateUsage]
        while block is not None:
            child = block._last_op  # pyright: ignore[reportPrivateUsage]
            while child is not None:
                if child.regions:
                    _collect_reversed(child, out)
                else:
                    out.append(child)
                child = child._prev_op  # pyright: ignore[reportPrivateUsage]
            block = block._prev_block  # pyright: ignore[reportPrivateUsage]


def enclosing_op(op: Operation, kind: type[OpT]) -> OpT | None:
    """The nearest op of type `kind` that `op` is nested in, or None."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, kind):
        parent = parent.parent_op()
    return parent


def enclosing_function(op: Operation) -> func.FuncOp | None:
    """The `func.func` that `op` is nested in, or None."""
    return enclosing_op(op, func.FuncOp)
