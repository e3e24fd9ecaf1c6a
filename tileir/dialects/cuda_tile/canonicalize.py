"""cuda_tile's canonicalization patterns, run by xDSL's `canonicalize`.

The behaviour is that of NVIDIA's cuda-tile (`test/Dialect/CudaTile/canonicalize.mlir`
is the specification); the patterns are attached to their ops through
`CudaTileCanonicalization` (a `HasCanonicalizationPatternsTrait`), so
`tileir-opt -p canonicalize` runs them.  cuda_tile has no folders in tileir: NVIDIA's
folds (`select`, `assume`, `if`) are patterns here, listed before the rewrites of the
same op so that they win, as MLIR folds before it rewrites.

| op | pattern | what it does |
|---|---|---|
| constant | `UniqueConstant` | MLIR's folder: constants move to the front of their function's entry block and duplicates merge |
| addf | `MulfOnLhs` | `addf %x, (mulf ...)` becomes `addf (mulf ...), %x`, the form `fuse-fma` looks for |
| assume | `FoldRepeatedAssume` | `assume P, (assume P, %x)` is the inner assume |
| select | `FoldSelect` | same arms; constant condition; `select %c, true, false`; `select (cmpi eq/ne %a, %b), %a, %b`; `select (not %c), a, b`; a select of a select on the same condition |
| select | `SelectI1ToNot` | `select %c, false, true` is `xori %c, true` |
| select | `SelectConsts` | all-constant operands: a constant |
| select | `SelectToExtI` | `select %c, 1, 0` is `exti %c unsigned`; `select %c, 0, 1` is `exti (not %c)` |
| if | `SwapNegatedIf` | `if (xori %c, true) A else B` is `if %c B else A` |
| if | `RemoveUnusedResults`, `ReplaceYieldWithValue`, `RemoveStaticCondition`, `ConvertToSelect`, `RemoveEmptyElseBranch`, `CombineIfs`, `CombineNestedIfs`, `MoveTerminatorToParent` | MLIR's `scf.if` canonicalizations, extended to branches that end in `return`, `continue` or `break` |
| if | `EraseDeadIf` | an `if` without results whose branches do nothing (MLIR erases trivially dead ops) |

Every rewrite keeps memory order: no op with memory effects is moved across another,
duplicated or erased (branches are only ever merged in program order or inlined).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, i1
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free

from tileir.dialects.cuda_tile.attributes import (
    ComparisonPredicate,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.cuda_tile.carriers import element_type, shape_of
from tileir.dialects.cuda_tile.ops.control_flow import BreakOp, ContinueOp, IfOp, YieldOp
from tileir.dialects.cuda_tile.ops.conversion import ExtIOp
from tileir.dialects.cuda_tile.ops.core import (
    AssumeOp,
    BroadcastOp,
    ConstantOp,
    FunctionOp,
    ReshapeOp,
    ReturnOp,
    SelectOp,
)
from tileir.dialects.cuda_tile.ops.floating_point import AddFOp, MulFOp
from tileir.dialects.cuda_tile.ops.integer import AndIOp, CmpIOp, XOrIOp
from tileir.dialects.cuda_tile.types import TileType
from tileir.utils.numeric import numpy_to_dense

# --------------------------------------------------------------------- helpers


def constant_values(value: SSAValue) -> list[int | float] | None:
    """The elements of `value` when a `constant` defines it."""
    owner = value.owner
    if not isinstance(owner, ConstantOp):
        return None
    values = owner.value.get_values()
    return [v for v in values if isinstance(v, int | float)] or None


def constant_scalar(value: SSAValue) -> int | float | None:
    """The value of a splat (or one-element) integer or float constant."""
    values = constant_values(value)
    if values is None or len(set(values)) != 1:
        return None
    return values[0]


def constant_bool(value: SSAValue) -> bool | None:
    """The value of a splat `i1` constant (NVIDIA's `getConstantBoolValue`)."""
    if element_type(value.type) != i1:
        return None
    scalar = constant_scalar(value)
    return None if scalar is None else bool(scalar)


def is_true(value: SSAValue) -> bool:
    return constant_bool(value) is True


def is_false(value: SSAValue) -> bool:
    return constant_bool(value) is False


def constant_integer(value: SSAValue, expected: int) -> bool:
    """`value` is a splat integer constant equal to `expected`."""
    if not isinstance(element_type(value.type), IntegerType):
        return False
    scalar = constant_scalar(value)
    return scalar is not None and int(scalar) == expected


def exits_parent(op: Operation | None) -> bool:
    """A terminator after which nothing more of the enclosing block runs."""
    return isinstance(op, ReturnOp | ContinueOp | BreakOp)


def then_block(op: IfOp) -> Block:
    return op.then_region.blocks[0]


def else_block(op: IfOp) -> Block | None:
    return op.else_region.blocks[0] if op.else_region.blocks else None


def terminator(block: Block | None) -> Operation | None:
    return None if block is None else block.last_op


def defining_region(value: SSAValue) -> Region | None:
    if isinstance(value, OpResult):
        return value.op.parent_region()
    if isinstance(value, BlockArgument):
        return value.block.parent
    return None


def not_of(rewriter: PatternRewriter, cond: SSAValue, before: Operation) -> SSAValue:
    """`xori %cond, true` inserted before `before` (NVIDIA's `createXOrForValue`)."""
    true = ConstantOp.splat(1, cond.type)  # cond is i1: a tile, or a carrier tensor
    negated = XOrIOp.build_op([cond, true.result])
    rewriter.insert([true, negated], InsertPoint.before(before))
    return negated.result


def select_of(
    rewriter: PatternRewriter,
    cond: SSAValue,
    if_true: SSAValue,
    if_false: SSAValue,
    before: Operation,
) -> SSAValue:
    """`select %cond, a, b` for a scalar condition and tiles of any shape: the condition
    is reshaped to the tiles' rank and broadcast to their shape first."""
    shape = shape_of(if_true.type)
    ops: list[Operation] = []
    if shape:
        reshape = ReshapeOp.build_op([cond], TileType([1] * len(shape), i1))
        broadcast = BroadcastOp.build_op([reshape.result], TileType(shape, i1))
        ops += [reshape, broadcast]
        cond = broadcast.result
    select = SelectOp.build_op([cond, if_true, if_false])
    rewriter.insert([*ops, select], InsertPoint.before(before))
    return select.result


def new_if(
    cond: SSAValue,
    result_types: Sequence[Attribute],
    then_region: Region,
    else_region: Region | None = None,
    attributes: dict[str, Attribute] | None = None,
) -> IfOp:
    return IfOp.create(
        operands=[cond],
        result_types=list(result_types),
        regions=[then_region, else_region if else_region is not None else Region()],
        attributes=dict(attributes or {}),
    )


def take(region: Region) -> Region:
    """The blocks of `region`, moved to a new region."""
    moved = Region()
    for block in list(region.blocks):
        region.detach_block(block)
        moved.add_block(block)
    return moved


def erase_from(op: Operation, rewriter: PatternRewriter) -> None:
    """Erase `op` and every op after it in its block (unreachable code)."""
    block = op.parent_block()
    assert block is not None
    doomed: list[Operation] = []
    current: Operation | None = op
    while current is not None:
        doomed.append(current)
        current = current.next_op
    for dead in reversed(doomed):
        rewriter.erase(dead, safe_erase=False)


def replace_with_region(rewriter: PatternRewriter, op: IfOp, region: Region) -> bool:
    """Inline the single block of `region` in place of `op` (NVIDIA's
    `replaceOpWithRegion`).  Ending in `yield`, its operands replace the results; ending
    in `return`/`continue`/`break`, the rest of the enclosing block is unreachable and
    goes."""
    block = region.blocks[0]
    last = block.last_op
    if isinstance(last, YieldOp):
        values = list(last.operands)
        rewriter.erase(last)
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.replace(op, [], values)
        return True
    if exits_parent(last):
        rewriter.inline_block(block, InsertPoint.before(op))
        erase_from(op, rewriter)
        return True
    return False


def is_nested_in(op: Operation, region: Region) -> bool:
    current: Operation | None = op
    while current is not None:
        if current.parent_region() is region:
            return True
        current = current.parent_op()
    return False


# ------------------------------------------------------------------- constant


class UniqueConstant(RewritePattern):
    """Constants live at the front of their function's entry block, one per value and
    type: MLIR's `OperationFolder` does this as part of every greedy rewrite, and NVIDIA's
    canonicalization tests rely on it (a constant inside a loop is the same SSA value as
    an equal one outside).  Constants are pure, so moving them is always legal."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ConstantOp, rewriter: PatternRewriter) -> None:
        region = op.parent_region()
        while region is not None:
            parent = region.parent_op()
            if parent is None or isinstance(parent, FunctionOp):
                break
            region = parent.parent_region()
        if region is None or not region.blocks or region.parent_op() is None:
            return
        entry = region.blocks[0]
        key = (op.value, op.result.type)
        prefix: list[ConstantOp] = []
        for candidate in entry.ops:
            if not isinstance(candidate, ConstantOp):
                break
            prefix.append(candidate)
        for earlier in prefix:
            if earlier is op:
                return
            if (earlier.value, earlier.result.type) == key and earlier.attributes == op.attributes:
                rewriter.replace(op, [], [earlier.result])
                return
        op.detach()
        rewriter.insert(op, InsertPoint.at_start(entry))


# ----------------------------------------------------------------- addf/assume


class MulfOnLhs(RewritePattern):
    """`addf %x, (mulf ...)` with `%x` not a product: swap the operands, so that the
    product comes first (NVIDIA's `canonicalizeAddOperands`; addition commutes, the
    rounding mode and flush_to_zero stay)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AddFOp, rewriter: PatternRewriter) -> None:
        lhs, rhs = op.args
        if isinstance(rhs.owner, MulFOp) and not isinstance(lhs.owner, MulFOp):
            swapped = AddFOp.create(
                operands=[rhs, lhs],
                result_types=[op.result.type],
                properties=dict(op.properties),
                attributes=dict(op.attributes),
            )
            rewriter.replace(op, swapped)


