"""Part of `convert-tileaa-to-tileas`: pointer arithmetic and assumptions become
tileir's nv_tileas pointer ops (`tileir/dialects/nv_tileas/ops/pointer.py`; seed 003
has neither).

    %q = nv_tileaa.addptr %p, %off : tensor<64x!cuda_tile.ptr<f32>>, tensor<64xi64>
    %r = cuda_tile.offset %b, %i : ptr<f32>, i64 -> ptr<f32>

(the lifted form of cuda_tile's `offset`, and `offset` itself, which lifting keeps on
builtin carriers) both become

    %q = nv_tileas.addptr %p, %off : tensor<64x!cuda_tile.ptr<f32>>, tensor<64xi64>
    %r = nv_tileas.addptr %b, %i : !cuda_tile.ptr<f32>, i64

with the same operands and type: each pointer advanced by its offset in elements of
the pointee.

    %a = nv_tileaa.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>

becomes

    %a = nv_tileas.assume %p, #cuda_tile.div_by<16> : !cuda_tile.ptr<f32>

keeping the cuda_tile predicate (`div_by`, `bounded`, `same_elements`) as it is: the
axis analysis (`tileir/analysis/axis_info.py`) reads it to choose the vector width of
each global access, here and in `tileas-assign-layouts`.

Seed 004's folds of both (`FuseAddPtrChain`, `PushAssumeThroughSplat`) ran on the
nv_tileaa ops in `tileaa-canonicalize`, before this boundary.

nv_tileaa's `select` (in the same family of seed 004) chooses per element, so it becomes
cuda_tile's `select` on the same builtin carriers, one of the per-element ops the
boundary rule lets through:

    %r = nv_tileaa.select %c, %t, %f : tensor<64xi1>, tensor<64xf32>
    %r = cuda_tile.select %c, %t, %f : tensor<64xi1>, tensor<64xf32>
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileas import ops as tas


class ConvertAddPtr(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AddPtrOp | ct.OffsetOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.AddPtrOp(op.ptr, op.offset))


class ConvertAssume(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AssumeOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, tas.AssumeOp(op.value, op.predicate))


class ConvertSelect(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.SelectOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(
            op, ct.SelectOp.build_op([op.cond, op.true_value, op.false_value], op.result.type)
        )


def pointer_patterns() -> list[RewritePattern]:
    """The patterns `convert-tileaa-to-tileas` runs for pointer arithmetic and facts, and
    nv_tileaa's per-element `select`."""
    return [ConvertAddPtr(), ConvertAssume(), ConvertSelect()]
