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
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import is_side_effect_free

from tileir.backend.ptx.memory_asm import is_unpack_word
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
    return is_side_effect_free(op)


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

    def emit(root: Operation) -> None:
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
    ops = list(block.ops)
    for op in ops:
        if op in movable:
            if is_tmem_load(op):
                pending.append(op)
            continue
        if writes_tmem(op) or op is block.last_op:
            for load in pending:
                emit(load)
            pending.clear()
        if op is block.last_op:
            for rest in ops:
                if rest in movable:
                    emit(rest)
        emit(op)
    assert len(order) == len(ops)
    if order == ops:
        return True
    for op in ops:
        op.detach()
    for op in order:
        block.add_op(op)
    return True


@dataclass(frozen=True)
class SinkTmemLoadsPass(ModulePass):
    """Tensor-memory loads and their pure users just before their first use (module
    docstring)."""

    name = "llvm-sink-tmem-loads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not any(is_tmem_load(o) or is_unpack_word(o) for o in ops_of(op)):
            return
        blocks = [b for o in op.walk() for r in o.regions for b in r.blocks]
        for block in blocks:
            schedule_block(block)
