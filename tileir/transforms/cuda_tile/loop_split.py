"""`loop-split`: a `for` whose body branches on the induction variable against a
loop invariant becomes two loops, one per side of the branch (NVIDIA's LoopSplit).

    for %i in (%lb to %ub, step %s) { %c = cmpi greater_than %i, %n ; if %c {A} else {B} }

is, with `%p` the first `%i` past `%n` (aligned on the step) clamped to the bounds,

    %r1 = for %i in (%lb to min(%p, %ub), step %s) { B }
    %r2 = for %i in (max(%p, %lb) to %ub, step %s) iter_values(= %r1) { A }

Legality: the comparison's signedness is the loop's (`unsigned` loops compare
unsigned), the compared value is defined outside the loop (an iteration argument is not
loop invariant), the predicate is one of `<`, `<=`, `>`, `>=` (either operand order),
and each split `if` sits directly in the loop body and ends its branches with `yield` or
`continue`.  Each loop keeps every op of the body, in order, except the `if`s on that
comparison, of which it keeps the one branch that runs there.

Profitability (option `split-threshold`, default 1): split only when some `if` on the
comparison has at least that many ops in a branch, or a heavy op (load, store, mma,
reduce, if, for).  A `cuda_tile.loop_split = N` attribute on the `if`, the `for` or the
function overrides the threshold (the innermost wins); 0 turns splitting off.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i1
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.dialects.cuda_tile.attributes import (
    ComparisonPredicate,
    RoundingMode,
    RoundingModeAttr,
    Signedness,
    SignednessAttr,
)
from tileir.dialects.cuda_tile.ops.control_flow import ContinueOp, ForOp, IfOp, YieldOp
from tileir.dialects.cuda_tile.ops.core import ConstantOp, FunctionOp
from tileir.dialects.cuda_tile.ops.integer import (
    AddIOp,
    CmpIOp,
    DivIOp,
    MaxIOp,
    MinIOp,
    MulIOp,
    SubIOp,
)
from tileir.dialects.cuda_tile.types import TileType

#: The attribute that overrides the threshold on a function, a `for` or an `if`.
THRESHOLD_ATTR = "cuda_tile.loop_split"

#: Ops that make a branch worth a split whatever its size.
HEAVY_OPS = frozenset(
    {
        "cuda_tile.load_ptr_tko",
        "cuda_tile.load_view_tko",
        "cuda_tile.store_ptr_tko",
        "cuda_tile.store_view_tko",
        "cuda_tile.mmaf",
        "cuda_tile.mmai",
        "cuda_tile.reduce",
        "cuda_tile.if",
        "cuda_tile.for",
    }
)

_MIRRORED = {
    ComparisonPredicate.LESS_THAN: ComparisonPredicate.GREATER_THAN,
    ComparisonPredicate.LESS_THAN_OR_EQUAL: ComparisonPredicate.GREATER_THAN_OR_EQUAL,
    ComparisonPredicate.GREATER_THAN: ComparisonPredicate.LESS_THAN,
    ComparisonPredicate.GREATER_THAN_OR_EQUAL: ComparisonPredicate.LESS_THAN_OR_EQUAL,
}


@dataclass
class Split:
    """A legal, profitable split of one loop on one comparison."""

    compare: CmpIOp
    predicate: ComparisonPredicate
    bound: SSAValue
    ifs: list[IfOp]
    then_runs_second: bool
    keep_compare: bool


def post_order(op: Operation) -> Iterator[Operation]:
    for region in op.regions:
        for block in region.blocks:
            for inner in list(block.ops):
                yield from post_order(inner)
    yield op


def threshold_hint(op: Operation) -> int | None:
    attr = op.attributes.get(THRESHOLD_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else None


def loop_signedness(loop: ForOp) -> Signedness:
    return Signedness.UNSIGNED if loop.unsignedCmp is not None else Signedness.SIGNED


def is_inside(value: SSAValue, loop: ForOp) -> bool:
    """`value` is defined in the loop (its body arguments included)."""
    owner = value.owner
    current: Operation | None = owner.parent_op() if isinstance(owner, Block) else owner
    while current is not None:
        if current is loop:
            return True
        current = current.parent_op()
    return False


def normalized(loop: ForOp, compare: CmpIOp) -> tuple[ComparisonPredicate, SSAValue] | None:
    """The comparison as `iv PRED bound`, or None."""
    signedness = compare.signedness.data
    if signedness is not loop_signedness(loop):
        return None
    lhs, rhs = compare.args
    iv = loop.induction_var
    if lhs == iv:
        return compare.predicate, rhs
    if rhs == iv and compare.predicate in _MIRRORED:
        return _MIRRORED[compare.predicate], lhs
    return None


def branch_size(region: Region) -> tuple[int, bool]:
    """Ops in the branch (its terminator not counted) and whether one is heavy."""
    if not region.blocks:
        return -1, False
    ops = list(region.blocks[0].ops)
    return len(ops) - 1, any(op.name in HEAVY_OPS for op in ops)


def profitable(if_op: IfOp, threshold: int) -> bool:
    if threshold == 1:
        return True
    then_size, then_heavy = branch_size(if_op.then_region)
    else_size, else_heavy = branch_size(if_op.else_region)
    return then_size >= threshold or else_size >= threshold or then_heavy or else_heavy


def branches_splittable(if_op: IfOp) -> bool:
    """Each branch ends in `yield` or `continue` (a branch is inlined in the loop)."""
    for region in if_op.regions:
        if region.blocks and not isinstance(region.blocks[0].last_op, YieldOp | ContinueOp):
            return False
    return True


def find_split(loop: ForOp, if_op: IfOp, threshold: int) -> Split | None:
    if threshold <= 0:
        return None
    compare = if_op.condition.owner
    if not isinstance(compare, CmpIOp):
        return None
    found = normalized(loop, compare)
    if found is None:
        return None
    predicate, bound = found
    if is_inside(bound, loop):
        return None
    if predicate in (ComparisonPredicate.GREATER_THAN, ComparisonPredicate.GREATER_THAN_OR_EQUAL):
        then_runs_second = True
    elif predicate in (ComparisonPredicate.LESS_THAN, ComparisonPredicate.LESS_THAN_OR_EQUAL):
        then_runs_second = False
    else:
        return None
    ifs: list[IfOp] = []
    keep_compare = False
    worth_it = False
    for use in compare.result.uses:
        user = use.operation
        if isinstance(user, IfOp) and use.index == 0:
            worth_it = worth_it or profitable(user, threshold)
            if user.parent_op() is loop and branches_splittable(user):
                if user not in ifs:
                    ifs.append(user)
                continue
        keep_compare = True
    if not worth_it:
        return None
    return Split(compare, predicate, bound, ifs, then_runs_second, keep_compare)


def copy_loop(
    loop: ForOp,
    split: Split,
    lower: SSAValue,
    upper: SSAValue,
    inits: Sequence[SSAValue],
    take_then: bool,
) -> ForOp:
    """A copy of `loop` over `[lower, upper)` keeping one side of the split `if`s."""
    body = Block(arg_types=[a.type for a in loop.body.args])
    mapping: dict[SSAValue, SSAValue] = dict(zip(loop.body.args, body.args, strict=True))
    for op in loop.body.ops:
        if op is split.compare:
            if split.keep_compare:
                known = ConstantOp.splat(1 if take_then else 0, TileType([], i1))
                body.add_op(known)
                mapping[op.results[0]] = known.result
            continue
        if not isinstance(op, IfOp) or op not in split.ifs:
            body.add_op(op.clone(value_mapper=mapping))
            continue
        region = op.then_region if take_then else op.else_region
        if not region.blocks:
            continue
        last = region.blocks[0].last_op
        for inner in region.blocks[0].ops:
            if isinstance(inner, YieldOp):
                for result, value in zip(op.results, inner.operands, strict=True):
                    mapping[result] = mapping.get(value, value)
            else:
                body.add_op(inner.clone(value_mapper=mapping))
        if isinstance(last, ContinueOp):
            break  # the rest of the body does not run on this side
    properties = {"unsignedCmp": loop.unsignedCmp} if loop.unsignedCmp is not None else {}
    return ForOp.create(
        operands=[lower, upper, loop.step, *inits],
        result_types=[r.type for r in loop.results],
        properties=properties,
        attributes=dict(loop.attributes),
        regions=[Region(body)],
    )


def is_constant_one(value: SSAValue) -> bool:
    owner = value.owner
    if not isinstance(owner, ConstantOp):
        return False
    values = owner.value.get_values()
    return len(values) == 1 and values[0] == 1


def split_loop(loop: ForOp, split: Split) -> None:
    before = InsertPoint.before(loop)
    ops: list[Operation] = []
    signedness = SignednessAttr(loop_signedness(loop))
    step, lower, upper = loop.step, loop.lower_bound, loop.upper_bound

    def emit(op: Operation) -> SSAValue:
        ops.append(op)
        return op.results[0]

    point = split.bound
    if split.predicate in (
        ComparisonPredicate.GREATER_THAN,
        ComparisonPredicate.LESS_THAN_OR_EQUAL,
    ):
        one = emit(ConstantOp.splat(1, step.type))
        point = emit(AddIOp.build_op([point, one]))
    if not is_constant_one(step):
        # Align the split on the iteration space: lb + ceil((p - lb) / s) * s.
        diff = emit(SubIOp.build_op([point, lower]))
        count = emit(
            DivIOp.build_op(
                [diff, step],
                signedness=signedness,
                rounding=RoundingModeAttr(RoundingMode.POSITIVE_INF),
            )
        )
        span = emit(MulIOp.build_op([count, step]))
        point = emit(AddIOp.build_op([lower, span]))
    first_upper = emit(MinIOp.build_op([point, upper], signedness=signedness))
    second_lower = emit(MaxIOp.build_op([point, lower], signedness=signedness))
    Rewriter.insert_op(ops, before)
    first = copy_loop(
        loop, split, lower, first_upper, list(loop.init_values), not split.then_runs_second
    )
    Rewriter.insert_op(first, before)
    second = copy_loop(
        loop, split, second_lower, upper, list(first.results), split.then_runs_second
    )
    Rewriter.insert_op(second, before)
    Rewriter.replace_op(loop, [], list(second.results))


def attached_to(op: Operation, ancestor: Operation) -> bool:
    current: Operation | None = op
    while current is not None:
        if current is ancestor:
            return True
        current = current.parent_op()
    return False


@dataclass(frozen=True)
class LoopSplitPass(ModulePass):
    """Split loops on comparisons of the induction variable (see the module doc)."""

    name = "loop-split"

    split_threshold: int = 1

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.walk() if isinstance(f, FunctionOp)]
        for function in functions:
            function_hint = threshold_hint(function)
            loops = [o for o in post_order(function) if isinstance(o, ForOp)]
            for loop in loops:
                if not attached_to(loop, function):
                    continue
                loop_hint = threshold_hint(loop)
                for if_op in [o for o in post_order(loop) if isinstance(o, IfOp)]:
                    hint = threshold_hint(if_op)
                    threshold = next(
                        (h for h in (hint, loop_hint, function_hint) if h is not None),
                        self.split_threshold,
                    )
                    split = find_split(loop, if_op, threshold)
                    if split is not None:
                        split_loop(loop, split)
                        break
