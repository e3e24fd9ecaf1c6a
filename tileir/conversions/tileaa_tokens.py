"""Token hop two (seed 004, "Memory Token Lowering", "Mem-Token Lifecycle"): asynchronous
mem tokens become mbarriers.

A token is asynchronous when its `nv_tileaa.create_mem_token` has `num_producers` > 0:
that many asynchronous producers (TMA transfers, bulk copies, MMA commits) complete it
by arriving on its barrier.  Hop two, run by `convert-tileaa-to-tileas`:

1. **Slots.**  Every asynchronous token claims one mbarrier slot from its CTA's pool of
   32, in program order per kernel.  Exhausting the pool is a hard diagnostic, never a
   fallback to software ordering.
2. **Create → init.**  The token becomes its slot, a 32-bit handle
   (`llvm.mlir.constant`), and the mbarrier at that slot
   (`nvvm.mbarrier.pool.address`) is initialized with the producer count
   (`nvvm.mbarrier.init.shared`, phase 0).  The inits of a kernel are placed at the
   top of its body, done by thread 0 alone, and followed by one CTA barrier
   (`nvvm.barrier0`), so every thread sees initialized barriers before it waits on
   one, and no arrival can race an init.
3. **Join → parity waits.**  A `join_mem_token` becomes a chain of
   `nvvm.mbarrier.try_wait.parity.shared`, phase parity 0, one per asynchronous input
   in operand order: the joined token is complete only when every input producer has
   arrived.  Its synchronous inputs stay joined (a synchronous `join_mem_token`, the
   single input itself, or a fresh token that follows nothing), so the ordering the
   LLVM lowering derives from them is kept.
4. **Direct uses.**  A `load`, `store`, `atomic_rmw` or `atomic_cas` whose input token
   is asynchronous waits the same way first, then takes a fresh synchronous token.

Synchronous tokens (`num_producers` = 0, everything cuTile's `make_token` produces)
need no barrier: program order and CTA barriers order them, they keep their nv_tileaa
form down to `convert-tileas-to-llvm`, and a module without asynchronous tokens is
left exactly as it was.

Each barrier completes one phase (the token is created once per kernel), so parity 0
is the phase to wait for.  Not supported yet, with a diagnostic: an asynchronous token
created inside a loop or branch (re-arming its barrier needs phase tracking) and one
used by anything but a join or a memory access (loop-carried, yielded, returned).

The token types follow seed 004's five steps: the replacement tokens are built with
the type `infer_mem_token_type` caches for the function, and the scope's cache records
what its asynchronous tokens lowered to (`i32`, the slot handle).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from tileir.diagnostics import error_at, not_supported
from tileir.dialects import nvvm
from tileir.dialects.nv_tileaa import ops as aa
from tileir.dialects.nv_tileaa.ops.tokens import cache_for, infer_mem_token_type, token_scope

#: mbarriers per CTA available to mem tokens (seed 004, "Buffer Assignment and
#: Mbarriers — Phase 2").
MBARRIER_POOL = nvvm.MBARRIER_POOL_SIZE
SLOT_ATTR = "nv_tileaa.mbarrier_slot"

#: The ops whose input token may be asynchronous: they wait for it first.
MEMORY_OPS = (aa.LoadOp, aa.StoreOp, aa.AtomicRmwOp, aa.AtomicCasOp)


def kernel_of(op: Operation) -> Operation:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent.parent_op(), ModuleOp | None):
        parent = parent.parent_op()
    return parent if parent is not None else op


def assign_mbarrier_slots(module: ModuleOp) -> dict[Operation, list[aa.CreateMemTokenOp]]:
    """Give every asynchronous token its slot; returns them per kernel."""
    per_kernel: dict[Operation, list[aa.CreateMemTokenOp]] = {}
    for op in module.walk():
        if isinstance(op, aa.CreateMemTokenOp) and op.is_async:
            claimed = per_kernel.setdefault(kernel_of(op), [])
            if len(claimed) == MBARRIER_POOL:
                raise error_at(
                    op,
                    f"needs an mbarrier, but the CTA's pool of {MBARRIER_POOL} is exhausted by "
                    "the asynchronous tokens before it in this kernel: join tokens "
                    "(join_tokens) or make fewer of them",
                )
            op.attributes[SLOT_ATTR] = IntegerAttr(len(claimed), i32)
            claimed.append(op)
    return per_kernel


@dataclass
class Barrier:
    """A lowered asynchronous token: its slot handle and its mbarrier's address."""

    handle: SSAValue
    address: SSAValue


def lower_mem_tokens(module: ModuleOp) -> None:
    """Hop two for every kernel with asynchronous tokens (see the module docstring)."""
    for kernel, tokens in assign_mbarrier_slots(module).items():
        _lower_kernel_tokens(kernel, tokens)


def _entry_block(kernel: Operation) -> Block:
    if not kernel.regions or kernel.regions[0].blocks.first is None:
        raise error_at(
            kernel, "asynchronous mem tokens need a kernel body to initialize their mbarriers in"
        )
    return kernel.regions[0].blocks.first


