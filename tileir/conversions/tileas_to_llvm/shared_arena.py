"""The kernel's static shared memory: one arena that every op passing values
between threads reuses, and one budget for the whole kernel.

Users: the exchanges of `shared_memory.py` (layout conversions, transposes,
cat/extract, insert, pack/unpack, reshapes, the operand buffers of `dot`), the
warp steps of a reduce and the carries of a scan that cross warps
(`reductions.py`), and the broadcast of an atomic's old values to copies in other
warps (`atomics.py`).

Each use is self-contained: its threads write, wait at a CTA barrier (`bar.sync
0`), read, and wait at another barrier before anything else touches shared memory;
threads run the same uses in the same order (branch conditions are uniform across
the CTA).  The first write of a use therefore comes after the last read of the
previous one, so no two uses are ever live at once, and each lays its buffers out
from the arena's start.  The arena (`tileir_xchg_<n>`, one `.shared` array
declared in the kernel's prologue) is as large as the largest use.

The budget is the kernel's 48 KiB of static shared memory less what the kernel
declares besides the arena: the mbarrier pool of its asynchronous mem tokens
(`nvvm.mbarrier.pool.address`, 8 bytes per mbarrier, which token hop two placed in
the kernel before this pass runs), rounded up to the arena's 16-byte alignment.  A
use needing more is reported at its op, with what it needed and what was free.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import llvm
from xdsl.dialects.builtin import StringAttr, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from tileir.conversions.tileas_to_llvm.context import FunctionState
from tileir.diagnostics import not_supported
from tileir.dialects import nvvm

#: Static shared memory a kernel may declare (bytes); more needs dynamic shared memory.
STATIC_SHARED_LIMIT = 48 * 1024

#: Alignment of the arena and of every buffer in it (bytes): 16-byte vector accesses.
ARENA_ALIGNMENT = 16

#: Bytes of one mbarrier object of the pool.
MBARRIER_BYTES = 8


def _align(size: int) -> int:
    return (size + ARENA_ALIGNMENT - 1) // ARENA_ALIGNMENT * ARENA_ALIGNMENT


@dataclass
class SharedArena:
    """The arena of one kernel: its declaration (resized as larger uses appear), its
    base address, and the addresses of the offsets handed out so far."""

    name: str
    declaration: llvm.InlineAsmOp
    address: SSAValue
    size: int = 0
    offsets: dict[int, SSAValue] = field(default_factory=dict)


@dataclass(frozen=True)
class SharedBudget:
    """What the arena of one kernel may take."""

    #: Bytes the kernel declares besides the arena (its mbarrier pool).
    mbarrier_bytes: int

    @property
    def available(self) -> int:
        """The largest arena that fits (the pool is counted at the arena's alignment,
        so that ptxas may place the two in either order)."""
        return STATIC_SHARED_LIMIT - _align(self.mbarrier_bytes)

    def explain(self) -> str:
        """How many bytes are available and why, for a diagnostic."""
        if not self.mbarrier_bytes:
            where = "all of the kernel's static shared memory"
        else:
            where = (
                f"the kernel's {STATIC_SHARED_LIMIT} bytes of static shared memory less "
                f"{_align(self.mbarrier_bytes)} for its mbarrier pool"
            )
        return f"{self.available} are available: {where}; dynamic shared memory is not used yet"


def kernel_budget(entry: Block) -> SharedBudget:
    """The budget of the kernel whose entry block is `entry`: its mbarrier pool is the
    largest `pool_size` among its `nvvm.mbarrier.pool.address` ops (the `ptx` target
    declares the pool once, that large)."""
    fn = entry.parent_op()
    pool = 0
    if fn is not None:
        for op in fn.walk():
            if isinstance(op, nvvm.MBarrierPoolAddressOp):
                pool = max(pool, op.size)
    return SharedBudget(pool * MBARRIER_BYTES)


def _budget(state: FunctionState) -> SharedBudget:
    """The budget of the kernel of `state`, computed once."""
    if state.shared_budget is None:
        state.shared_budget = kernel_budget(state.entry)
    return state.shared_budget


def available_bytes(state: FunctionState, beside: Sequence[int] = ()) -> int:
    """The bytes a use may still take beside buffers of `beside` bytes in the largest
    arena the kernel of `state` may declare (for a use that can choose a smaller
    layout when a larger one does not fit)."""
    return _budget(state).available - sum(_align(size) for size in beside)


def _declaration(name: str, size: int) -> str:
    return f".shared .align {ARENA_ALIGNMENT} .b8 {name}[{size}];\nmov.u32 $0, {name};"


def allocate_shared(
    op: Operation,
    state: FunctionState,
    rewriter: PatternRewriter,
    sizes: Sequence[int],
    what: str,
) -> list[SSAValue]:
    """32-bit shared addresses of 16-byte aligned buffers of `sizes` bytes, live
    together for one use at `op` (`what`, e.g. "an exchange", names it in the
    diagnostic), laid out from the start of the kernel's arena; the addresses are
    computed once in the kernel's prologue."""
    offsets: list[int] = []
    total = 0
    for size in sizes:
        offsets.append(total)
        total += _align(size)
    budget = _budget(state)
    if total > budget.available:
        raise not_supported(
            op, f"{what} needing {total} bytes of shared memory ({budget.explain()})"
        )
    arena = state.shared_arena
    b = state.prologue_builder(rewriter)
    if arena is None:
        name = f"tileir_xchg_{state.index}"
        (address,) = b.inline_asm(_declaration(name, total), "=r", [], [i32], True)
        declaration = address.owner
        assert isinstance(declaration, llvm.InlineAsmOp)
        arena = state.shared_arena = SharedArena(name, declaration, address, total)
    elif total > arena.size:
        arena.declaration.asm_string = StringAttr(_declaration(arena.name, total))
        arena.size = total
    out: list[SSAValue] = []
    for offset in offsets:
        if offset == 0:
            out.append(arena.address)
            continue
        if offset not in arena.offsets:
            arena.offsets[offset] = b.add(arena.address, b.const(offset, i32))
        out.append(arena.offsets[offset])
    return out
