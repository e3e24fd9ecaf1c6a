"""`tileas-sink-loads`: a tile a kernel's straight-line code loads from global memory,
placed just before its first user where shared-memory exchanges lie between.

The lowering emits each op where it stands, and a loaded tile's registers live from its
load to their last use.  A kernel that loads every tile first and then computes through
exchanges keeps the later tiles' registers through each exchange before their first
use, and ptxas does not move a global load, or the registers it fills, across the CTA
barriers of an exchange.  NVIDIA's FFT test (`t_fft_f32`: 512 threads, so 128
registers) loads its 16x256 twiddle tile (16 registers a thread) at the top and first
uses it after the first stage's four batched products, each of which goes through
shared memory; the tile's registers beside the products' spilled 24 bytes on sm_90a
(12 on sm_100a).

Here such a load goes down to right before the first op of its block that uses one of
its results, past ops that write no memory (`may_write_memory`), and only where one of
them goes through the exchanges' arena (a dot, or any op `ring_budget.op_bound` gives
bytes): elsewhere ptxas schedules the load as it likes.  Sound because no thread of the
CTA writes memory between the load's two places (every thread runs the same
straight-line code), so it reads the same bytes; writes of other CTAs are unordered with
a weak load either way.  Only the function's own block (not a loop body, whose loads
`tileas-pipeline-dot-operands` places), and only the loads themselves: their address
and mask tiles stay where they are (they are defined before, so they still dominate).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.dialects.nv_tileas import ops as tas
from tileir.transforms.tileas.assign_layouts import NUM_WARPS_ATTR
from tileir.transforms.tileas.materialize_schedule import may_write_memory
from tileir.transforms.tileas.ring_budget import MAX_WARPS, op_bound


def exchanges(op: Operation, warps: int) -> bool:
    """Whether `op` (or an op nested in it) goes through the exchanges' arena: a dot, or
    an op `ring_budget.op_bound` gives bytes."""
    return any(isinstance(sub, tas.DotOp) or op_bound(sub, set(), warps) > 0 for sub in op.walk())


def load_slice(load: tas.TiledLoadOp, position: dict[Operation, int]) -> list[Operation]:
    """`load` and the ops of its block after it computed from it alone (each operand a
    result of the slice or defined before `load`), that write no memory and hold no
    region: the extracts and views that split a loaded tile, which move with it.
    `position` numbers the block's ops."""
    ops: list[Operation] = [load]
    ours = set(load.results)
    first = position[load]
    op = load.next_op
    while op is not None:
        computed = any(v in ours for v in op.operands) and all(
            v in ours or not isinstance(v.owner, Operation) or position.get(v.owner, -1) < first
            for v in op.operands
        )
        if computed and not op.regions and not may_write_memory(op):
            ops.append(op)
            ours.update(op.results)
        op = op.next_op
    return ops


def first_user(
    ops: list[Operation], block: Block, position: dict[Operation, int]
) -> Operation | None:
    """The first op of `block` outside `ops` that uses a result of one of them (itself
    or through an op nested in it)."""
    inside = set(ops)
    users: list[Operation] = []
    for op in ops:
        for result in op.results:
            for use in result.uses:
                user: Operation | None = use.operation
                while user is not None and user.parent is not block:
                    user = user.parent_op()
                if user is not None and user not in inside:
                    users.append(user)
    return min(users, key=position.__getitem__, default=None)


def sink_target(
    load: tas.TiledLoadOp, block: Block, warps: int
) -> tuple[list[Operation], Operation] | None:
    """The ops that move with `load` and the op they go right before (module doc), or
    None where they stay."""
    position = {op: i for i, op in enumerate(block.ops)}
    ops = load_slice(load, position)
    user = first_user(ops, block, position)
    if user is None:
        return None
    ops = [op for op in ops if position[op] < position[user]]
    inside = set(ops)
    between = [op for op in block.ops if position[load] < position[op] < position[user]]
    between = [op for op in between if op not in inside]
    if any(may_write_memory(op) for op in between):
        return None
    if not any(exchanges(op, warps) for op in between):
        return None
    return ops, user


@dataclass(frozen=True)
class SinkLoadsPass(ModulePass):
    """Place each global tile load of a kernel's own block just before its first user
    where shared-memory exchanges and no memory writes lie between (module doc)."""

    name = "tileas-sink-loads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [o for o in op.walk() if isinstance(o, func.FuncOp)]:
            if not fn.body.blocks:
                continue
            block = fn.body.blocks[0]
            warps = _warps(fn)
            for load in [o for o in block.ops if isinstance(o, tas.TiledLoadOp)]:
                target = sink_target(load, block, warps)
                if target is None:
                    continue
                ops, user = target
                for moved in ops:
                    moved.detach()
                    Rewriter.insert_op(moved, InsertPoint.before(user))


def _warps(fn: func.FuncOp) -> int:
    """The kernel's warps (`tileas-assign-layouts`), or the most a CTA has."""
    attr = fn.attributes.get(NUM_WARPS_ATTR)
    return attr.value.data if isinstance(attr, IntegerAttr) else MAX_WARPS
