"""Shape folds (seed 004 rows "Shape wrappers", "Assumptions over splats", "Select over
splats", "Extract motion").

The rule they share: remove wrappers that do not change the logical element stream,
but keep the final result type exactly as the original op requested.
"""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType, i1
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.attributes import BoundedAttr, DivByAttr
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.nv_tileaa import ops as aa


def splat_source(value: SSAValue) -> SSAValue | None:
    """The scalar a value is a splat of, if it is one."""
    if isinstance(value.owner, aa.SplatOp):
        return value.owner.src
    return None


def _tensor(t: Attribute) -> TensorType[Attribute]:
    assert isinstance(t, TensorType)
    return t


class FoldExpandDimsOfSplat(RewritePattern):
    """`fold_expand_dims_of_splat`: `expand_dims(splat(x))` -> `splat(x)` of the expanded
    type.  Safety: the new splat has exactly the expand_dims result type."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ExpandDimsOp, rewriter: PatternRewriter) -> None:
        if (x := splat_source(op.src)) is not None:
            rewriter.replace(op, aa.SplatOp(x, _tensor(op.result.type)))


class FoldViewChain(RewritePattern):
    """`fold_view_chain`: `view(view(x))` -> `view(x)`; `view(splat(x))` -> `splat(x)`, or
    `x` itself for a view to rank 0; a view to its own type disappears.  Safety: element
    count and the final result type stay those of the original view."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ViewOp, rewriter: PatternRewriter) -> None:
        if op.src.type == op.result.type:
            rewriter.replace(op, [], [op.src])
            return
        inner = op.src.owner
        if isinstance(inner, aa.ViewOp):
            rewriter.replace(op, aa.ViewOp(inner.src, op.result.type))
            return
        if (x := splat_source(op.src)) is not None:
            if isinstance(op.result.type, TensorType):
                rewriter.replace(op, aa.SplatOp(x, op.result.type))
            else:
                rewriter.replace(op, [], [x])


class FoldBroadcastOfSplat(RewritePattern):
    """`fold_broadcast_of_splat`: `broadcast(splat(x))` -> `splat(x)`.  Safety: the new
    splat has exactly the broadcast's result type (element count and shape)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.BroadcastOp, rewriter: PatternRewriter) -> None:
        if (x := splat_source(op.src)) is not None and isinstance(op.result.type, TensorType):
            rewriter.replace(op, aa.SplatOp(x, _tensor(op.result.type)))


def is_elementwise_predicate(pred: Attribute) -> bool:
    """Whether an assume predicate states something about each element on its own:
    `div_by<N>` and `bounded<lb, ub>` do; `div_by<N, every E along A>` and
    `same_elements<...>` relate lanes to their positions."""
    if isinstance(pred, DivByAttr):
        return pred.every_value is None and pred.along_value is None
    return isinstance(pred, BoundedAttr)


class PushAssumeThroughSplat(RewritePattern):
    """`push_assume_through_splat`: `assume(splat(x), pred)` -> `splat(assume(x, pred))`,
    so the fact sits on the scalar every later user of `x` sees.  Safety: the predicate
    is elementwise and does not depend on lane identity (`div_by<N>`, `bounded`; not
    `div_by<N, every E along A>` or `same_elements`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.AssumeOp, rewriter: PatternRewriter) -> None:
        x = splat_source(op.value)
        if x is None or not is_elementwise_predicate(op.predicate):
            return
        scalar = aa.AssumeOp(x, op.predicate)
        rewriter.insert(scalar)
        rewriter.replace(op, aa.SplatOp(scalar.result, _tensor(op.result.type)))


def _scalar_select(value: SSAValue) -> tuple[Operation, SSAValue, SSAValue, SSAValue] | None:
    """(op, cond, true, false) of an nv_tileaa or cuda_tile select on scalars."""
    owner = value.owner
    if isinstance(owner, aa.SelectOp):
        return owner, owner.cond, owner.true_value, owner.false_value
    if isinstance(owner, ct.SelectOp):
        cond, t, f = owner.args
        return owner, cond, t, f
    return None


