"""The kernel's static shared memory: one arena that every op passing values
between threads reuses, and one budget for the whole kernel.

Users: the exchanges of `exchange.py` (layout conversions, transposes,
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

The budget is the shared memory one CTA of the target may use (`targets.py`:
163 KiB on sm_80, 99 KiB on sm_86/sm_89/sm_120, 227 KiB on sm_90a/sm_100a) less what
the kernel declares besides the arena: the mbarrier pool of its asynchronous mem
tokens (`nvvm.mbarrier.pool.address`, 8 bytes per mbarrier, which token hop two placed
in the kernel before this pass runs), rounded up to the arena's 16-byte alignment.  A
use needing more is reported at its op, with what it needed and what was free.

Static or dynamic, per target.  ptxas accepts static `.shared` arrays up to the whole
227 KiB on sm_90a and sm_100a, so there the arena is always static: a cubin that
declares its shared memory launches with nothing more from the launcher, as cuTile
launches Tile IR cubins.  Before sm_90 (and on sm_12x) ptxas caps a static array at
48 KiB; an arena larger than that becomes dynamic shared memory (`.extern .shared`,
`DYNAMIC_SHARED_SYMBOL`), and the kernel records its size for launchers
(`DYNAMIC_SHARED_ATTR` on the `llvm.func`, which the `ptx` target prints as the
`.global` constant `__tileir_dynamic_smem_bytes_<kernel>` and as a check at entry that
traps when a launch gave less).  `tileir.runtime` reads that constant and opts the
kernel in (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`); a launcher that does not
know about it (cuTile's) gets a trap, not corrupted memory.  Kernels that fit in 48 KiB
are unchanged on every target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, StringAttr, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from tileir.backend.ptx import asm_builder as ptx
from tileir.conversions.tileas_to_llvm.builder import LLBuilder
from tileir.diagnostics import error_at
from tileir.dialects import nvvm
from tileir.targets import ARCHS
from tileir.user_terms import written_as

#: Attribute of a kernel's `llvm.func` whose arena is dynamic shared memory: its size in
#: bytes (an i32), which every launch must provide.
DYNAMIC_SHARED_ATTR = "tileir.dynamic_shared_bytes"

#: The module-level `.extern .shared` array a dynamic arena is.
DYNAMIC_SHARED_SYMBOL = "__tileir_dynamic_smem"

#: Alignment of the arena and of every buffer in it (bytes): 16-byte vector accesses.
ARENA_ALIGNMENT = 16

#: Bytes of one mbarrier object of the pool.
MBARRIER_BYTES = 8


def _align(size: int, alignment: int = ARENA_ALIGNMENT) -> int:
    return (size + alignment - 1) // alignment * alignment


@dataclass
class SharedArena:
    """The arena of one kernel: its declaration (resized as larger uses appear), its
    base address, and the addresses of the offsets handed out so far."""

    name: str
    declaration: llvm.InlineAsmOp
    address: SSAValue
    size: int = 0
    offsets: dict[int, SSAValue] = field(default_factory=dict)
    #: Buffers live across uses (`allocate_persistent`), placed after the largest use.
    persistent: list[PersistentBuffer] = field(default_factory=list)
    persistent_size: int = 0
    #: Buffers live across uses within one scope only (the rings of one loop), placed
    #: after the other persistent ones, each scope's from the same start.
    scoped: dict[int, list[PersistentBuffer]] = field(default_factory=dict)
    scoped_sizes: dict[int, int] = field(default_factory=dict)
    #: The largest alignment of a buffer in it: the arena's own (a swizzled operand
    #: buffer starts at its 1024-, 512- or 256-byte atom, `OperandBuffer.align`).
    alignment: int = ARENA_ALIGNMENT

    @property
    def scoped_size(self) -> int:
        """Bytes of the scoped region: the largest scope's buffers."""
        return max(self.scoped_sizes.values(), default=0)

    def align_to(self, alignment: int) -> bool:
        """Raise the arena's alignment to `alignment`; whether it changed."""
        if alignment <= self.alignment:
            return False
        self.alignment = alignment
        return True


@dataclass(frozen=True)
class PersistentBuffer:
    """A buffer that outlives the uses around it: its offset from the arena's start
    (a constant set by `finalize_persistent`) and its place among the persistent ones."""

    offset: llvm.ConstantOp
    start: int
    size: int
    alignment: int = ARENA_ALIGNMENT


@dataclass(frozen=True)
class SharedBudget:
    """What the arena of one kernel may take on its target."""

    arch: str
    #: Bytes the kernel declares besides the arena (its mbarrier pool).
    mbarrier_bytes: int

    @property
    def limit(self) -> int:
        """Shared memory one CTA of the target may use."""
        return ARCHS[self.arch].shared_per_block

    @property
    def available(self) -> int:
        """The largest arena that fits (the pool is counted at the arena's alignment,
        so that ptxas may place the two in either order)."""
        return self.limit - _align(self.mbarrier_bytes)

    def is_dynamic(self, arena_size: int) -> bool:
        """Whether an arena of `arena_size` bytes must be dynamic shared memory: more
        static shared memory than ptxas accepts for the target."""
        return arena_size + _align(self.mbarrier_bytes) > ARCHS[self.arch].static_shared

    def explain(self) -> str:
        """How many bytes are available and why, for a diagnostic."""
        where = f"a CTA may use {self.limit} bytes of shared memory on {self.arch}"
        if self.mbarrier_bytes:
            where += f", less {_align(self.mbarrier_bytes)} for its mbarrier pool"
        return f"{self.available} are available: {where}"


