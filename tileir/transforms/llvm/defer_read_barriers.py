"""`llvm-defer-read-barriers`: a CTA barrier that only closes reads of shared memory waits
until a write of shared memory needs it, and goes where none follows.

Every user of the kernel's shared-memory arena (an exchange, the cross-warp step of a
reduction or scan, an atomic's old values; `conversions/tileas_to_llvm/shared_arena.py`)
writes, waits at `bar.sync 0`, reads, and waits again, so that the next user cannot
overwrite what a slower thread has yet to read.  The second barrier is where it is only
because the lowering emits each user on its own.  Placed right after the reads, it makes
every thread finish all of them before it goes on: a 128x64 f32 transpose read back into
the registers of a 16-byte-vector store (64 words a thread) holds all 64 words, plus the
store's addresses and predicates, at the barrier (x_permute_2d_f32 on sm_90a: 91
registers where tileiras's cubin takes 86); without it ptxas interleaves the reads with
the stores.

The pass moves each such barrier down its block to just before the first op that may
write shared memory, and erases it where no path from it reaches a write of shared memory
before another `bar.sync 0` or the kernel's end.  Sound (PTX ISA 9.7.13.1, `bar.sync`:
memory accesses requested before the barrier are performed relative to all threads of the
CTA before those after it) because of what a barrier qualifies for:

* its *window*, the ops since the previous `bar.sync 0` in the same block, only read shared
  memory or compute (`ld.shared`, arithmetic): everything before that previous barrier is
  still ordered by it, so what the moved barrier could reorder is the window's reads;
* between its old and its new place (or, when it goes, up to the next barrier on every
  path) nothing writes shared memory: reads and global accesses there cannot conflict with
  the window's shared reads.

Anything the pass cannot classify counts against it: an unknown instruction in inline PTX,
a call, a store through a generic or shared pointer, a named barrier.  A barrier inside a
loop body whose next iteration writes the buffer again stays before the loop's back edge;
one in a block that a later write follows is kept, only later.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from tileir.dialects import nvvm
from tileir.transforms.llvm.sink_tmem_loads import is_pure
from tileir.utils.walk import ops_of

#: Opcode roots of PTX instructions that only compute registers (what the lowering's
#: inline PTX around its loads and stores uses: predicates, moves, address arithmetic).
_COMPUTE = frozenset(
    {"mov", "and", "or", "xor", "not", "setp", "selp", "cvt", "add", "sub", "mul", "mad"}
    | {"shl", "shr", "prmt", "min", "max", "neg"}
)

#: Address spaces whose stores cannot reach shared memory (global, local).
_NOT_SHARED = (1, 5)

_STATEMENT_END = re.compile(r"[;\n]")


@dataclass(frozen=True)
class Access:
    """What one op does to memory, as far as a barrier cares."""

    writes_shared: bool  # may write shared memory (unknown ops do)
    only_reads_shared: bool  # computes, or reads shared memory, and nothing else


_PURE = Access(writes_shared=False, only_reads_shared=True)
_UNKNOWN = Access(writes_shared=True, only_reads_shared=False)


def _space(pointer_type: object) -> int | None:
    if isinstance(pointer_type, llvm.LLVMPointerType) and isinstance(
        pointer_type.addr_space, IntAttr
    ):
        return pointer_type.addr_space.data
    return None


def _ptx_access(text: str) -> Access:
    """Classify inline PTX statement by statement (guards, braces, `.reg` declarations
    and labels skipped): `ld.shared` reads shared memory, any other `ld` reads something
    else, `st`/`red`/`atom` write shared memory unless `.global`/`.local`, the register
    arithmetic of `_COMPUTE` touches nothing; any other instruction is unknown."""
    writes = False
    only_shared_reads = True
    for statement in _STATEMENT_END.split(text):
        words = statement.split()
        if words and words[0].startswith("@"):
            words = words[1:]
        if not words or words[0] in "{}" or words[0].startswith(".") or words[0].endswith(":"):
            continue
        opcode = words[0]
        parts = opcode.split(".")
        if parts[0] in _COMPUTE:
            continue
        if parts[0] == "ld":
            only_shared_reads = only_shared_reads and "shared" in parts
            continue
        if parts[0] in ("st", "red", "atom"):
            writes = writes or not ("global" in parts or "local" in parts)
            only_shared_reads = False
            continue
        return _UNKNOWN
    return Access(writes_shared=writes, only_reads_shared=only_shared_reads)


def access(op: Operation) -> Access:
    """What `op` does to memory (module docstring): loads and stores by their pointer's
    address space, inline PTX by its instructions, pure ops nothing, anything else
    unknown."""
    if isinstance(op, llvm.InlineAsmOp):
        return _ptx_access(op.asm_string.data)
    if isinstance(op, llvm.LoadOp):
        return Access(writes_shared=False, only_reads_shared=_space(op.ptr.type) == nvvm.SHARED)
    if isinstance(op, llvm.StoreOp):
        return Access(writes_shared=_space(op.ptr.type) not in _NOT_SHARED, only_reads_shared=False)
    if not op.regions and is_pure(op):
        return _PURE
    return _UNKNOWN


def _closes_reads(barrier: nvvm.Barrier0Op) -> bool:
    """Whether the ops since the previous `bar.sync 0` of `barrier`'s block only read
    shared memory or compute (a window that reaches the block's start does not count)."""
    op = barrier.prev_op
    while op is not None:
        if isinstance(op, nvvm.Barrier0Op):
            return True
        if not access(op).only_reads_shared:
            return False
        op = op.prev_op
    return False


def _paths_write_shared(blocks: list[Block]) -> bool:
    """Whether a path from the start of any of `blocks` writes shared memory before it
    reaches a `bar.sync 0` or the kernel's end."""
    seen: set[Block] = set()
    stack = list(blocks)
    while stack:
        block = stack.pop()
        if block in seen:
            continue
        seen.add(block)
        for op in block.ops:
            if isinstance(op, nvvm.Barrier0Op):
                break
            if op is block.last_op:
                if not isinstance(op, llvm.ReturnOp | llvm.BrOp | llvm.CondBrOp):
                    return True
                stack.extend(op.successors)
                break
            if access(op).writes_shared:
                return True
    return False


def defer_barrier(barrier: nvvm.Barrier0Op) -> None:
    """Move `barrier` down to the first op of its block that may write shared memory, or
    erase it where none follows before the next barrier on any path (module docstring)."""
    if not _closes_reads(barrier):
        return
    block = barrier.parent_block()
    assert block is not None
    op = barrier.next_op
    while op is not None and op is not block.last_op:
        if isinstance(op, nvvm.Barrier0Op):
            barrier.detach()
            barrier.erase()
            return
        if access(op).writes_shared:
            break
        op = op.next_op
    if op is None:
        return
    if (
        op is block.last_op
        and isinstance(op, llvm.ReturnOp | llvm.BrOp | llvm.CondBrOp)
        and not _paths_write_shared(list(op.successors))
    ):
        barrier.detach()
        barrier.erase()
        return
    if op is not barrier.next_op:
        barrier.detach()
        block.insert_op_before(barrier, op)


@dataclass(frozen=True)
class DeferReadBarriersPass(ModulePass):
    """Barriers that only close reads of shared memory, moved down to the next write of
    shared memory or erased where none follows (module docstring)."""

    name = "llvm-defer-read-barriers"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for barrier in [o for o in ops_of(op) if isinstance(o, nvvm.Barrier0Op)]:
            if barrier.parent is not None:
                defer_barrier(barrier)
