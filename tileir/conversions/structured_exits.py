"""Early exits to structured control flow: `cuda_tile.loop` / `break` / `continue`.

cuda_tile's `loop` runs its body until a `break`; `break` and `continue` may sit at the
end of the body or inside `if` arms nested in it, and `continue` may leave a `for` body
early the same way.  scf has no early exit, so `convert-cuda-tile-to-tileaa` rewrites
them the way MLIR's `lift-cf-to-scf` does with structured flags:

    loop iter_values(%x = %init) : I -> R { body }

becomes

    %r = scf.while (%x = %init) : (I) -> C {
      <body, each exit turned into values: keep-looping flag and carried values>
      scf.condition(%keep) %values : C
    } do {
    ^bb0(%v : C):
      scf.yield %v[0 .. |I|) : I
    }

where `C` is `I` when the loop's results have the iteration types (cuTile's loops) and
`I ++ R` otherwise.  An `if` whose arms exit becomes an `scf.if` that yields
`(exited, keep, exit values..., its own results...)`, and the ops after it run in an
`scf.if` on `exited`, so that nothing after a taken exit executes.  Values a path does
not define (the loop results on a `continue` path, the results of an `if` on an exit
path) are filled with placeholders: the loop-carried arguments, zero constants, or a
mem token from before the rewritten ops (a fresh one where there is none); they are
never read.

An early `return` works the same way one level up.  cuda_tile allows `return` inside
`if`s (nested ones too) directly in a function body, never inside a loop; the `if`'s
condition is a scalar tile, so the whole tile block takes the branch (every thread of
the CTA returns together).  The function body is the sequence, `return` its exit,
and its results (none for an `entry`) the carried values:

    if %c { return } else {}
    <rest>
    return

becomes

    %exited = scf.if %c -> (i1, ...) { scf.yield %true, ... } else { scf.yield %false, ... }
    scf.if %exited { } else { <rest> }
    return
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import scf
from xdsl.dialects.builtin import AnyFloat, IntegerType, i1
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tileir.diagnostics import not_supported
from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.cuda_tile.carriers import element_type
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.types import MemTokenType

LoopLike = ct.LoopOp | ct.ForOp | scf.ForOp | scf.WhileOp


def owning_loop(op: Operation) -> Operation | None:
    """The loop a `break` / `continue` belongs to (the nearest one around it)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, LoopLike):
        parent = parent.parent_op()
    return parent


def exits_loop(op: Operation, loop: Operation) -> bool:
    """Whether a `break`/`continue` nested in `op` leaves `loop`."""
    return any(
        isinstance(inner, ct.BreakOp | ct.ContinueOp) and owning_loop(inner) is loop
        for inner in op.walk()
        if inner is not op
    )


def returns_early(op: Operation) -> bool:
    """Whether a `return` is nested in `op` (an `if` of a function body)."""
    return any(isinstance(inner, ct.ReturnOp) for inner in op.walk() if inner is not op)


def dominating_values(anchor: Operation) -> dict[Attribute, SSAValue]:
    """The nearest value of each type defined before `anchor`, in its block or an
    enclosing one up to the function: each dominates `anchor` and what follows it."""
    found: dict[Attribute, SSAValue] = {}
    current: Operation | None = anchor
    while current is not None and not isinstance(current, ct.FunctionOp):
        previous = current.prev_op
        while previous is not None:
            for result in previous.results:
                found.setdefault(result.type, result)
            previous = previous.prev_op
        block = current.parent_block()
        if block is not None:
            for arg in block.args:
                found.setdefault(arg.type, arg)
        current = current.parent_op()
    return found


@dataclass
class Outcome:
    """What a straight-line sequence ends with: whether it left the loop body
    (`exited`), whether the loop goes on (`keep`; None in a function body, which a
    `return` leaves for good), the values the exit carries, and the values of a
    fall-through `yield` (of an `if` arm)."""

    exited: SSAValue
    keep: SSAValue | None
    carried: list[SSAValue]
    fallthrough: list[SSAValue]

    def values(self) -> list[SSAValue]:
        flags = [self.exited] if self.keep is None else [self.exited, self.keep]
        return [*flags, *self.carried, *self.fallthrough]


