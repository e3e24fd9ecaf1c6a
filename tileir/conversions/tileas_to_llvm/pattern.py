"""The base of the patterns of `convert-tileas-to-llvm`.

Every pattern that works on tiles derives from `TilePattern`: it holds the pass's
`LoweringContext` (registers of each lowered value, per-kernel state) and builds
llvm/nvvm ops before the op it rewrites.
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
)


class TilePattern(RewritePattern):
    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx

    def builder(self, rewriter: PatternRewriter, op: Operation) -> LLBuilder:
        return LLBuilder(rewriter, InsertPoint.before(op))
