"""`dce`: xDSL's dead code elimination, computed in one walk instead of a fixed point.

xDSL's `DeadCodeElimination` marks ops live by walking the whole module again and again
until nothing changes (at least twice), asking each op not yet live for its memory
effects on every walk: on the LLVM stage of a large kernel, a tenth of a compilation.
The live set it converges to is the least one where an op is live when it would not be
trivially dead (it has effects, is a terminator or a symbol) or when a live op uses one
of its results.  That set is what this pass computes directly: one walk that finds the
ops xDSL's walk visits (the blocks reachable from each region's entry, nested regions
included) and the ones that are live by themselves, then the live ops' operands
followed back to their definitions.  The ops and blocks it then erases, and the order,
are xDSL's own (`LiveSet.delete_dead`): the output is the same IR.

Whether an op is live by itself (xDSL's `would_be_trivially_dead`) depends, for most
op classes, on the class alone: its traits are the class's, and the memory effects of
`Pure`, `NoMemoryEffect`, `MemoryReadEffect` and the like are the same set for every op.
Such a class is asked once (`_would_be_trivially_dead`); an op whose effects an op-level
trait computes (`RecursiveMemoryEffect`, a dialect's own) is asked every time.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult, Region
from xdsl.ir.post_order import PostOrderIterator
from xdsl.passes import ModulePass
from xdsl.traits import (
    MemoryAllocEffect,
    MemoryEffect,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
)
from xdsl.transforms.dead_code_elimination import LiveSet, would_be_trivially_dead

#: xDSL's memory-effect traits whose effects are one set for every op (`Pure` is a
#: `NoMemoryEffect`).
CONSTANT_EFFECTS: tuple[type[MemoryEffect], ...] = (
    NoMemoryEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    MemoryAllocEffect,
    MemoryFreeEffect,
)

#: Per op class: `would_be_trivially_dead` of all its ops, or None where it depends on
#: the op.
_BY_CLASS: dict[type[Operation], bool | None] = {}


def _constant_effects(cls: type[Operation]) -> bool:
    """Whether every memory-effect trait of `cls` reports one set for every op."""
    constant = {kind.get_effects.__func__ for kind in CONSTANT_EFFECTS}
    return all(
        getattr(type(trait).get_effects, "__func__", None) in constant
        for trait in cls.traits
        if isinstance(trait, MemoryEffect)
    )


def _would_be_trivially_dead(op: Operation) -> bool:
    """xDSL's `would_be_trivially_dead(op)`, asked once per class where the class
    decides it (the module's docstring)."""
    cls = type(op)
    if cls in _BY_CLASS:
        known = _BY_CLASS[cls]
    else:
        known = _BY_CLASS[cls] = would_be_trivially_dead(op) if _constant_effects(cls) else None
    return would_be_trivially_dead(op) if known is None else known


def _visit(region: Region, visited: set[Operation], live: list[Operation]) -> None:
    """The ops of `region` that xDSL's liveness walk reaches (into `visited`), and those
    live by themselves (onto `live`)."""
    first = region.first_block
    if first is None:
        return
    for block in PostOrderIterator(first):
        for op in reversed(block.ops):
            for nested in op.regions:
                _visit(nested, visited, live)
            visited.add(op)
            if not _would_be_trivially_dead(op):
                live.append(op)


def live_ops(region: Region) -> set[Operation]:
    """The least live set of xDSL's `region_dce` over `region`."""
    visited: set[Operation] = set()
    work: list[Operation] = []
    _visit(region, visited, work)
    live: set[Operation] = set(work)
    while work:
        op = work.pop()
        for operand in op.operands:
            if isinstance(operand, OpResult):
                owner = operand.op
                if owner not in live and owner in visited:
                    live.add(owner)
                    work.append(owner)
    return live


def region_dce(region: Region) -> None:
    live_set = LiveSet()
    live_set._live_ops = live_ops(region)  # pyright: ignore[reportPrivateUsage]
    live_set.delete_dead(region, None)


@dataclass(frozen=True)
class DeadCodeElimination(ModulePass):
    """Erase the ops whose results nothing live uses and that have no other effect."""

    name = "dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        region_dce(op.body)
