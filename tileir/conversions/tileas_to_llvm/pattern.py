"""The base of the patterns of `convert-tileas-to-llvm`, and the placeholder that
stands for a lowered op's token.

Every pattern that works on tiles derives from `TilePattern`: it holds the pass's
`LoweringContext` (registers of each lowered value, per-kernel state) and builds
llvm/nvvm ops before the op it rewrites.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.conversions.tileas_to_llvm.context import (
    LoweringContext,
)
from tileir.dialects.nv_tileaa import ops as aa


class TilePattern(RewritePattern):
    def __init__(self, ctx: LoweringContext):
        self.ctx = ctx

    def builder(self, rewriter: PatternRewriter, op: Operation) -> LLBuilder:
        return LLBuilder(rewriter, InsertPoint.before(op))


def token_placeholder(rewriter: PatternRewriter, op: Operation) -> SSAValue:
    """Tokens have no runtime value: ordering was resolved into barriers."""
    token = aa.CreateMemTokenOp()
    rewriter.insert(token, InsertPoint.before(op))
    return token.result
