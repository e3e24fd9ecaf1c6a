"""Scalar integer `arith` ops on builtin integers: `constant`, `addi`, `subi`, `muli`.

The nv_tileas index-expression builders (`tileir/dialects/nv_tileas/builders.py`) write
the induction variable of a later iteration with them (`tileas-materialize-schedule`,
`tileas-pipeline-dot-operands`: `%k + 2 * step`).  They become the LLVM ops of the same
name, wrapping like `arith`'s without overflow flags.  `index`-typed constants are the
coordinates of tiled accesses, which their patterns read as constants; the cleanup
erases them.
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern

from tileir.conversions.tileas_to_llvm.pattern import TilePattern


class LowerArithConstant(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter) -> None:
        value = op.value
        if not isinstance(value, IntegerAttr) or not isinstance(value.type, IntegerType):
            return
        rewriter.replace(op, [], [self.builder(rewriter, op).const(value.value.data, value.type)])


class LowerArithInteger(TilePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: arith.AddiOp | arith.SubiOp | arith.MuliOp, rewriter: PatternRewriter
    ) -> None:
        if not isinstance(op.result.type, IntegerType):
            return
        cls = {arith.AddiOp: llvm.AddOp, arith.SubiOp: llvm.SubOp, arith.MuliOp: llvm.MulOp}
        rewriter.replace(op, cls[type(op)](op.lhs, op.rhs))
