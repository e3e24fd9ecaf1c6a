"""Part of `convert-tileaa-to-tileas`: nv_tileaa shape ops become their nv_tileas forms.

    %e = nv_tileaa.expand_dims %x {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>

becomes the seed's layout-family op (seed 003), with the same operand, axis and type:

    %e = nv_tileas.expand_dims %x {axis = 1 : i32} : tensor<16xi32> -> tensor<16x1xi32>

The conversion runs before `tileas-assign-layouts`, on tensors without layouts; the
layout pass then puts the source in the slice of the result's layout along `axis`
(`required_operand_layouts`), as it did for the nv_tileaa op.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas


class ConvertExpandDims(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ExpandDimsOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.ExpandDimsOp(op.src, op.axis_value, op.result.type))


def shape_patterns() -> list[RewritePattern]:
    """The patterns `convert-tileaa-to-tileas` runs for shape ops."""
    return [ConvertExpandDims()]