class ExitLowering:
    """Rewrites one loop body (of `cuda_tile.loop` or of a `for`) with exits, or one
    function body (of an `entry`) with early returns."""

    def __init__(
        self,
        loop: Operation,
        carried_types: Sequence[Attribute],
        fillers: Sequence[SSAValue],
        anchor: Operation | None = None,
    ):
        self.loop = loop
        self.carried_types = list(carried_types)
        #: Values of `carried_types` available everywhere in the body (the iteration
        #: arguments, extended with placeholders for the loop's result types).
        self.fillers = list(fillers)
        #: Values defined before the rewritten ops (before `anchor`: the loop, or the
        #: first `if` of a function body that returns), the nearest of each type; they
        #: dominate every exit, so they can stand in for values an exit path lacks.
        self.dominating = dominating_values(anchor if anchor is not None else loop)

    @property
    def flag_count(self) -> int:
        """`exited` and `keep` in a loop body; only `exited` in a function body."""
        return 1 if isinstance(self.loop, ct.FunctionOp) else 2

    def outcome_of(self, values: Sequence[SSAValue]) -> Outcome:
        """The inverse of `Outcome.values`."""
        k, n = self.flag_count, len(self.carried_types)
        return Outcome(
            values[0],
            values[1] if k == 2 else None,
            list(values[k : k + n]),
            list(values[k + n :]),
        )

    def is_exit(self, op: Operation) -> bool:
        """Whether `op` leaves the body: a `return` of the function, a `break` or
        `continue` of the loop."""
        if isinstance(self.loop, ct.FunctionOp):
            return isinstance(op, ct.ReturnOp)
        return isinstance(op, ct.BreakOp | ct.ContinueOp) and owning_loop(op) is self.loop

    def exits(self, op: Operation) -> bool:
        """Whether an exit of the body is nested in `op`."""
        if isinstance(self.loop, ct.FunctionOp):
            return returns_early(op)
        return exits_loop(op, self.loop)

    # -- building blocks -----------------------------------------------------
    @staticmethod
    def add(block: Block, op: Operation) -> SSAValue:
        block.add_op(op)
        return op.results[0]

    def flag(self, block: Block, value: bool) -> SSAValue:
        return self.add(block, ct.ConstantOp.splat(1 if value else 0, i1))

    def placeholders(
        self, block: Block, types: Sequence[Attribute], where: Operation
    ) -> list[SSAValue]:
        out: list[SSAValue] = []
        for t in types:
            if isinstance(t, MemTokenType):
                # A token from before the body keeps hop one's tokens one for one; a
                # fresh one where there is none.
                token = self.dominating.get(t)
                out.append(token if token is not None else self.add(block, aa.CreateMemTokenOp()))
                continue
            el = element_type(t)
            if isinstance(el, IntegerType):
                out.append(self.add(block, ct.ConstantOp.splat(0, t)))
            elif isinstance(el, AnyFloat):
                out.append(self.add(block, ct.ConstantOp.splat(0.0, t)))
            else:
                raise not_supported(
                    where,
                    f"an early exit past a value of type {t}",
                    instead="carry only tiles and tokens through a loop that is left early "
                    "(break, or continue and return inside an if), or move the exit out of it",
                )
        return out

    # -- sequences -----------------------------------------------------------
    def sequence(
        self, ops: list[Operation], block: Block, fallthrough_types: Sequence[Attribute]
    ) -> Outcome:
        """Move `ops` into `block`, turning their exits into an `Outcome`."""
        for i, op in enumerate(ops):
            if self.is_exit(op):
                carried = list(op.operands)
                if isinstance(op, ct.BreakOp) and len(carried) != len(self.carried_types):
                    # A break carries the loop results: put them after the iteration slots.
                    carried = [*self.fillers[: len(self.carried_types) - len(carried)], *carried]
                elif len(carried) != len(self.carried_types):
                    carried = [*carried, *self.fillers[len(carried) :]]
                outcome = Outcome(
                    self.flag(block, True),
                    self.flag(block, isinstance(op, ct.ContinueOp))
                    if self.flag_count == 2
                    else None,
                    carried,
                    self.placeholders(block, fallthrough_types, op),
                )
                op.detach()
                op.erase()
                return outcome
            if isinstance(op, ct.YieldOp):
                outcome = Outcome(
                    self.flag(block, False),
                    self.flag(block, True) if self.flag_count == 2 else None,
                    list(self.fillers),
                    list(op.operands),
                )
                if op.parent is not None:  # not the stand-in yield of an empty arm
                    op.detach()
                op.erase()
                return outcome
            if isinstance(op, ct.IfOp) and self.exits(op):
                return self.exiting_if(op, ops[i + 1 :], block, fallthrough_types)
            op.detach()
            block.add_op(op)
        raise not_supported(
            self.loop, "a loop body that does not end with break, continue or yield"
        )

    def exiting_if(
        self,
        op: ct.IfOp,
        rest: list[Operation],
        block: Block,
        fallthrough_types: Sequence[Attribute],
    ) -> Outcome:
        own_types = [r.type for r in op.results]
        flags = [i1] * self.flag_count
        shape = [*flags, *self.carried_types, *own_types]
        arms: list[Region] = []
        for region in (op.then_region, op.else_region):
            arm = Block()
            inner = list(region.blocks[0].ops) if region.blocks else []
            if not inner:
                inner = [ct.YieldOp.create()]
            outcome = self.sequence(inner, arm, own_types)
            arm.add_op(scf.YieldOp(*outcome.values()))
            arms.append(Region(arm))
        branch = scf.IfOp(op.condition, shape, arms[0], arms[1])
        branch.location = op.location
        block.add_op(branch)
        exits = self.outcome_of(branch.results)
        for old, new in zip(op.results, exits.fallthrough, strict=True):
            old.replace_all_uses_with(new)
        op.detach()
        op.erase()
        # The rest of the sequence runs only when the if did not exit.
        after_shape = [*flags, *self.carried_types, *fallthrough_types]
        taken = Block()
        exits.fallthrough = self.placeholders(taken, fallthrough_types, branch)
        taken.add_op(scf.YieldOp(*exits.values()))
        not_taken = Block()
        outcome = self.sequence(rest, not_taken, fallthrough_types)
        not_taken.add_op(scf.YieldOp(*outcome.values()))
        guard = scf.IfOp(exits.exited, after_shape, Region(taken), Region(not_taken))
        guard.location = branch.location
        block.add_op(guard)
        return self.outcome_of(guard.results)


