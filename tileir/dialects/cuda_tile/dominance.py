"""SSA dominance inside a cuda_tile function, as MLIR's verifier checks it.

Every region of a cuda_tile function (`entry`, `testing$func`) and of the ops in it
(`if`, `for`, `loop`, `reduce`, `scan`) is one block, so a value dominates a use when
it is an argument of the use's block or of a block around it, or the result of an op
that comes earlier in one of those blocks.  A value defined inside a region is not
visible after the op that owns the region, an op's results are not visible inside its
own regions, and nothing from outside the function is visible in it (the function is
isolated from above).

The text parser takes forward references (`%x = addi %x, %x`, a use above the
definition), as MLIR's does; this check is what rejects them, so that no later pass
reads a value before it exists (which compiled to PTX reading an unset register).

The walk keeps its own stack: nesting depth costs no Python recursion.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation, SSAValue


@dataclass
class UseBeforeDefinition:
    """Operand `index` of `user` is `value`, which does not dominate the use."""

    user: Operation
    index: int
    value: SSAValue

    @property
    def definition(self) -> Operation | None:
        """The op that defines the value (None for a block argument)."""
        owner = self.value.owner
        return owner if isinstance(owner, Operation) else None


@dataclass
class _Scope:
    """One block being walked: its ops still to visit, the values it made visible, the
    op that owns it and the blocks of that op still to walk after it."""

    ops: Iterator[Operation]
    defined: list[SSAValue]
    owner: Operation | None
    next_blocks: Iterator[Block] = field(default_factory=lambda: iter(()))


def first_use_before_definition(body: Block) -> UseBeforeDefinition | None:
    """The first use (in walk order) inside `body`, a function's body, of a value that
    does not dominate it; None when every use is dominated."""
    visible: set[SSAValue] = set(body.args)
    scopes = [_Scope(iter(body.ops), list(body.args), None)]
    while scopes:
        scope = scopes[-1]
        op = next(scope.ops, None)
        if op is None:
            scopes.pop()
            visible.difference_update(scope.defined)
            following = next(scope.next_blocks, None)
            if following is not None:
                visible.update(following.args)
                scopes.append(
                    _Scope(
                        iter(following.ops), list(following.args), scope.owner, scope.next_blocks
                    )
                )
            elif scope.owner is not None:
                # The owner's results become visible after its regions, in its block.
                scopes[-1].defined.extend(scope.owner.results)
                visible.update(scope.owner.results)
            continue
        for index, value in enumerate(op.operands):
            if value not in visible:
                return UseBeforeDefinition(op, index, value)
        blocks = iter([block for region in op.regions for block in region.blocks])
        first = next(blocks, None)
        if first is None:
            scope.defined.extend(op.results)
            visible.update(op.results)
            continue
        visible.update(first.args)
        scopes.append(_Scope(iter(first.ops), list(first.args), op, blocks))
    return None