class PushSelectThroughSplat(RewritePattern):
    """`push_select_through_splat`: `splat(select(c, t, f))` ->
    `select(splat(c), splat(t), splat(f))` (for nv_tileaa's and cuda_tile's select), so
    the choice happens on tiles where later folds see the splats.  Safety: all three
    new splats have the result shape of the original splat (the condition an i1 tile
    of it), which holds when the select chose between scalars."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.SplatOp, rewriter: PatternRewriter) -> None:
        found = _scalar_select(op.src)
        if found is None:
            return
        select, cond, t, f = found
        result_type = _tensor(op.result.type)
        shape = result_type.get_shape()
        if cond.type != i1 or shape_of(t.type) or shape_of(f.type):
            return
        splats = [
            aa.SplatOp(cond, TensorType(i1, shape)),
            aa.SplatOp(t, result_type),
            aa.SplatOp(f, result_type),
        ]
        rewriter.insert(splats)
        c, tv, fv = (s.result for s in splats)
        if isinstance(select, aa.SelectOp):
            rewriter.replace(op, aa.SelectOp(c, tv, fv))
        else:
            rewriter.replace(op, ct.SelectOp.build_op([c, tv, fv], result_type))


def _elementwise_operands(op: Operation) -> list[SSAValue] | None:
    """The operands of a pure elementwise op whose every lane maps one-to-one to the
    same lane of each operand (every operand has the result's shape), else None."""
    if len(op.results) != 1 or op.regions:
        return None
    if not isinstance(op, ct.ElementwiseOp | aa.SelectOp) or isinstance(op, ct.ShapeOp):
        return None
    shape = shape_of(op.results[0].type)
    if not shape or any(shape_of(v.type) != shape for v in op.operands):
        return None
    return list(op.operands)


class HoistExtractThroughElementwise(RewritePattern):
    """`hoist_extract_through_elementwise`: `extract(f(a, b), i)` -> `f(extract(a, i),
    extract(b, i))` for an elementwise `f`, and `extract(expand_dims(x, d), i)` ->
    `expand_dims(extract(x, i without d), d)`, so the work happens on the sub-tile only.
    Safety: the extracted lane maps one-to-one to the source lane (every operand of `f`
    has its result's shape, so cuda_tile's broadcast and reshape never qualify; the
    expanded unit dimension is extracted whole), `f` has no other user (hoisting would
    compute it twice) and sits in the extract's block (the work never moves into a
    loop or branch body)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: aa.ExtractOp, rewriter: PatternRewriter) -> None:
        source = op.source.owner
        result_shape = list(shape_of(op.result.type))
        indices = list(op.indices)
        if isinstance(source, aa.ExpandDimsOp):
            axis = source.axis_value
            inner_shape = result_shape[:axis] + result_shape[axis + 1 :]
            if result_shape[axis] != 1 or not inner_shape:
                return
            inner_type = TensorType(element_type(op.result.type), inner_shape)
            inner = aa.ExtractOp(source.src, indices[:axis] + indices[axis + 1 :], inner_type)
            rewriter.insert(inner)
            rewriter.replace(op, aa.ExpandDimsOp(inner.result, axis))
            return
        if not isinstance(source, Operation):
            return
        operands = _elementwise_operands(source)
        if operands is None or not source.results[0].has_one_use():
            return
        if source.parent_block() is not op.parent_block():
            return  # hoisting into a loop or branch body would move the work there
        pieces: list[SSAValue] = []
        for v in operands:
            t = TensorType(element_type(v.type), result_shape)
            piece = aa.ExtractOp(v, indices, t)
            rewriter.insert(piece)
            pieces.append(piece.result)
        hoisted = type(source).create(
            operands=pieces,
            result_types=[op.result.type],
            properties=dict(source.properties),
            attributes=dict(source.attributes),
        )
        rewriter.replace(op, hoisted)


SHAPE_PATTERNS: tuple[type[RewritePattern], ...] = (
    PushAssumeThroughSplat,
    PushSelectThroughSplat,
    FoldExpandDimsOfSplat,
    FoldViewChain,
    FoldBroadcastOfSplat,
    HoistExtractThroughElementwise,
)
