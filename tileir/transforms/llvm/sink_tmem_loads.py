"""`llvm-sink-tmem-loads`: each `tcgen05.ld` of a kernel, and the pure arithmetic on
what it loaded, placed just before their first use (sm_100a).

`convert-tileas-to-llvm` lowers a tile op by op: reading a 256-column accumulator back
from tensor memory loads all 256 registers of a thread before the first conversion or
store that consumes them, and each later op then takes every register in turn.  Each
value is live from its `tcgen05.ld` to the last op of the chain, so a 256x256 f32
accumulator read by 8 warps needs 256 registers at once (ptxas spills under any
`.maxnreg`), even though its epilogue (convert, scale, store) needs one column slice at
a time.  ptxas does not repair this: a `tcgen05.wait::ld` orders every earlier
`tcgen05.ld`, and it does not move arithmetic across it.

This pass reorders each block of a kernel that reads tensor memory: its `tcgen05.ld`
blocks (each one load and its own `tcgen05.wait::ld`, as `tcgen05._read_accumulator`
writes them), and the side-effect-free ops computed from them alone (`llvm.fma`,
`llvm.maxnum`, `llvm.nvvm.ex2.approx` and the like count as such: `PURE_INTRINSICS`),
are emitted where their first user in the block needs them, and every other op keeps its
order.  The epilogue then runs slice by slice: load 32 columns, convert them, store
them, load the next 32.  CUTLASS's sm_100 epilogues read tensor memory the same way (a
subtile of columns at a time).

Why this is sound (PTX ISA 9.7.16.6.1, the memory consistency of tcgen05; 9.7.16.8.3,
"tcgen05.ld"): a load only moves
later, within its block (so it stays warp-uniform, as `.sync.aligned` requires), and
never past an op that writes or frees tensor memory (`tcgen05.mma`, `tcgen05.st`,
`tcgen05.cp`, `tcgen05.shift`, `tcgen05.dealloc`): the pending loads are emitted before
such an op.  Every such write is issued from code every thread runs (one elected thread,
after a CTA barrier), so a later load in a thread's program still sees tensor memory as
its first position did.

Bytes loaded from global memory move the same way, on every target: a load of 8-bit
elements returns its words and unpacks each word in a block of its own
(`memory_asm.unpack_word`), which this pass places before the first use of its bytes,
so a tile of bytes stays four to a register until it is used.  `mmaf_scaled`'s fp8
tiles (256x128 and 128x256 in NVIDIA's block-scaled samples, 128 bytes a thread each)
were 256 registers of bytes at the top of the K loop, all live through the four K
groups' dequantization.  Kernels with neither a `tcgen05.ld` nor a packed byte load are
left as they are.

So do the words a ring's wait reads back from its slot (`nv_tileas.read_from_slot`,
`async_copy.LowerFutureWait`; each `ld.shared` marked `SLOT_READ_ATTR`): the raw tile is
then read, converted and stored for the dot a slice at a time, not read whole at the
wait (NVIDIA's 256x128 block-scaled matmuls, 128 accumulator registers a thread, spilled
with the whole tile read at once).  Such a read moves later past pure ops, the
block's other loads and stores (those never write a ring's slot: only its copies,
inline assembly, do), waits on mbarriers, `wgmma` instructions and proxy fences, and
the CTA barriers that another one follows before any `cp.async` of the block (the
refill of a slot comes after a CTA barrier that follows every thread's read of it,
`AsyncFeeds.refill_barriers`: the last barrier before a copy, or of the block, may be
that one); it is emitted before any other op (such a barrier, a copy, an arrival, a
call).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tileir.backend.ptx.memory_asm import is_unpack_word
from tileir.dialects import nvvm
from tileir.transforms.cse import side_effect_free
from tileir.utils.walk import ops_of

#: Opcodes of the instructions that write or free tensor memory (section 9.7.16).
TMEM_WRITERS = (
    "tcgen05.mma",
    "tcgen05.st",
    "tcgen05.cp",
    "tcgen05.shift",
    "tcgen05.dealloc",
    "tcgen05.alloc",
)


#: Intrinsics without side effects or memory accesses (LLVM LangRef, NVVM): a call to one
#: moves like the arithmetic it is.
PURE_INTRINSICS = (
    "llvm.maxnum.",
    "llvm.minnum.",
    "llvm.maximum.",
    "llvm.minimum.",
    "llvm.fma.",
    "llvm.fabs.",
    "llvm.smax.",
    "llvm.smin.",
    "llvm.umax.",
    "llvm.umin.",
    "llvm.nvvm.ex2.approx.",
    "llvm.nvvm.div.approx.",
    "llvm.nvvm.rcp.approx.",
)


def is_pure(op: Operation) -> bool:
    """Whether `op` only computes its results: xDSL says it has no side effects, or it
    calls one of `PURE_INTRINSICS`."""
    if isinstance(op, llvm.CallIntrinsicOp):
        return op.intrin.data.startswith(PURE_INTRINSICS)
    return side_effect_free(op)


def is_tmem_load(op: Operation) -> bool:
    """A self-contained read of tensor memory: one `llvm.inline_asm` holding a
    `tcgen05.ld` and the `tcgen05.wait::ld` after it."""
    if not isinstance(op, llvm.InlineAsmOp):
        return False
    text = op.asm_string.data
    return "tcgen05.ld." in text and "tcgen05.wait::ld" in text and not writes_tmem(op)


def writes_tmem(op: Operation) -> bool:
    """Whether `op` may write or free tensor memory, or is opaque (a call)."""
    if isinstance(op, llvm.CallOp):
        return True
    if not isinstance(op, llvm.InlineAsmOp):
        return False
    text = op.asm_string.data
    return any(w in text for w in TMEM_WRITERS)


#: On an `llvm.load` of words a ring's wait reads back from its slot (module docstring).
SLOT_READ_ATTR = "tileir.slot_read"


def mark_slot_read(word: SSAValue) -> None:
    """Mark the load that read `word` (one of `LLBuilder.load_words`'s results) as a read
    of a ring's slot (`SLOT_READ_ATTR`)."""
    owner = word.owner
    if isinstance(owner, llvm.ExtractValueOp):
        owner = owner.container.owner
    assert isinstance(owner, llvm.LoadOp)
    owner.attributes[SLOT_READ_ATTR] = UnitAttr()


def is_slot_read(op: Operation) -> bool:
    return isinstance(op, llvm.LoadOp) and SLOT_READ_ATTR in op.attributes


#: The opcodes of inline assembly past which a slot read does not move: a copy (whose
#: assembly holds every `st.shared` into a slot, `async_copy._copy`), a barrier, an
#: mbarrier operation other than a wait, a fence, a tensor-core instruction, an atomic
#: (loads, other stores, predicates and moves pass).
_ORDERING_OPCODES = (
    "cp.",
    "bar.",
    "barrier.",
    "mbarrier.",
    "fence",
    "membar",
    "wgmma",
    "tcgen05",
    "atom",
    "red",
    "setmaxnreg",
    "elect",
    "call",
)


def _orders_memory(text: str) -> bool:
    """Whether inline assembly `text` holds an instruction of `_ORDERING_OPCODES` (a
    wait on an mbarrier does not count)."""
    for statement in text.split(";"):
        # (Braces, labels and a guard before the opcode.)
        words = [w for w in statement.split() if w not in "{}" and not w.endswith(":")]
        if words and words[0].startswith("@"):
            words = words[1:]
        if not words:
            continue
        opcode = words[0]
        if opcode.startswith(("mbarrier.try_wait", "mbarrier.test_wait")):
            continue
        if opcode.startswith(_ORDERING_OPCODES):
            return True
    return False


def _is_copy(op: Operation) -> bool:
    return isinstance(op, llvm.InlineAsmOp) and "cp.async" in op.asm_string.data


def _passes_slot_reads(op: Operation, barriers: set[Operation]) -> bool:
    """Whether the slot reads pending before `op` may move past it: a pure op, a load
    or a store of the block, a wait on an mbarrier, a `wgmma` or a proxy fence, or a
    CTA barrier of `barriers` (`_passable_barriers`; module docstring)."""
    if is_pure(op) or isinstance(op, llvm.LoadOp | llvm.StoreOp):
        return True
    if isinstance(op, nvvm.Barrier0Op):
        return op in barriers
    if isinstance(op, nvvm.FenceProxyOp | nvvm.WgmmaSyncOp | nvvm.WgmmaMmaAsyncOp):
        # (The tensor cores read shared memory and write registers; the fence orders
        # this thread's writes for them.)
        return True
    if isinstance(op, llvm.InlineAsmOp):
        return not _orders_memory(op.asm_string.data)
    return False


def _passable_barriers(ops: list[Operation]) -> set[Operation]:
    """The CTA barriers of a block that a slot read may move past: those that another
    CTA barrier of the block follows before any `cp.async` (the last barrier before a
    copy, or of the block, may guard the refill of the slot)."""
    passable: set[Operation] = set()
    last: Operation | None = None
    for op in ops:
        if _is_copy(op):
            last = None
        elif isinstance(op, nvvm.Barrier0Op):
            if last is not None:
                passable.add(last)
            last = op
    return passable


def _movable(block: Block) -> set[Operation]:
    """The tensor-memory loads of `block`, its byte unpackings (`memory_asm.is_unpack_word`:
    one word in, its four bytes out, so a later place keeps one register live where the
    bytes took four), and the side-effect-free ops without regions (`is_pure`) that use
    (transitively) what those produced and nothing else the block computes: moving an op
    that also reads another value of the block (a partner's value a reduction loaded from
    shared memory) would keep that value live until the op's new place (measured:
    attention's cross-warp row maximum spilled 1.5x as much)."""
    movable: set[Operation] = set()
    for op in block.ops:
        if (
            is_tmem_load(op)
            or is_slot_read(op)
            or is_unpack_word(op)
            or (
                not op.regions
                and not op.successors
                and op.results
                and is_pure(op)
                and any(o.owner in movable for o in op.operands)
                and all(
                    o.owner in movable
                    for o in op.operands
                    if isinstance(o.owner, Operation) and o.owner.parent is block
                )
            )
        ):
            movable.add(op)
    return movable


def schedule_block(block: Block) -> bool:
    """Reorder `block` (module docstring); whether it held anything to move."""
    movable = _movable(block)
    if not movable:
        return False
    emitted: set[Operation] = set()
    order: list[Operation] = []

    def waiting(operand: SSAValue) -> bool:
        owner = operand.owner
        return isinstance(owner, Operation) and owner in movable and owner not in emitted

    def emit(root: Operation) -> None:
        if root in emitted:
            return
        if not any(map(waiting, root.operands)):  # (most ops: nothing to emit first)
            emitted.add(root)
            order.append(root)
            return
        # Depth first through the operands defined by movable ops not emitted yet.
        stack: list[tuple[Operation, bool]] = [(root, False)]
        while stack:
            op, ready = stack.pop()
            if op in emitted:
                continue
            if ready:
                emitted.add(op)
                order.append(op)
                continue
            stack.append((op, True))
            for operand in reversed(op.operands):
                owner = operand.owner
                if isinstance(owner, Operation) and owner in movable and owner not in emitted:
                    stack.append((owner, False))

    pending: list[Operation] = []
    slot_reads: list[Operation] = []
    ops = list(block.ops)
    barriers = _passable_barriers(ops) if any(is_slot_read(op) for op in movable) else set()
    for op in ops:
        if op in movable:
            if is_tmem_load(op):
                pending.append(op)
            elif is_slot_read(op):
                slot_reads.append(op)
            continue
        if writes_tmem(op) or op is block.last_op:
            for load in pending:
                emit(load)
            pending.clear()
        if not _passes_slot_reads(op, barriers) or op is block.last_op:
            for load in slot_reads:
                emit(load)
            slot_reads.clear()
        if op is block.last_op:
            for rest in ops:
                if rest in movable:
                    emit(rest)
        emit(op)
    assert len(order) == len(ops)
    # Only the ops from the first one out of place on are moved.
    first = next((i for i, (a, b) in enumerate(zip(order, ops, strict=True)) if a is not b), None)
    if first is None:
        return True
    for op in ops[first:]:
        op.detach()
    for op in order[first:]:
        block.add_op(op)
    return True


@dataclass(frozen=True)
class SinkTmemLoadsPass(ModulePass):
    """Tensor-memory loads and their pure users just before their first use (module
    docstring)."""

    name = "llvm-sink-tmem-loads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not any(is_tmem_load(o) or is_unpack_word(o) or is_slot_read(o) for o in ops_of(op)):
            return
        blocks = [b for o in op.walk() for r in o.regions for b in r.blocks]
        for block in blocks:
            schedule_block(block)
