"""Interfaces of nv_tileas: memory consistency, pure tile structure, producers and agents,
and the safe-rewrite predicate every canonicalization pattern shares (seeds 000, 002).

**MemoryConsistencyOp** (seed 000 "Memory Consistency Interface") marks the operations
whose ordering matters: async load/store/copy/dot, async waits, the async TMA transfers,
synchronous `copy`, `make_tiled_tma_desc`, `reduce` and `scan`.  Pure tile rewrites may
inspect them but never move, duplicate or erase them.  The pure tile-shaping ops
(`alloc_tensor`, `insert_slice`, `extract_slice`, `view`), `async.future_wait` and the
async pipeline region plumbing are deliberately *not* in the set.

**PureTileStructure** marks the four ops a match chain may walk through, with the operand
the chain continues along (`insert_slice`: its destination, `extract_slice`: its source,
`view`: its source; `alloc_tensor` starts every chain).

**The safe-rewrite predicate** (seed 000 "Safe-Rewrite Predicate"): `walk_tile_chain`
walks from a root value toward the op that defines the rewrite source, rejecting the
moment it meets a memory-consistency op or an op that is neither pure tile structure nor
a constant; it stops at a block boundary (a block argument), at a constant, or at a
fixed-point sink (`alloc_tensor` for the iter-arg decomposition, `insert_slice` for the
extract-from-insert fold).  `is_safe_to_rewrite` is the same condition for the set of
ops a pattern moves, duplicates or erases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xdsl.dialects.builtin import DenseArrayBase
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.traits import ConstantLike, OpTrait
from xdsl.utils.str_enum import StrEnum

from tileir.dialects.nv_tileas.syntax import int_array_values


class MemoryConsistencyOp(OpTrait):
    """The op's position in the memory order matters (seed 000).  Canonicalization may
    inspect it but must not move, duplicate or erase it, nor move pure ops across it."""


@dataclass(frozen=True)
class PureTileStructure(OpTrait):
    """A pure tile-shaping op a match chain may walk through (seed 000).  `chain_operand`
    names the operand the chain continues along; None for the start of a chain."""

    chain_operand: str | None = None


class PureRegionOp(OpTrait):
    """The op's region is pure tile computation: rewrites may move, duplicate or erase the
    whole op (so ordered memory accesses must not sit inside it)."""


class ProducerOp(OpTrait):
    """Seed 002 "Producer Interface": the op's first region produces pipeline values
    (produce_one, produce_one_async, producer_write)."""


class ConsumerOp(OpTrait):
    """The consumer-side counterpart: consume_one, consume_one_async, consumer_read."""


class AgentLikeOp(OpTrait):
    """Seed 002 "Agent-Like Interface": the op's regions are agent bodies with per-agent
    register budgets (agent_switch)."""


def is_memory_consistency_op(op: Operation) -> bool:
    """Does `op` carry the MemoryConsistencyOp trait?"""
    return op.has_trait(MemoryConsistencyOp)


def is_pure_tile_structure(op: Operation) -> bool:
    return op.get_trait(PureTileStructure) is not None


def is_constant(op: Operation) -> bool:
    return op.has_trait(ConstantLike)


def get_producer_region(op: Operation) -> Region | None:
    """The region that generates producer values, or None (seed 002)."""
    return op.regions[0] if op.has_trait(ProducerOp) and op.regions else None


def get_consumer_region(op: Operation) -> Region | None:
    return op.regions[0] if op.has_trait(ConsumerOp) and op.regions else None


#: `max_regs` entry meaning "inherit the enclosing budget" (seed 002).
INHERIT_REGISTER_BUDGET = -1


def quantize_agent_warps(max_regs: int) -> int:
    """Seed 002's quantization of a register budget to a warp-count-like unit, verbatim:
    `8 * ceil_div(max_regs + 7, 8)`; the inherit sentinel passes through."""
    if max_regs == INHERIT_REGISTER_BUDGET:
        return INHERIT_REGISTER_BUDGET
    return 8 * -(-(max_regs + 7) // 8)


def get_agent_warp_counts(op: Operation) -> list[int]:
    """One resolved warp count per agent body (INHERIT_REGISTER_BUDGET where inherited)."""
    if not op.has_trait(AgentLikeOp):
        return []
    budgets = op.properties.get("max_regs")
    values = int_array_values(budgets) if isinstance(budgets, DenseArrayBase) else ()
    return [quantize_agent_warps(v) for v in values]


# ---------------------------------------------------------------------------
# The safe-rewrite predicate.
# ---------------------------------------------------------------------------


class ChainStop(StrEnum):
    """Why `walk_tile_chain` stopped."""

    #: Reached an op `is_sink` accepts (the chain's fixed point); included in `ops`.
    SINK = "sink"
    #: Reached the start of a chain (`alloc_tensor`) that is not the sink.
    ORIGIN = "origin"
    #: Reached a block argument (loop iter-arg, branch or function argument).
    BLOCK_BOUNDARY = "block_boundary"
    #: Reached a constant.
    CONSTANT = "constant"
    #: Aborted: a memory-consistency op.
    MEMORY_CONSISTENCY = "memory_consistency"
    #: Aborted: an op that is neither pure tile structure nor a constant.
    NOT_PURE = "not_pure"


@dataclass
class TileChain:
    """The result of a chain walk."""

    start: SSAValue
    stop: ChainStop
    #: The value where the walk stopped (the sink's, origin's or blocker's result, or
    #: the block argument).
    end: SSAValue
    #: Pure tile-structure ops walked, from the root toward the source (sink last).
    ops: list[Operation] = field(default_factory=list[Operation])

    @property
    def ok(self) -> bool:
        """The chain crossed no memory-consistency op and no impure op."""
        return self.stop not in (ChainStop.MEMORY_CONSISTENCY, ChainStop.NOT_PURE)

    @property
    def sink(self) -> Operation | None:
        return self.ops[-1] if self.stop is ChainStop.SINK else None

    @property
    def blocker(self) -> Operation | None:
        """The op that aborted the walk."""
        if self.ok:
            return None
        assert isinstance(self.end, OpResult)
        return self.end.op

    @property
    def block_argument(self) -> BlockArgument | None:
        return self.end if isinstance(self.end, BlockArgument) else None


def chain_operand(op: Operation) -> SSAValue | None:
    """The operand a chain continues along through pure tile-structure `op`."""
    trait = op.get_trait(PureTileStructure)
    if trait is None or trait.chain_operand is None:
        return None
    value = getattr(op, trait.chain_operand)
    assert isinstance(value, SSAValue)
    return value


def walk_tile_chain(
    value: SSAValue,
    is_sink: Callable[[Operation], bool] = lambda op: False,
    *,
    limit: Block | None = None,
) -> TileChain:
    """Walk from `value` toward its source through pure tile structure (seed 000).

    Each step looks at the defining op of the current value: a memory-consistency op
    aborts (MEMORY_CONSISTENCY), an op `is_sink` accepts ends the walk (SINK), a constant
    ends it (CONSTANT), a pure tile-structure op is recorded and the walk continues along
    its chain operand (ORIGIN when it has none), anything else aborts (NOT_PURE).  A
    block argument, or a value defined outside `limit` when one is given, is a block
    boundary."""
    chain = TileChain(value, ChainStop.BLOCK_BOUNDARY, value)
    current = value
    while True:
        chain.end = current
        if isinstance(current, BlockArgument):
            chain.stop = ChainStop.BLOCK_BOUNDARY
            return chain
        assert isinstance(current, OpResult)
        op = current.op
        if limit is not None and op.parent_block() is not limit:
            chain.stop = ChainStop.BLOCK_BOUNDARY
            return chain
        if is_memory_consistency_op(op):
            chain.stop = ChainStop.MEMORY_CONSISTENCY
            return chain
        if is_sink(op):
            chain.ops.append(op)
            chain.stop = ChainStop.SINK
            return chain
        if is_constant(op):
            chain.stop = ChainStop.CONSTANT
            return chain
        if not is_pure_tile_structure(op):
            chain.stop = ChainStop.NOT_PURE
            return chain
        chain.ops.append(op)
        following = chain_operand(op)
        if following is None:
            chain.stop = ChainStop.ORIGIN
            return chain
        current = following


def is_safe_to_rewrite(ops: Iterable[Operation]) -> bool:
    """Every op a pattern moves, duplicates or erases is pure tile structure or a constant,
    and none is a memory-consistency op (seed 000)."""
    return all(
        not is_memory_consistency_op(op) and (is_pure_tile_structure(op) or is_constant(op))
        for op in ops
    )
