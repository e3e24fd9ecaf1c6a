"""Canonicalization patterns of nv_tileaa (seed 004, "Canonicalization Surface").

The eleven rows of the seed's table are the fourteen patterns of its populate list,
one module per area: `dot` (dot folding), `memory` (pointer arithmetic, masked load,
masked store), `shape` (assumptions and selects over splats, shape wrappers, extract
motion), `regions` (queue and pragma result pruning) and `atomics` (atomic
identities).  Each pattern's docstring quotes the safety condition it checks before
rewriting.

`populate_tileaa_canonicalizers` lists them in the seed's order.  The pass
`tileaa-canonicalize` runs all of them in one greedy driver, shape and memory folds
together, because a shape fold often exposes a memory fold on the next iteration (a
mask that becomes a splat of a constant).  The same pattern objects are attached to
their root ops through `CanonicalizedBy`, so xDSL's `canonicalize` runs them too.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import RewritePattern

from tileir.dialects.nv_tileaa.canonicalize.atomics import FoldAtomicCas, FoldAtomicRmw
from tileir.dialects.nv_tileaa.canonicalize.dot import FoldConstantDot
from tileir.dialects.nv_tileaa.canonicalize.memory import (
    CanonicalizeMaskedLoad,
    CanonicalizeMaskedStore,
    FuseAddPtrChain,
)
from tileir.dialects.nv_tileaa.canonicalize.regions import (
    PrunePragmaResults,
    PruneQueueGetResults,
)
from tileir.dialects.nv_tileaa.canonicalize.shape import (
    FoldBroadcastOfSplat,
    FoldExpandDimsOfSplat,
    FoldViewChain,
    HoistExtractThroughElementwise,
    PushAssumeThroughSplat,
    PushSelectThroughSplat,
)


def populate_tileaa_canonicalizers() -> tuple[RewritePattern, ...]:
    """The fourteen patterns of seed 004's populate list, in its order."""
    return (
        FoldConstantDot(),
        FuseAddPtrChain(),
        PushAssumeThroughSplat(),
        PushSelectThroughSplat(),
        CanonicalizeMaskedLoad(),
        CanonicalizeMaskedStore(),
        FoldExpandDimsOfSplat(),
        FoldViewChain(),
        FoldBroadcastOfSplat(),
        HoistExtractThroughElementwise(),
        PruneQueueGetResults(),
        PrunePragmaResults(),
        FoldAtomicCas(),
        FoldAtomicRmw(),
    )


TILEAA_CANONICALIZATION_PATTERNS: tuple[RewritePattern, ...] = populate_tileaa_canonicalizers()
"""One instance of each pattern, shared by `tileaa-canonicalize` and the op traits."""

_BY_NAME: dict[str, RewritePattern] = {
    type(p).__name__: p for p in TILEAA_CANONICALIZATION_PATTERNS
}


def patterns_named(names: tuple[str, ...]) -> tuple[RewritePattern, ...]:
    """The registered patterns with these class names (an op trait's patterns).  An
    unknown name is a programming error in the op definition, reported as such."""
    missing = [n for n in names if n not in _BY_NAME]
    if missing:
        raise KeyError(f"no nv_tileaa canonicalization pattern named {', '.join(missing)}")
    return tuple(_BY_NAME[n] for n in names)


__all__ = [
    "TILEAA_CANONICALIZATION_PATTERNS",
    "CanonicalizeMaskedLoad",
    "CanonicalizeMaskedStore",
    "FoldAtomicCas",
    "FoldAtomicRmw",
    "FoldBroadcastOfSplat",
    "FoldConstantDot",
    "FoldExpandDimsOfSplat",
    "FoldViewChain",
    "FuseAddPtrChain",
    "HoistExtractThroughElementwise",
    "PrunePragmaResults",
    "PruneQueueGetResults",
    "PushAssumeThroughSplat",
    "PushSelectThroughSplat",
    "patterns_named",
    "populate_tileaa_canonicalizers",
]
