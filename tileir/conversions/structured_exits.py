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
fresh mem token; they are never read.
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


@dataclass
class Outcome:
    """What a straight-line sequence ends with: whether it left the loop body
    (`exited`), whether the loop goes on (`keep`), the values the exit carries, and
    the values of a fall-through `yield` (of an `if` arm)."""

    exited: SSAValue
    keep: SSAValue
    carried: list[SSAValue]
    fallthrough: list[SSAValue]

    def values(self) -> list[SSAValue]:
        return [self.exited, self.keep, *self.carried, *self.fallthrough]


class ExitLowering:
    """Rewrites one loop body (of `cuda_tile.loop` or of a `for`) with exits."""

    def __init__(
        self, loop: Operation, carried_types: Sequence[Attribute], fillers: Sequence[SSAValue]
    ):
        self.loop = loop
        self.carried_types = list(carried_types)
        #: Values of `carried_types` available everywhere in the body (the iteration
        #: arguments, extended with placeholders for the loop's result types).
        self.fillers = list(fillers)

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
                out.append(self.add(block, aa.CreateMemTokenOp()))
                continue
            el = element_type(t)
            if isinstance(el, IntegerType):
                out.append(self.add(block, ct.ConstantOp.splat(0, t)))
            elif isinstance(el, AnyFloat):
                out.append(self.add(block, ct.ConstantOp.splat(0.0, t)))
            else:
                raise not_supported(where, f"an early exit past a value of type {t}")
        return out

    # -- sequences -----------------------------------------------------------
    def sequence(
        self, ops: list[Operation], block: Block, fallthrough_types: Sequence[Attribute]
    ) -> Outcome:
        """Move `ops` into `block`, turning their exits into an `Outcome`."""
        for i, op in enumerate(ops):
            if isinstance(op, ct.BreakOp | ct.ContinueOp) and owning_loop(op) is self.loop:
                carried = list(op.operands)
                if isinstance(op, ct.BreakOp) and len(carried) != len(self.carried_types):
                    # A break carries the loop results: put them after the iteration slots.
                    carried = [*self.fillers[: len(self.carried_types) - len(carried)], *carried]
                elif len(carried) != len(self.carried_types):
                    carried = [*carried, *self.fillers[len(carried) :]]
                outcome = Outcome(
                    self.flag(block, True),
                    self.flag(block, isinstance(op, ct.ContinueOp)),
                    carried,
                    self.placeholders(block, fallthrough_types, op),
                )
                op.detach()
                op.erase()
                return outcome
            if isinstance(op, ct.YieldOp):
                outcome = Outcome(
                    self.flag(block, False),
                    self.flag(block, True),
                    list(self.fillers),
                    list(op.operands),
                )
                op.detach()
                op.erase()
                return outcome
            if isinstance(op, ct.IfOp) and exits_loop(op, self.loop):
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
        shape = [i1, i1, *self.carried_types, *own_types]
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
        n = len(self.carried_types)
        exited, keep = branch.results[0], branch.results[1]
        carried = list(branch.results[2 : 2 + n])
        for old, new in zip(op.results, branch.results[2 + n :], strict=True):
            old.replace_all_uses_with(new)
        op.detach()
        op.erase()
        # The rest of the sequence runs only when the if did not exit.
        after_shape = [i1, i1, *self.carried_types, *fallthrough_types]
        taken = Block()
        taken.add_op(
            scf.YieldOp(
                exited, keep, *carried, *self.placeholders(taken, fallthrough_types, branch)
            )
        )
        not_taken = Block()
        outcome = self.sequence(rest, not_taken, fallthrough_types)
        not_taken.add_op(scf.YieldOp(*outcome.values()))
        guard = scf.IfOp(exited, after_shape, Region(taken), Region(not_taken))
        guard.location = branch.location
        block.add_op(guard)
        return Outcome(
            guard.results[0],
            guard.results[1],
            list(guard.results[2 : 2 + n]),
            list(guard.results[2 + n :]),
        )


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


def lower_early_exits(root: Operation) -> None:
    """Rewrite every `cuda_tile.loop` and every `for` that continues from inside an
    `if`, innermost first."""
    for op in list(root.walk(region_first=True)):
        if isinstance(op, ct.LoopOp):
            lower_loop(op)
        elif isinstance(op, ct.ForOp) and any(
            isinstance(inner, ct.IfOp) and exits_loop(inner, op) for inner in op.region.walk()
        ):
            lower_for_exits(op)
