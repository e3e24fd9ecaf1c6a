"""`tileas-canonicalize`: the seven nv_tileas canonicalization patterns of seed 000
(`tileir.dialects.nv_tileas.canonicalize`), run to a fixed point over the whole module.

One greedy driver applies all seven, in seed order, until none applies.  Each pattern
checks its legality through the shared safe-rewrite predicate first, so memory-consistency
ops are never moved, duplicated or erased.  The driver does no general dead-code
elimination: every pattern's output is the seed's output (the ops a pattern moves are
erased by the pattern itself; ops a rewrite leaves unused inside a body stay, as in the
seed's decompose-loop output).  Follow it with `dce` to remove them.  The three patterns
rooted on `extract_slice` also run under xDSL's `canonicalize`; the four rooted on
`scf.for` / `scf.if` run only here (xDSL's scf ops cannot carry our canonicalization
trait)."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tileir.dialects.nv_tileas.canonicalize import tileas_canonicalization_patterns
from tileir.utils.rewriting import LocatedWalker, TypeDispatch


@dataclass(frozen=True)
class TileASCanonicalizePass(ModulePass):
    """The seven seed-000 patterns (simplify extract slice, decompose loop iter args,
    decompose if by insert / extract slice, swap view and extract slice, coalesce perfectly
    nested loops, simplify extract from insert) to a fixed point over the whole module."""

    name = "tileas-canonicalize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        applier = TypeDispatch(tileas_canonicalization_patterns())
        LocatedWalker(applier).rewrite_module(op)