def _lower_kernel_tokens(kernel: Operation, tokens: list[aa.CreateMemTokenOp]) -> None:
    entry = _entry_block(kernel)
    for op in tokens:
        if op.parent_block() is not entry:
            raise not_supported(
                op,
                "an asynchronous mem token created inside a loop or branch: re-arming its "
                "mbarrier on every execution needs phase tracking",
                instead="make the token once, before the loop or branch, and pass it in",
            )
        for use in op.result.uses:
            user = use.operation
            if not isinstance(user, (aa.JoinMemTokenOp, *MEMORY_OPS)):
                raise not_supported(
                    user,
                    f"an asynchronous mem token ({op.producers} producers) used by '{user.name}': "
                    "only joins and memory accesses can wait for its mbarrier",
                    instead="pass the token only to join_tokens and to loads and stores",
                )
    barriers, phase = _initialize(entry, tokens)

    joins: list[aa.JoinMemTokenOp] = []
    accesses: list[Operation] = []
    for op in tokens:
        for use in list(op.result.uses):
            user = use.operation
            if isinstance(user, aa.JoinMemTokenOp):
                if user not in joins:
                    joins.append(user)
            elif user not in accesses:
                accesses.append(user)
    for join in joins:
        _lower_join(join, barriers, phase)
    for access in accesses:
        _lower_access(access, barriers, phase)
    for op in tokens:
        cache_for(token_scope(op)).lowered[op.result.type] = i32  # pyright: ignore[reportArgumentType]
        assert not op.result.uses
        Rewriter.erase_op(op)


def _initialize(
    entry: Block, tokens: list[aa.CreateMemTokenOp]
) -> tuple[dict[SSAValue, Barrier], SSAValue]:
    """Thread 0 initializes every barrier of the kernel at the top of its body; one CTA
    barrier then publishes the inits.  Returns the barriers by token and the phase
    parity the waits test (0)."""
    prologue: list[Operation] = []
    tid = nvvm.TidXOp()
    zero = llvm.ConstantOp(IntegerAttr(0, i32), i32)
    leader = llvm.ICmpOp(tid.res, zero.result, IntegerAttr(llvm.ICmpPredicateFlag.EQ.to_int(), i64))
    prologue += [tid, zero, leader]
    barriers: dict[SSAValue, Barrier] = {}
    for slot, op in enumerate(tokens):
        handle = llvm.ConstantOp(IntegerAttr(slot, i32), i32)
        address = nvvm.MBarrierPoolAddressOp(handle.result, len(tokens))
        count = llvm.ConstantOp(IntegerAttr(op.producers, i32), i32)
        init = nvvm.MBarrierInitSharedOp(address.res, count.result, leader.res)
        prologue += [handle, address, count, init]
        barriers[op.result] = Barrier(handle.result, address.res)
    phase = llvm.ConstantOp(IntegerAttr(0, i32), i32)
    prologue += [nvvm.Barrier0Op(), phase]
    first = entry.first_op
    if first is None:
        entry.add_ops(prologue)
    else:
        entry.insert_ops_before(prologue, first)
    return barriers, phase.result


def _wait(barrier: Barrier, phase: SSAValue, before: Operation) -> None:
    Rewriter.insert_op(
        nvvm.MBarrierTryWaitParitySharedOp(barrier.address, phase), InsertPoint.before(before)
    )


def _lower_join(
    join: aa.JoinMemTokenOp, barriers: dict[SSAValue, Barrier], phase: SSAValue
) -> None:
    """A chain of parity waits, one per asynchronous input; the synchronous inputs stay
    joined."""
    synchronous: list[SSAValue] = []
    for token in join.tokens:
        barrier = barriers.get(token)
        if barrier is None:
            synchronous.append(token)
        else:
            _wait(barrier, phase, join)
    replacement: SSAValue
    if len(synchronous) == 1:
        replacement = synchronous[0]
    else:
        new: Operation
        if synchronous:
            new = aa.JoinMemTokenOp(synchronous, infer_mem_token_type(join, synchronous))
        else:
            new = aa.CreateMemTokenOp(0, infer_mem_token_type(join))
        Rewriter.insert_op(new, InsertPoint.before(join))
        replacement = new.results[0]
    join.result.replace_all_uses_with(replacement)
    Rewriter.erase_op(join)


def _lower_access(access: Operation, barriers: dict[SSAValue, Barrier], phase: SSAValue) -> None:
    """Wait for the asynchronous input token, then follow a fresh synchronous one."""
    assert isinstance(access, MEMORY_OPS)
    token = access.token
    assert token is not None
    _wait(barriers[token], phase, access)
    fresh = aa.CreateMemTokenOp(0, infer_mem_token_type(access))
    Rewriter.insert_op(fresh, InsertPoint.before(access))
    access.operands = [fresh.result if operand is token else operand for operand in access.operands]


def fresh_token(rewriter: PatternRewriter) -> SSAValue:
    """A synchronous mem token that follows nothing, at the rewriter's insertion point:
    what stands for a token an op no longer produces (or never had) until
    `tileas-insert-barriers` drops the tokens."""
    op = aa.CreateMemTokenOp()
    rewriter.insert(op)
    return op.result