class FoldRepeatedAssume(RewritePattern):
    """`assume P, (assume P, %x)` says nothing new: it is the inner assume."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AssumeOp, rewriter: PatternRewriter) -> None:
        inner = op.value.owner
        if isinstance(inner, AssumeOp) and inner.predicate == op.predicate:
            rewriter.replace(op, [], [inner.result])


# ---------------------------------------------------------------------- select


class FoldSelect(RewritePattern):
    """NVIDIA's `SelectOp::fold` rules, in its order:
    `select %c, %x, %x` is `%x`; `select true, %a, %b` is `%a` (false: `%b`);
    `select %c, true, false` (i1) is `%c`; `select (cmpi equal %a, %b), %a, %b` is `%b`
    (`not_equal`: `%a`); `select (xori %c, true), %a, %b` is `select %c, %b, %a`;
    `select %c, (select %c, %a, %b), %d` is `select %c, %a, %d` (and the same for the
    false arm)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SelectOp, rewriter: PatternRewriter) -> None:
        cond, if_true, if_false = op.args
        if if_true == if_false:
            rewriter.replace(op, [], [if_true])
            return
        known = constant_bool(cond)
        if known is not None:
            rewriter.replace(op, [], [if_true if known else if_false])
            return
        if element_type(op.result.type) == i1 and is_true(if_true) and is_false(if_false):
            rewriter.replace(op, [], [cond])
            return
        compare = cond.owner
        if isinstance(compare, CmpIOp) and compare.predicate in (
            ComparisonPredicate.EQUAL,
            ComparisonPredicate.NOT_EQUAL,
        ):
            a, b = compare.args
            if (a == if_true and b == if_false) or (b == if_true and a == if_false):
                keep = if_true if compare.predicate is ComparisonPredicate.NOT_EQUAL else if_false
                rewriter.replace(op, [], [keep])
                return
        negation = cond.owner
        if isinstance(negation, XOrIOp) and is_true(negation.args[1]):
            self.rebuild(op, negation.args[0], if_false, if_true, rewriter)
            return
        inner = if_true.owner
        if isinstance(inner, SelectOp) and inner.args[0] == cond:
            self.rebuild(op, cond, inner.args[1], if_false, rewriter)
            return
        inner = if_false.owner
        if isinstance(inner, SelectOp) and inner.args[0] == cond:
            self.rebuild(op, cond, if_true, inner.args[2], rewriter)

    @staticmethod
    def rebuild(
        op: SelectOp,
        cond: SSAValue,
        if_true: SSAValue,
        if_false: SSAValue,
        rewriter: PatternRewriter,
    ) -> None:
        select = SelectOp.create(
            operands=[cond, if_true, if_false],
            result_types=[op.result.type],
            attributes=dict(op.attributes),
        )
        rewriter.replace(op, select)


