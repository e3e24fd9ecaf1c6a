"""Part of `convert-tileaa-to-tileas`: `cuda_tile.reduce` / `scan` become `nv_tileas.reduce` / `scan`.

cuda_tile's reductions survive lifting to nv_tileaa on builtin carriers (nv_tileaa has no
op of its own for them, see `CARRIER_OPS` in `cuda_tile_to_tileaa.py`); here they become
the seed's compute ops (seed 003 "compute" family), so that `tileas-assign-layouts` and
`convert-tileas-to-llvm` see only nv_tileas reductions:

    %r = cuda_tile.reduce %x dim=1 identities=[0.0 : f32] : tensor<8x128xf32> -> tensor<8xf32>
    (%cur: f32, %acc: f32) { %s = cuda_tile.addf %cur, %acc : f32  cuda_tile.yield %s : f32 }

becomes

    %r = nv_tileas.reduce %x {axis = 1 : i32, identities = [0.0 : f32]}
        : tensor<8x128xf32> -> tensor<8xf32> {
    ^bb0(%acc: f32, %cur: f32):
      %s = cuda_tile.addf %cur, %acc : f32
      nv_tileas.yield %s : f32
    }

What carries over: the operands and results (several of each for an argmax), the dimension
as `axis`, `reverse` for a scan, and the `identities`, which the seed's ops do not list and
tileir adds (a reduce along one element combines it with the identity; a scan starts from
it), each typed as its operand's element (cuda_tile accepts an f16 identity for a bf16
operand and the reverse; the value is the same).

The body moves as it is (its per-element cuda_tile ops on scalars are the boundary's stated
exception, docs/pipeline.md); values it captures from outside stay captured.  Only the
order of its arguments changes: cuda_tile interleaves them per operand, element first
(`%x0, %acc0, %x1, %acc1`), nv_tileas takes the running values first, then the next
elements (`%acc0, %acc1, %x0, %x1`).  Its `cuda_tile.yield` becomes `nv_tileas.yield`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import AnyFloat, BoolAttr, FloatAttr
from xdsl.ir import Attribute, Block, Region
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tileir.diagnostics import error_at
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileas import ops as tas


def _identities(op: ct.ReduceOp | ct.ScanOp, elements: Sequence[Attribute]) -> list[Attribute]:
    """Each identity typed as its operand's element."""
    out: list[Attribute] = []
    for attr, el in zip(op.identities.data, elements, strict=True):
        if isinstance(attr, FloatAttr) and isinstance(el, AnyFloat) and attr.type != el:
            attr = FloatAttr(float(attr.value.data), el)
        out.append(attr)
    return out


def _body(
    op: ct.ReduceOp | ct.ScanOp, elements: Sequence[Attribute], rewriter: PatternRewriter
) -> Region:
    """The cuda_tile body, moved into a block of nv_tileas' argument order."""
    n = len(elements)
    block = Block(arg_types=[*elements, *elements])
    running, following = block.args[:n], block.args[n:]
    old = op.body.block
    # cuda_tile's arguments: (element 0, running 0, element 1, running 1, ...).
    order = [v for pair in zip(following, running, strict=True) for v in pair]
    rewriter.inline_block(old, InsertPoint.at_end(block), order)
    terminator = block.last_op
    if not isinstance(terminator, ct.YieldOp):
        raise error_at(op, "the body must end with yield")
    new_yield = tas.YieldOp(list(terminator.operands))
    new_yield.location = terminator.location
    rewriter.replace(terminator, new_yield)
    return Region(block)


class ConvertReduce(RewritePattern):
    """`cuda_tile.reduce` -> `nv_tileas.reduce` with the same dimension, identities and body."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ReduceOp, rewriter: PatternRewriter) -> None:
        elements = [element_type(v.type) for v in op.operands_]
        new = tas.ReduceOp(
            list(op.operands_),
            op.dimension,
            [r.type for r in op.results_],
            identities=_identities(op, elements),
            region=_body(op, elements, rewriter),
        )
        rewriter.replace(op, new)


class ConvertScan(RewritePattern):
    """`cuda_tile.scan` -> `nv_tileas.scan` with the same dimension, direction, identities
    and body."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ct.ScanOp, rewriter: PatternRewriter) -> None:
        elements = [element_type(v.type) for v in op.operands_]
        new = tas.ScanOp(
            list(op.operands_),
            op.dimension,
            [r.type for r in op.results_],
            identities=_identities(op, elements),
            region=_body(op, elements, rewriter),
        )
        new.properties["reverse"] = BoolAttr.from_bool(op.is_reverse)
        rewriter.replace(op, new)


def reduction_patterns() -> list[RewritePattern]:
    """The patterns `convert-tileaa-to-tileas` runs for reductions and scans."""
    return [ConvertReduce(), ConvertScan()]
