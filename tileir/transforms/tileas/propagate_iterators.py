"""`tileas-propagate-iterators`: give every pipeline iterator its full type and carry it
through structured control flow (seed 001 "Iterator Propagation", seed 002 "Iterator
Propagation").

A `PipelineIteratorType` has four fields: element type, `count`, `stride`, address
space.  Queue lowering may leave `count` unfixed (`count = ?`) and control-flow
signatures that merely hold the payload type; this pass rewrites loop and branch
signatures until every path agrees on one iterator type:

* at its root, `create_iterator` takes `count` from its pipeline's `numStages` and its
  address space from the residency of the pipeline's stage buffer (an nv_tileas view);
* `scf.for` carries an iterator unchanged: the iter-arg, the loop result and the yield
  get the init's type (and a yielded iterator gives its type to the iter-arg and result);
* `scf.if` results take the type both branches yield; branches that yield different
  iterator types (or an iterator and something else) are rejected with a diagnostic at
  the `scf.if`: later schedule and lowering passes could not give the merged value a
  single stage meaning;
* `inc_iter` keeps the type; `reduce` / `scan` with a `reduction_factor` divide `count` by
  it (rejected, at the op, when it does not divide `count`); the pipeline region ops
  (`produce_one`, `consume_one`, their async forms, `producer_write`, `consumer_read`)
  give their iterator-typed region arguments and payload results the operand iterator's
  `count`, `stride` and space around their own payload type.  (Seed 002 allows async
  producer/consumer ops to change the space; tileir keeps it: a payload stays in the
  stage storage until an explicit copy, which has a type of its own.)
* any other use simply sees the new type (the value is the same SSA value).

A value whose type is not an iterator yet (an `scf.if` result declared with the payload
type, for instance) is wrapped into the iterator type it receives.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from tileir.diagnostics import error_at
from tileir.dialects.nv_tileas.ops import (
    AxisRegionOp,
    ConsumerReadOp,
    CreateIteratorOp,
    CreatePipelineOp,
    IncIterOp,
    PipelineRegionOp,
    ProducerWriteOp,
)
from tileir.dialects.nv_tileas.types import PipelineIteratorType, TiledViewType


def root_iterator_type(op: CreateIteratorOp) -> PipelineIteratorType:
    """The full type of a `create_iterator` result: `count` from `numStages`, the space
    from the stage buffer's residency (when it is an nv_tileas view)."""
    t = op.result.type
    assert isinstance(t, PipelineIteratorType)
    pipeline = op.pipeline.owner
    if not isinstance(pipeline, CreatePipelineOp):
        return t
    space = t.space
    view = pipeline.buffer_view.type
    if isinstance(view, TiledViewType):
        space = view.residency_kind
    return t.with_fields(
        count=pipeline.stages if t.stage_count is None else None, address_space=space
    )


def with_element(t: PipelineIteratorType, element: Attribute) -> PipelineIteratorType:
    return t.with_fields(element_type=element)


def as_iterator(declared: Attribute, given: PipelineIteratorType) -> PipelineIteratorType:
    """`given`'s count, stride and space around the declared payload (the declared type
    itself when it is not an iterator: a payload-typed signature gets wrapped)."""
    element = declared.element_type if isinstance(declared, PipelineIteratorType) else declared
    return given.with_fields(element_type=element)