class SelectI1ToNot(RewritePattern):
    """`select %c, false, true` is `xori %c, true` (reusing the `true` operand)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SelectOp, rewriter: PatternRewriter) -> None:
        cond, if_true, if_false = op.args
        if is_false(if_true) and is_true(if_false) and if_false.type == cond.type:
            rewriter.replace(op, XOrIOp.build_op([cond, if_false]))


class SelectConsts(RewritePattern):
    """A select whose condition and arms are all constants is a constant."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SelectOp, rewriter: PatternRewriter) -> None:
        cond, if_true, if_false = op.args
        conds = constant_values(cond)
        trues = constant_values(if_true)
        falses = constant_values(if_false)
        if conds is None or trues is None or falses is None:
            return
        result_type = op.result.type
        shape = shape_of(result_type)
        count = 1
        for extent in shape:
            count *= extent

        def full(values: list[int | float]) -> list[int | float]:
            return values * count if len(values) == 1 else values

        conds, trues, falses = full(conds), full(trues), full(falses)
        if not len(conds) == len(trues) == len(falses) == count:
            return
        chosen = [t if c else f for c, t, f in zip(conds, trues, falses, strict=True)]
        dense: DenseIntOrFPElementsAttr = numpy_to_dense(chosen, shape, element_type(result_type))
        rewriter.replace(op, ConstantOp(dense, result_type))


