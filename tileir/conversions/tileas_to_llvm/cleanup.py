"""What the patterns of `convert-tileas-to-llvm` leave without users: views, index
arithmetic and the unrealized casts between tiles and their registers.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    ModuleOp,
    UnrealizedConversionCastOp,
)
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tileir.dialects.nv_tileas import ops as tas
from tileir.utils.rewriting import LocatedWalker


class EraseDead(RewritePattern):
    """Views, index constants and casts left without users."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: tas.ViewOp | arith.ConstantOp | arith.IndexCastOp | arith.MuliOp,
        rewriter: PatternRewriter,
    ) -> None:
        if not any(r.uses for r in op.results):
            rewriter.erase(op)


def cleanup(module: ModuleOp) -> None:
    """Remove what the patterns left without users: casts and views."""
    LocatedWalker(
        GreedyRewritePatternApplier([EraseDead()]),
        walk_reverse=True,
    ).rewrite_module(module)
    changed = True
    while changed:
        changed = False
        for o in list(module.walk(reverse=True)):
            if isinstance(o, UnrealizedConversionCastOp) and not o.results[0].uses:
                o.detach()
                o.erase()
                changed = True
