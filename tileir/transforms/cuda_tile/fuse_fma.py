"""`fuse-fma`: `(a * b) + c` and `(a * b) - c` become one `fma` (NVIDIA's FuseFMA).

Not numerics-preserving: the product is no longer rounded before the addition.  It
applies where the product has no other use (it then goes) and where the multiply and
the addition agree on rounding mode and flush_to_zero, which the `fma` keeps.  The
addition's operands are first put in canonical order (`MulfOnLhs`, the `addf`
canonicalization), so `c + a * b` fuses too; a subtraction fuses only with the product
on its left (`a * b - c` is `fma(a, b, -c)`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from tileir.dialects.cuda_tile.canonicalize import MulfOnLhs
from tileir.dialects.cuda_tile.ops.floating_point import (
    AddFOp,
    FmaOp,
    MulFOp,
    NegFOp,
    RoundedFloatOp,
    SubFOp,
)


def fusible_product(op: RoundedFloatOp) -> MulFOp | None:
    """The `mulf` on `op`'s left when `op` is its only user and both round alike."""
    product = op.args[0].owner
    if not isinstance(product, MulFOp) or not product.result.has_one_use():
        return None
    if product.rounding_mode != op.rounding_mode:
        return None
    if (product.flush_to_zero_flag is None) != (op.flush_to_zero_flag is None):
        return None
    return product


def fma_like(op: RoundedFloatOp, product: MulFOp, addend: SSAValue) -> FmaOp:
    properties: dict[str, Attribute] = {"rounding_mode": op.rounding_mode}
    if op.flush_to_zero_flag is not None:
        properties["flush_to_zero"] = op.flush_to_zero_flag
    a, b = product.args
    return FmaOp.create(
        operands=[a, b, addend],
        result_types=[op.result.type],
        properties=properties,
        attributes=dict(op.attributes),
    )


class MulAddToFma(RewritePattern):
    """`addf (mulf a, b), c` is `fma a, b, c`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddFOp, rewriter: PatternRewriter) -> None:
        product = fusible_product(op)
        if product is None:
            return
        rewriter.replace(op, fma_like(op, product, op.args[1]))
        rewriter.erase(product)


class MulSubToFma(RewritePattern):
    """`subf (mulf a, b), c` is `fma a, b, (negf c)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SubFOp, rewriter: PatternRewriter) -> None:
        product = fusible_product(op)
        if product is None:
            return
        negated = NegFOp.build_op([op.args[1]])
        rewriter.insert(negated, InsertPoint.before(op))
        rewriter.replace(op, fma_like(op, product, negated.result))
        rewriter.erase(product)


@dataclass(frozen=True)
class FuseFmaPass(ModulePass):
    """Fuse multiply-add and multiply-subtract into `fma` in every function."""

    name = "fuse-fma"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns: list[RewritePattern] = [MulfOnLhs(), MulAddToFma(), MulSubToFma()]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)
