"""tileir's pointer extension of nv_tileas: `nv_tileas.addptr` (a pointer tile plus an
offset tile, register by register, scaled by the element size) and `nv_tileas.assume`
(the predicate is a fact for the earlier stages; here the value passes through).
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.conversions.tileas_to_llvm.pattern import TilePattern
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas import ops as tas


class LowerAssume(TilePattern):
    """`nv_tileas.assume`: the facts were used by the analyses; the value passes through."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AssumeOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, [], [op.value])


class LowerAddPtr(TilePattern):
    """`nv_tileas.addptr`: one `getelementptr` of the pointee type per register."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tas.AddPtrOp, rewriter: PatternRewriter) -> None:
        ptrs = self.ctx.registers_of(op, op.ptr)
        offsets = self.ctx.registers_of(op, op.offset)
        el = element_type(op.ptr.type)
        assert isinstance(el, PointerType)
        b = self.builder(rewriter, op)
        n = max(len(ptrs), len(offsets))
        values = [
            b.gep(
                ptrs[i if len(ptrs) > 1 else 0], offsets[i if len(offsets) > 1 else 0], el.pointee
            )
            for i in range(n)
        ]
        rewriter.replace(op, [], [self.ctx.result_value(rewriter, values, op.results[0].type)])
