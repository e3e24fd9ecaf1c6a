"""Where the future of a ring's `async.tiled_load` ends up: the `future_wait` it
reaches through the loops that carry it, and the dot operand that wait's tile is
(docs/codegen.md, "The K loop as a pipeline").  Shared by the lowering's ring plan
(`tileas_to_llvm/async_copy.py`) and `tileas-tma-feeds`, which must agree on which
dot a load feeds."""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import SSAValue

from tileir.dialects.cuda_tile import ops as ct
from tileir.dialects.nv_tileas import ops as tas
from tileir.transforms.tileas.tf32_operands import ROUNDED_IN_SHARED_ATTR


def consumer_of(value: SSAValue, seen: set[int] | None = None) -> tuple[tas.DotOp, int] | None:
    """The dot operand a future ends up feeding, through the loops that carry it."""
    wait = wait_of(value, set() if seen is None else seen)
    return None if wait is None else dot_of(wait)


def wait_of(value: SSAValue, seen: set[int]) -> tas.FutureWaitOp | None:
    """The wait a future ends up at, through the loops that carry it."""
    if id(value) in seen:
        return None
    seen.add(id(value))
    for use in value.uses:
        user = use.operation
        found: tas.FutureWaitOp | None = None
        if isinstance(user, scf.ForOp) and use.index >= 3:
            found = wait_of(user.body.block.args[use.index - 2], seen)
        elif isinstance(user, scf.YieldOp) and isinstance(user.parent_op(), scf.ForOp):
            loop = user.parent_op()
            assert isinstance(loop, scf.ForOp)
            found = wait_of(loop.body.block.args[use.index + 1], seen)
        elif isinstance(user, tas.FutureWaitOp):
            found = user
        if found is not None:
            return found
    return None


def dot_of(wait: tas.FutureWaitOp) -> tuple[tas.DotOp, int] | None:
    """The dot operand `wait`'s tile is: directly, or rounded to tf32 in its slot first
    (`ring_rounding.py`)."""
    uses = list(wait.result.uses)
    user = uses[0].operation if len(uses) == 1 else None
    if isinstance(user, ct.FToFOp) and ROUNDED_IN_SHARED_ATTR in user.attributes:
        uses = list(user.result.uses)
    if len(uses) == 1 and isinstance(uses[0].operation, tas.DotOp) and uses[0].index in (0, 1):
        return uses[0].operation, uses[0].index
    return None


def rounded(wait: tas.FutureWaitOp) -> bool:
    """Whether `wait`'s tile is rounded to tf32 in its slot (`ring_rounding.py`)."""
    uses = list(wait.result.uses)
    user = uses[0].operation if len(uses) == 1 else None
    return isinstance(user, ct.FToFOp) and ROUNDED_IN_SHARED_ATTR in user.attributes