class FunctionState(Protocol):
    """What the arena needs of a kernel's `context.FunctionState` (which holds the
    arena; a protocol keeps this module below `context.py` in the import graph)."""

    entry: Block
    arch: str
    index: int
    shared_arena: SharedArena | None
    shared_budget: SharedBudget | None

    def prologue_builder(self, rewriter: PatternRewriter) -> LLBuilder: ...


def kernel_budget(entry: Block, arch: str) -> SharedBudget:
    """The budget of the kernel whose entry block is `entry`: its mbarrier pool is the
    largest `pool_size` among its `nvvm.mbarrier.pool.address` ops (the `ptx` target
    declares the pool once, that large)."""
    fn = entry.parent_op()
    pool = 0
    if fn is not None:
        for op in fn.walk():
            if isinstance(op, nvvm.MBarrierPoolAddressOp):
                pool = max(pool, op.size)
    return SharedBudget(arch, pool * MBARRIER_BYTES)


def _budget(state: FunctionState) -> SharedBudget:
    """The budget of the kernel of `state`, computed once."""
    if state.shared_budget is None:
        state.shared_budget = kernel_budget(state.entry, state.arch)
    return state.shared_budget


def available_bytes(state: FunctionState, beside: Sequence[int] = ()) -> int:
    """The bytes a use may still take beside buffers of `beside` bytes in the largest
    arena the kernel of `state` may declare (for a use that can choose a smaller
    layout when a larger one does not fit)."""
    return _budget(state).available - sum(_align(size) for size in beside)


def becomes_dynamic(state: FunctionState, size: int) -> bool:
    """Whether an arena of `size` bytes would be dynamic shared memory in the kernel
    of `state` (more static shared memory than ptxas accepts for its target)."""
    return _budget(state).is_dynamic(size)


def declared_bytes(state: FunctionState) -> int:
    """Shared memory the kernel of `state` declares through this module once lowered:
    its arena and its mbarrier pool (a lower bound of its whole shared memory: other
    declarations only add to it)."""
    arena = state.shared_arena.size if state.shared_arena is not None else 0
    return _align(arena) + _align(_budget(state).mbarrier_bytes)


def _declaration(
    name: str, size: int, dynamic: bool, alignment: int = ARENA_ALIGNMENT
) -> ptx.PtxAsm:
    """The arena's `.shared` array (at function scope) and the `mov` of its 32-bit
    address into the block's result; a dynamic arena is the module's one `.extern
    .shared` array, which the `ptx` target declares."""
    asm = ptx.PtxAsm(scoped=False)
    address = asm.output(i32)
    if dynamic:
        name = DYNAMIC_SHARED_SYMBOL
    else:
        asm.declare_bytes("shared", name, size, alignment)
    asm.instr("mov.u32", address, name)
    return asm


def _declare(state: FunctionState, arena: SharedArena) -> None:
    """(Re)write the arena's declaration for its size: static, or dynamic with its size
    recorded on the kernel."""
    dynamic = _budget(state).is_dynamic(arena.size)
    # A swizzled operand buffer's atom needs static shared memory (sm_90a and sm_100a's
    # arenas always are) aligned to it.
    assert not (dynamic and arena.alignment > ARENA_ALIGNMENT), "a swizzled dynamic arena"
    arena.declaration.asm_string = StringAttr(
        _declaration(arena.name, arena.size, dynamic, arena.alignment).template
    )
    fn = state.entry.parent_op()
    assert isinstance(fn, llvm.FuncOp)
    if dynamic:
        fn.attributes[DYNAMIC_SHARED_ATTR] = IntegerAttr(arena.size, i32)