def lower_loop(loop: ct.LoopOp) -> scf.WhileOp:
    """`cuda_tile.loop` -> `scf.while` (module docstring)."""
    iter_types = [v.type for v in loop.init_values]
    result_types = [r.type for r in loop.results]
    same = iter_types == result_types
    carried_types = iter_types if same else [*iter_types, *result_types]
    body = loop.region.blocks[0]
    before = Block(arg_types=carried_types)
    for old, new in zip(body.args, before.args, strict=False):
        old.replace_all_uses_with(new)
    lowering = ExitLowering(loop, carried_types, list(before.args))
    outcome = lowering.sequence(list(body.ops), before, [])
    assert outcome.keep is not None
    before.add_op(scf.ConditionOp(outcome.keep, *outcome.carried))
    after = Block(arg_types=carried_types)
    after.add_op(scf.YieldOp(*after.args[: len(iter_types)]))
    inits = list(loop.init_values)
    if not same:
        # The result slots start as placeholders; only a break defines them.
        prologue = Block()
        inits += lowering.placeholders(prologue, result_types, loop)
        parent = loop.parent_block()
        assert parent is not None
        for op in list(prologue.ops):
            op.detach()
            parent.insert_op_before(op, loop)
    loop_op = scf.WhileOp(inits, carried_types, Region(before), Region(after))
    loop_op.location = loop.location
    parent = loop.parent_block()
    assert parent is not None
    parent.insert_op_before(loop_op, loop)
    results = loop_op.results if same else loop_op.results[len(iter_types) :]
    for old, new in zip(loop.results, results, strict=True):
        old.replace_all_uses_with(new)
    loop.detach()
    loop.erase()
    return loop_op


def lower_for_exits(loop: ct.ForOp) -> None:
    """A `for` body whose `continue` sits in an `if` arm: the continue values become
    the body's last values, reached through flag-guarded `scf.if`s."""
    body = loop.region.blocks[0]
    iter_args = list(body.args[1:])
    carried_types = [a.type for a in iter_args]
    lowering = ExitLowering(loop, carried_types, iter_args)
    ops = list(body.ops)
    staging = Block()
    outcome = lowering.sequence(ops, staging, [])
    for op in list(staging.ops):
        op.detach()
        body.add_op(op)
    body.add_op(ct.ContinueOp.create(operands=outcome.carried))


def lower_early_returns(fn: ct.FunctionOp) -> None:
    """A function body whose `if`s return: the ops after each such `if` run under an
    `scf.if` on its exit flag, and the body ends in one `return` (module docstring)."""
    body = fn.body.blocks[0]
    if not any(isinstance(op, ct.IfOp) and returns_early(op) for op in body.ops):
        return
    result_types = list(fn.function_type.outputs.data)
    prologue = Block()
    first = next(op for op in body.ops if isinstance(op, ct.IfOp) and returns_early(op))
    lowering = ExitLowering(fn, result_types, [], anchor=first)
    lowering.fillers = lowering.placeholders(prologue, result_types, fn)
    staging = Block()
    outcome = lowering.sequence(list(body.ops), staging, [])
    for op in [*prologue.ops, *staging.ops]:
        op.detach()
        body.add_op(op)
    body.add_op(ct.ReturnOp(outcome.carried))


def lower_early_exits(root: Operation) -> None:
    """Rewrite every `cuda_tile.loop` and every `for` that continues from inside an
    `if`, innermost first; then every function that returns from inside an `if`."""
    for op in list(root.walk(region_first=True)):
        if isinstance(op, ct.LoopOp):
            lower_loop(op)
        elif isinstance(op, ct.ForOp) and any(
            isinstance(inner, ct.IfOp) and exits_loop(inner, op) for inner in op.region.walk()
        ):
            lower_for_exits(op)
    for op in list(root.walk()):
        if isinstance(op, ct.FunctionOp):
            lower_early_returns(op)