@dataclass
class IteratorPropagation:
    """The worklist propagation over one module."""

    module: ModuleOp
    worklist: deque[SSAValue] = field(default_factory=deque[SSAValue])

    def run(self) -> None:
        for op in list(self.module.walk()):
            if isinstance(op, CreateIteratorOp):
                self.set_type(op.result, root_iterator_type(op))
        # Types flow from the roots only: the iterators no propagation rule derives
        # (create_iterator results, function arguments, results of other ops).  A derived
        # value never pushes its declared, possibly less complete, type back into a loop.
        for op in self.module.walk():
            for value in (*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)):
                if isinstance(value.type, PipelineIteratorType) and not is_derived(value):
                    self.worklist.append(value)
        while self.worklist:
            value = self.worklist.popleft()
            if isinstance(value.type, PipelineIteratorType) and _alive(value):
                self.visit(value, value.type)
        self.check(self.module)

    def set_type(self, value: SSAValue, t: Attribute) -> SSAValue:
        if value.type == t:
            return value
        new = Rewriter.replace_value_with_new_type(value, t)
        self.worklist.append(new)
        return new

    def visit(self, value: SSAValue, t: PipelineIteratorType) -> None:
        for use in list(value.uses):
            owner, index = use.operation, use.index
            if isinstance(owner, scf.ForOp) and index >= 3:
                k = index - 3
                self.set_type(owner.body.block.args[k + 1], t)
                self.set_type(owner.results[k], t)
            elif isinstance(owner, scf.YieldOp):
                self.visit_yield(owner, index, t)
            elif isinstance(owner, IncIterOp):
                self.set_type(owner.result, t)
            elif isinstance(owner, AxisRegionOp):
                self.visit_reduction(owner, index, t)
            elif isinstance(owner, PipelineRegionOp) and index == 1:
                self.visit_region_op(owner, t)

    def visit_yield(self, yield_op: scf.YieldOp, k: int, t: PipelineIteratorType) -> None:
        parent = yield_op.parent_op()
        if isinstance(parent, scf.ForOp):
            self.set_type(parent.body.block.args[k + 1], t)
            self.set_type(parent.results[k], t)
        elif isinstance(parent, scf.IfOp) and parent.false_region.blocks:
            # The result takes the type once both branches yield it; until the other
            # branch is refined (or if it never agrees: `check` rejects it) it waits.
            arms = [
                _yielded_type(r.block.last_op, k) for r in (parent.true_region, parent.false_region)
            ]
            if arms[0] == arms[1] == t:
                self.set_type(parent.results[k], t)

    def visit_reduction(self, op: AxisRegionOp, k: int, t: PipelineIteratorType) -> None:
        if k >= len(op.outputs):
            return
        factor = op.reduction_factor.value.data if op.reduction_factor is not None else 1
        count = t.stage_count
        if count is not None and (factor < 1 or count % factor):
            raise error_at(
                op, f"reduction factor {factor} does not divide the iterator count {count}"
            )
        result = op.outputs[k]
        reduced = as_iterator(result.type, t)
        if count is not None:
            reduced = reduced.with_fields(count=count // factor)
        self.set_type(result, reduced)

    def visit_region_op(self, op: PipelineRegionOp, t: PipelineIteratorType) -> None:
        for block in op.regions[0].blocks:
            for arg in block.args:
                if isinstance(arg.type, PipelineIteratorType):
                    self.set_type(arg, as_iterator(arg.type, t))
        if isinstance(op, ProducerWriteOp | ConsumerReadOp):
            for result in op.values:
                if isinstance(result.type, PipelineIteratorType):
                    self.set_type(result, as_iterator(result.type, t))

    def check(self, module: ModuleOp) -> None:
        """Every loop and branch agrees on one type per carried iterator."""
        for op in module.walk():
            if isinstance(op, scf.ForOp):
                _check_loop(op)
            elif isinstance(op, scf.IfOp) and op.results:
                _check_branches(op)


def is_derived(value: SSAValue) -> bool:
    """Does a propagation rule give `value` its type (a loop-carried value, a branch or
    loop result, the result of inc_iter or of a reduction, a pipeline region's argument
    or payload result)?"""
    if isinstance(value, BlockArgument):
        parent = value.block.parent_op()
        if isinstance(parent, scf.ForOp):
            return value.index > 0
        return isinstance(parent, PipelineRegionOp)
    assert isinstance(value, OpResult)
    op = value.op
    if isinstance(op, scf.ForOp | scf.IfOp | IncIterOp | AxisRegionOp):
        return True
    return isinstance(op, ProducerWriteOp | ConsumerReadOp) and value.index > 0


def _alive(value: SSAValue) -> bool:
    if isinstance(value, OpResult):
        return value in value.op.results
    assert isinstance(value, BlockArgument)
    return value in value.block.args


def _yielded_type(terminator: Operation | None, k: int) -> Attribute | None:
    if isinstance(terminator, scf.YieldOp) and k < len(terminator.arguments):
        return terminator.arguments[k].type
    return None


def _check_loop(op: scf.ForOp) -> None:
    terminator = op.body.block.last_op
    for k, init in enumerate(op.iter_args):
        carried = op.body.block.args[k + 1].type
        yielded = _yielded_type(terminator, k)
        types = {init.type, carried, op.results[k].type}
        if yielded is not None:
            types.add(yielded)
        if len(types) > 1 and any(isinstance(x, PipelineIteratorType) for x in types):
            raise error_at(
                op,
                f"loop-carried pipeline iterator #{k} has no single type: init {init.type}, "
                f"iter-arg {carried}, yield {yielded}",
            )


def _check_branches(op: scf.IfOp) -> None:
    for k, result in enumerate(op.results):
        then_t = _yielded_type(op.true_region.block.last_op, k)
        else_t = _yielded_type(op.false_region.block.last_op, k) if op.false_region.blocks else None
        if not any(isinstance(x, PipelineIteratorType) for x in (then_t, else_t)):
            continue
        if then_t != else_t or result.type != then_t:
            raise error_at(
                op,
                f"branches yield different pipeline iterator types for result #{k}: "
                f"{then_t} (then) vs {else_t} (else); both branches must yield the same "
                "iterator type",
            )


@dataclass(frozen=True)
class PropagateIteratorsPass(ModulePass):
    """Propagates `PipelineIteratorType` through `scf.for` iter-args, results and yields
    and `scf.if` results (seeds 001, 002): `count` from the pipeline's `numStages`, the
    space from its stage buffer, `count` divided by a reduction's factor; branches that
    disagree are rejected with a located diagnostic."""

    name = "tileas-propagate-iterators"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        IteratorPropagation(op).run()