def allocate_shared(
    op: Operation,
    state: FunctionState,
    rewriter: PatternRewriter,
    sizes: Sequence[int],
    what: str,
    alignments: Sequence[int] = (),
) -> list[SSAValue]:
    """32-bit shared addresses of buffers of `sizes` bytes, each aligned to 16 bytes or
    to its entry of `alignments`, live together for one use at `op` (`what`, e.g. "an
    exchange", names it in the diagnostic), laid out from the start of the kernel's
    arena; the addresses are computed once in the kernel's prologue."""
    offsets: list[int] = []
    total = 0
    for i, size in enumerate(sizes):
        total = _align(total, alignments[i] if i < len(alignments) else ARENA_ALIGNMENT)
        offsets.append(total)
        total += _align(size)
    budget = _budget(state)
    if total > budget.available:
        raise error_at(
            op,
            f"exceeds the shared memory limit: {what}{written_as(op)} needs {total} bytes "
            f"({budget.explain()}); "
            "make the tile smaller, or compile for a target with more shared memory per CTA",
        )
    b = state.prologue_builder(rewriter)
    arena = _arena(state, b)
    realigned = arena.align_to(max(alignments, default=ARENA_ALIGNMENT))
    if total > arena.size or realigned:
        arena.size = max(arena.size, total)
        _declare(state, arena)
    out: list[SSAValue] = []
    for offset in offsets:
        if offset == 0:
            out.append(arena.address)
            continue
        if offset not in arena.offsets:
            arena.offsets[offset] = b.add(arena.address, b.const(offset, i32))
        out.append(arena.offsets[offset])
    return out


def _arena(state: FunctionState, b: LLBuilder) -> SharedArena:
    """The kernel's arena, declared (empty) in its prologue on first use."""
    if state.shared_arena is None:
        name = f"tileir_xchg_{state.index}"
        (address,) = b.asm(_declaration(name, 0, False))
        declaration = address.owner
        assert isinstance(declaration, llvm.InlineAsmOp)
        state.shared_arena = SharedArena(name, declaration, address)
    return state.shared_arena


def allocate_persistent(
    state: FunctionState,
    rewriter: PatternRewriter,
    size: int,
    scope: int | None = None,
    alignment: int = ARENA_ALIGNMENT,
) -> SSAValue:
    """The 32-bit shared address of a buffer of `size` bytes, aligned to `alignment`
    (16 bytes, or a swizzled operand buffer's atom), that stays live across the other
    uses (the ring of a pipelined loop, `async_copy.py`): every persistent buffer goes
    after the largest transient use, so none overlaps another, at an offset
    `finalize_persistent` sets once the kernel is lowered.  In each region the buffers
    aligned beyond 16 bytes go first, largest alignment first (their sizes are
    multiples of it), so that only the region's start is rounded up.

    A buffer with a `scope` (an id: the loop whose rings it holds) is live only while
    that scope runs, and nothing of it survives the scope (its copies are waited for and
    a CTA barrier passed at its end): the buffers of different scopes share one region,
    as large as the largest scope's, after the unscoped ones."""
    b = state.prologue_builder(rewriter)
    arena = _arena(state, b)
    offset = llvm.ConstantOp(IntegerAttr(0, i32), i32)
    b.op(offset)
    if scope is None:
        arena.persistent.append(PersistentBuffer(offset, 0, size, alignment))
        arena.persistent_size = _place(arena.persistent)
    else:
        buffers = arena.scoped.setdefault(scope, [])
        buffers.append(PersistentBuffer(offset, 0, size, alignment))
        arena.scoped_sizes[scope] = _place(buffers)
    return b.add(arena.address, offset.result)


def _place(buffers: list[PersistentBuffer]) -> int:
    """Lay `buffers` (of one region) out from 0, the most aligned first (stable), each
    at its alignment; their bytes in all."""
    order = sorted(range(len(buffers)), key=lambda i: -buffers[i].alignment)
    end = 0
    for i in order:
        buffer = buffers[i]
        start = _align(end, buffer.alignment)
        buffers[i] = PersistentBuffer(buffer.offset, start, buffer.size, buffer.alignment)
        end = start + _align(buffer.size)
    return end


def _region_alignment(buffers: Sequence[PersistentBuffer]) -> int:
    return max((buffer.alignment for buffer in buffers), default=ARENA_ALIGNMENT)


def finalize_persistent(state: FunctionState) -> None:
    """Place the persistent buffers of the kernel of `state` after its largest transient
    use, and size the arena for both; a diagnostic when they do not fit the budget."""
    arena = state.shared_arena
    if arena is None or not (arena.persistent or arena.scoped):
        return
    transient = _align(arena.size, _region_alignment(arena.persistent))
    for buffer in arena.persistent:
        buffer.offset.value = IntegerAttr(transient + buffer.start, i32)
    scoped = [buffer for buffers in arena.scoped.values() for buffer in buffers]
    scoped_start = _align(transient + arena.persistent_size, _region_alignment(scoped))
    for buffer in scoped:
        buffer.offset.value = IntegerAttr(scoped_start + buffer.start, i32)
    arena.align_to(_region_alignment([*arena.persistent, *scoped]))
    rings = scoped_start - transient + arena.scoped_size
    total = transient + rings
    budget = _budget(state)
    if total > budget.available:
        first = (arena.persistent or next(iter(arena.scoped.values())))[0]
        raise error_at(
            first.offset,
            f"exceeds the shared memory limit: ring buffers of {rings} bytes "
            f"beside {transient} bytes of exchanges ({budget.explain()}); compile with "
            "fewer pipeline stages (tileas-pipeline-dot-operands{num-stages=2}) or smaller "
            "tiles, or for a target with more shared memory per CTA",
        )
    arena.size = total
    _declare(state, arena)
