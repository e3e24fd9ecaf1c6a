"""`tileaa-canonicalize`: the nv_tileaa canonicalization surface (seed 004), run by one
greedy driver to a fixed point, with dead pure ops removed on the way."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier

from tileir.dialects.nv_tileaa.canonicalize import TILEAA_CANONICALIZATION_PATTERNS
from tileir.utils.rewriting import LocatedWalker


@dataclass(frozen=True)
class TileAACanonicalizePass(ModulePass):
    """The fourteen patterns of seed 004's populate list (dot folding, addptr fusion,
    assume/select over splats, masked load and store, shape wrappers, extract motion,
    queue and pragma result pruning, atomic identities) in one greedy driver: shape
    and memory folds are registered together because a shape fold often exposes a
    memory fold on the next iteration.  The same patterns run under xDSL's
    `canonicalize`, attached to their root ops."""

    name = "tileaa-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        LocatedWalker(
            GreedyRewritePatternApplier(list(TILEAA_CANONICALIZATION_PATTERNS))
        ).rewrite_module(op)
