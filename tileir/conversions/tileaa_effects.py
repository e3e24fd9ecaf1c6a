"""Part of `convert-tileaa-to-tileas`: the ops with an effect beyond the kernel's own
memory accesses (printing, assertions, grid-dependency control) and module-level
variables become tileir's nv_tileas forms (`tileir/dialects/nv_tileas/ops/debug.py`,
`synchronization.py`, `globals.py`; seed 003 has none of them).

    %t1 = cuda_tile.print_tko "x=%d\\0A", %x : tensor<64xi32> -> !nv_tileaa.mem_token
    %t2 = cuda_tile.gdc_wait_tko token = %t1 -> !nv_tileaa.mem_token
    cuda_tile.assert %ok, "in range" : tensor<64xi1>

become

    nv_tileas.print "x=%d\\0A", %x : tensor<64xi32>
    nv_tileas.gdc_wait
    nv_tileas.assert %ok, "in range" : tensor<64xi1>

A print's or a grid-dependency op's token only orders: the op reads and writes none
of the kernel's memory, so what its result token followed is what its input token
followed.  The result's users take the input token (a fresh one that follows nothing
when there was none), `tileas-insert-barriers` reads the same access history from
them, and program order keeps the op where it was (its effects keep every rewrite
from moving it).

    cuda_tile.global @lock <i32: 1> : tile<1xi32>
    %p = cuda_tile.get_global @lock : ptr<i32>

become

    nv_tileas.global @lock dense<1> : tensor<1xi32>
    %p = nv_tileas.get_global @lock : !cuda_tile.ptr<i32>

keeping the initializer, alignment, `constant` and a non-public visibility.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.conversions.tileaa_tokens import fresh_token
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import SymbolVisibility
from tileir.dialects.cuda_tile.ops.newer import GdcLaunchDependentsTkoOp, GdcWaitTkoOp
from tileir.dialects.cuda_tile.types import PointerType
from tileir.dialects.nv_tileas import ops as tas


def _passed_on(token: SSAValue | None, rewriter: PatternRewriter) -> SSAValue:
    """What an ordering-only op's result token stands for: its input token, or a fresh
    token when it had none."""
    return token if token is not None else fresh_token(rewriter)


class ConvertPrint(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.PrintTkoOp, rewriter: PatternRewriter) -> None:
        rewriter.insert(tas.PrintOp(op.format, list(op.args)))
        rewriter.replace(op, [], [_passed_on(op.token, rewriter)])


class ConvertGridDependency(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: GdcWaitTkoOp | GdcLaunchDependentsTkoOp, rewriter: PatternRewriter
    ) -> None:
        new = tas.GdcWaitOp() if isinstance(op, GdcWaitTkoOp) else tas.GdcLaunchDependentsOp()
        rewriter.insert(new)
        rewriter.replace(op, [], [_passed_on(op.token, rewriter)])


class ConvertAssert(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.AssertOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.AssertOp(op.condition, op.message.data))


class ConvertGlobal(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.GlobalOp, rewriter: PatternRewriter) -> None:
        visibility = op.visibility
        rewriter.replace(
            op,
            tas.GlobalOp(
                op.sym_name.data,
                op.value,
                alignment=op.alignment_bytes,
                constant=op.constant is not None,
                visibility=None if visibility is SymbolVisibility.PUBLIC else visibility.value,
            ),
        )


class ConvertGetGlobal(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.GetGlobalOp, rewriter: PatternRewriter) -> None:
        assert isinstance(op.result.type, PointerType)
        rewriter.replace(op, tas.GetGlobalOp(op.name_.root_reference.data, op.result.type))


def effect_patterns() -> list[RewritePattern]:
    """The patterns `convert-tileaa-to-tileas` runs for prints, assertions, grid
    dependency and globals."""
    return [
        ConvertPrint(),
        ConvertGridDependency(),
        ConvertAssert(),
        ConvertGlobal(),
        ConvertGetGlobal(),
    ]