class SelectToExtI(RewritePattern):
    """On integers wider than i1: `select %c, 1, 0` is `exti %c unsigned`, and
    `select %c, 0, 1` is `exti (xori %c, true) unsigned`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SelectOp, rewriter: PatternRewriter) -> None:
        cond, if_true, if_false = op.args
        el = element_type(op.result.type)
        if not isinstance(el, IntegerType) or el.width.data == 1:
            return
        unsigned = SignednessAttr(Signedness.UNSIGNED)
        if constant_integer(if_true, 1) and constant_integer(if_false, 0):
            rewriter.replace(op, ExtIOp.build_op([cond], op.result.type, signedness=unsigned))
        elif constant_integer(if_true, 0) and constant_integer(if_false, 1):
            negated = not_of(rewriter, cond, op)
            rewriter.replace(op, ExtIOp.build_op([negated], op.result.type, signedness=unsigned))


# -------------------------------------------------------------------------- if


class SwapNegatedIf(RewritePattern):
    """`if (xori %c, true) A else B` is `if %c B else A` (NVIDIA's `IfOp::fold`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        if else_block(op) is None:
            return
        negation = op.condition.owner
        if not isinstance(negation, XOrIOp) or not is_true(negation.args[1]):
            return
        then_region, else_region = take(op.then_region), take(op.else_region)
        swapped = new_if(
            negation.args[0],
            [r.type for r in op.results],
            else_region,
            then_region,
            op.attributes,
        )
        rewriter.replace(op, swapped)


class RemoveUnusedResults(RewritePattern):
    """Results nobody uses are dropped, with their yielded values."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        if not op.results:
            return
        if not (
            isinstance(terminator(then_block(op)), YieldOp)
            or isinstance(terminator(else_block(op)), YieldOp)
        ):
            return
        used = [r for r in op.results if r.uses]
        if len(used) == len(op.results):
            return
        indices = [r.index for r in used]
        for block in (then_block(op), else_block(op)):
            last = terminator(block)
            if isinstance(last, YieldOp):
                kept = [last.operands[i] for i in indices]
                rewriter.replace(last, YieldOp(kept))
        replacement = new_if(
            op.condition,
            [r.type for r in used],
            take(op.then_region),
            take(op.else_region),
            op.attributes,
        )
        results: list[SSAValue | None] = [None] * len(op.results)
        for new_index, old_index in enumerate(indices):
            results[old_index] = replacement.results[new_index]
        rewriter.replace(op, replacement, results)


class ReplaceYieldWithValue(RewritePattern):
    """With both branches yielding: a result yielded as the same value by both is that
    value; one yielded as `true`/`false` is the condition, as `false`/`true` its
    negation."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        if not op.results:
            return
        then_yield, else_yield = terminator(then_block(op)), terminator(else_block(op))
        if not isinstance(then_yield, YieldOp) or not isinstance(else_yield, YieldOp):
            return
        for if_true, if_false, result in zip(
            then_yield.operands, else_yield.operands, op.results, strict=True
        ):
            if not result.uses:
                continue
            if if_true == if_false:
                rewriter.replace_all_uses_with(result, if_true)
                continue
            a, b = constant_bool(if_true), constant_bool(if_false)
            if a is None or b is None:
                continue
            if not a and b:
                rewriter.replace_all_uses_with(result, not_of(rewriter, op.condition, op))
            elif a and not b:
                rewriter.replace_all_uses_with(result, op.condition)


class RemoveStaticCondition(RewritePattern):
    """`if true`/`if false`: the branch taken replaces the op (a branch that returns,
    continues or breaks also removes what follows it)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        known = constant_bool(op.condition)
        if known is None:
            return
        if known:
            replace_with_region(rewriter, op, op.then_region)
        elif op.else_region.blocks:
            replace_with_region(rewriter, op, op.else_region)
        elif not op.results:
            rewriter.erase(op)


class ConvertToSelect(RewritePattern):
    """Results whose yielded values are defined outside the branches become selects
    (or the value itself, when both branches yield it); the `if` keeps the others.  A
    branch that returns yields nothing, so the other branch's value is the result.
    Only tile results: tokens cannot be selected."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        if not op.results:
            return
        then_last, else_last = terminator(then_block(op)), terminator(else_block(op))
        then_yields, else_yields = isinstance(then_last, YieldOp), isinstance(else_last, YieldOp)
        if not then_yields and not else_yields:
            return
        assert then_last is not None and else_last is not None
        true_values = list((then_last if then_yields else else_last).operands)
        false_values = list((else_last if else_yields else then_last).operands)
        true_region = op.then_region if then_yields else op.else_region
        false_region = op.else_region if else_yields else op.then_region
        if not all(isinstance(r.type, TileType) for r in op.results):
            return
        kept = [
            i
            for i, (t, f) in enumerate(zip(true_values, false_values, strict=True))
            if defining_region(t) is true_region or defining_region(f) is false_region
        ]
        if len(kept) == len(op.results):
            return
        replacement = new_if(
            op.condition,
            [op.results[i].type for i in kept],
            take(op.then_region),
            take(op.else_region),
            op.attributes,
        )
        rewriter.insert(replacement, InsertPoint.before(op))
        results: list[SSAValue] = []
        for i, (t, f) in enumerate(zip(true_values, false_values, strict=True)):
            if i in kept:
                results.append(replacement.results[kept.index(i)])
            elif t == f:
                results.append(t)
            else:
                results.append(select_of(rewriter, op.condition, t, f, replacement))
        for block, yields, values in (
            (then_block(replacement), then_yields, true_values),
            (else_block(replacement), else_yields, false_values),
        ):
            last = terminator(block)
            if yields and isinstance(last, YieldOp):
                rewriter.replace(last, YieldOp([values[i] for i in kept]))
        rewriter.replace(op, [], results)


class RemoveEmptyElseBranch(RewritePattern):
    """An `else` that only yields (nothing) goes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        block = else_block(op)
        if op.results or block is None or block.first_op is not block.last_op:
            return
        if exits_parent(block.last_op):
            return
        replacement = new_if(op.condition, [], take(op.then_region), None, op.attributes)
        rewriter.replace(op, replacement)


class CombineIfs(RewritePattern):
    """Two adjacent `if`s on the same condition (or on a condition and its negation)
    become one: each branch runs the first op's branch, then the second's.  A branch of
    the first that returns, continues or breaks drops the second's branch (unreachable).
    Uses of the first op's results inside the second are replaced by the values yielded
    in the matching branch.  Order of the ops in each branch is kept."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, next_if: IfOp, rewriter: PatternRewriter) -> None:
        prev_if = next_if.prev_op
        if not isinstance(prev_if, IfOp):
            return
        next_then: Block | None = None
        next_else: Block | None = None
        if next_if.condition == prev_if.condition:
            next_then, next_else = then_block(next_if), else_block(next_if)
        negation = next_if.condition.owner
        if (
            isinstance(negation, XOrIOp)
            and is_true(negation.args[1])
            and negation.args[0] == prev_if.condition
        ):
            next_then, next_else = else_block(next_if), then_block(next_if)
        negation = prev_if.condition.owner
        if (
            isinstance(negation, XOrIOp)
            and is_true(negation.args[1])
            and negation.args[0] == next_if.condition
        ):
            next_then, next_else = else_block(next_if), then_block(next_if)
        if exits_parent(terminator(then_block(prev_if))):
            next_then = None
        if exits_parent(terminator(else_block(prev_if))):
            next_else = None
        if next_then is None and next_else is None:
            return

        prev_then_last = terminator(then_block(prev_if))
        prev_else_last = terminator(else_block(prev_if))
        then_values: Sequence[SSAValue] = list(prev_if.results)
        else_values: Sequence[SSAValue] = list(prev_if.results)
        if next_then is not None and prev_then_last is not None:
            then_values = list(prev_then_last.operands)
        if next_else is not None and prev_else_last is not None:
            else_values = list(prev_else_last.operands)
        for result, t, f in zip(prev_if.results, then_values, else_values, strict=False):
            for use in list(result.uses):
                user = use.operation
                if next_then is not None and is_nested_in(user, next_then.parent_region()):  # pyright: ignore[reportArgumentType]
                    user.operands = [
                        t if i == use.index else v for i, v in enumerate(user.operands)
                    ]
                    rewriter.notify_op_modified(user)
                elif next_else is not None and is_nested_in(user, next_else.parent_region()):  # pyright: ignore[reportArgumentType]
                    user.operands = [
                        f if i == use.index else v for i, v in enumerate(user.operands)
                    ]
                    rewriter.notify_op_modified(user)

        combined_then = take(prev_if.then_region)
        if next_then is not None:
            self.append(combined_then.blocks[0], next_then, rewriter)
        combined_else = take(prev_if.else_region)
        if next_else is not None:
            if not combined_else.blocks:
                combined_else = take(next_else.parent_region())  # pyright: ignore[reportArgumentType]
            else:
                self.append(combined_else.blocks[0], next_else, rewriter)
        combined = new_if(
            prev_if.condition,
            [r.type for r in (*prev_if.results, *next_if.results)],
            combined_then,
            combined_else,
            next_if.attributes,
        )
        rewriter.insert(combined, InsertPoint.before(next_if))
        count = len(prev_if.results)
        rewriter.replace(prev_if, [], list(combined.results[:count]))
        rewriter.replace(next_if, [], list(combined.results[count:]))

    @staticmethod
    def append(block: Block, tail: Block, rewriter: PatternRewriter) -> None:
        """Run `tail` after `block`; both yields become one."""
        first_yield = block.last_op if isinstance(block.last_op, YieldOp) else None
        second_yield = tail.last_op if isinstance(tail.last_op, YieldOp) else None
        rewriter.inline_block(tail, InsertPoint.at_end(block))
        if first_yield is not None and second_yield is not None:
            merged = YieldOp([*first_yield.operands, *second_yield.operands])
            rewriter.insert(merged, InsertPoint.at_end(block))
        if first_yield is not None:
            rewriter.erase(first_yield)
        if second_yield is not None:
            rewriter.erase(second_yield)


class CombineNestedIfs(RewritePattern):
    """`if %a { if %b { X } }` is `if (andi %a, %b) { X }`, where the outer then-branch
    holds nothing but the inner `if` and the else-branches only yield.  A result the
    outer op yields from outside its branches becomes a select on `%a`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        body = then_block(op)
        ops = list(body.ops)
        if len(ops) != 2:
            return
        nested = ops[0]
        if not isinstance(nested, IfOp):
            return
        outer_else, nested_else = else_block(op), else_block(nested)
        if outer_else is not None and outer_else.first_op is not outer_else.last_op:
            return
        if nested_else is not None and nested_else.first_op is not nested_else.last_op:
            return
        if (
            exits_parent(terminator(body))
            or exits_parent(terminator(outer_else))
            or exits_parent(terminator(nested_else))
        ):
            return
        nested_then_last = terminator(then_block(nested))
        if exits_parent(nested_then_last) and (outer_else is not None or nested_else is not None):
            return
        outer_then_last = terminator(body)
        assert outer_then_last is not None
        then_values = list(outer_then_last.operands)
        else_values = list(terminator(outer_else).operands) if outer_else is not None else []  # pyright: ignore[reportOptionalMemberAccess]
        to_select: list[int] = []
        for i, value in enumerate(then_values):
            if isinstance(value, OpResult) and value.op is nested:
                nested_else_last = terminator(nested_else)
                if nested_else_last is None or nested_then_last is None:
                    return
                if nested_else_last.operands[value.index] != else_values[i]:
                    return
                then_values[i] = nested_then_last.operands[value.index]
                continue
            if defining_region(value) is op.then_region:
                return
            if not isinstance(value.type, TileType):
                return
            to_select.append(i)

        both = AndIOp.build_op([op.condition, nested.condition])
        rewriter.insert(both, InsertPoint.before(op))
        new_then = take(nested.then_region)
        new_else: Region | None = None
        if else_values:
            new_else = Region(Block([YieldOp(else_values)]))
        replacement = new_if(
            both.result, [r.type for r in op.results], new_then, new_else, op.attributes
        )
        rewriter.insert(replacement, InsertPoint.before(op))
        results: list[SSAValue] = list(replacement.results)
        for i in to_select:
            results[i] = select_of(
                rewriter, op.condition, then_values[i], else_values[i], replacement
            )
        last = terminator(then_block(replacement))
        if isinstance(last, YieldOp):
            rewriter.replace(last, YieldOp(then_values))
        rewriter.replace(op, [], results)


class MoveTerminatorToParent(RewritePattern):
    """Both branches return (or continue, or break): the else-branch's code runs after
    a plain `if` of the then-branch, and what followed the op is unreachable."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        if not op.else_region.blocks:
            return
        if not exits_parent(terminator(then_block(op))) or not exits_parent(
            terminator(else_block(op))
        ):
            return
        plain = new_if(op.condition, [], take(op.then_region), None, op.attributes)
        rewriter.insert(plain, InsertPoint.before(op))
        replace_with_region(rewriter, op, op.else_region)


class EraseDeadIf(RewritePattern):
    """An `if` without results whose branches have no side effects does nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter) -> None:
        if op.results:
            return
        for region in op.regions:
            for block in region.blocks:
                for inner in block.walk():
                    if isinstance(inner, YieldOp):
                        continue
                    if exits_parent(inner) or not is_side_effect_free(inner):
                        return
        rewriter.erase(op)


PATTERNS: dict[str, tuple[RewritePattern, ...]] = {
    "cuda_tile.constant": (UniqueConstant(),),
    "cuda_tile.addf": (MulfOnLhs(),),
    "cuda_tile.assume": (FoldRepeatedAssume(),),
    "cuda_tile.select": (FoldSelect(), SelectI1ToNot(), SelectConsts(), SelectToExtI()),
    "cuda_tile.if": (
        SwapNegatedIf(),
        RemoveUnusedResults(),
        ReplaceYieldWithValue(),
        RemoveStaticCondition(),
        ConvertToSelect(),
        RemoveEmptyElseBranch(),
        CombineIfs(),
        CombineNestedIfs(),
        MoveTerminatorToParent(),
        EraseDeadIf(),
    ),
}


def patterns_for(op_name: str) -> tuple[RewritePattern, ...]:
    return PATTERNS.get(op_name, ())
