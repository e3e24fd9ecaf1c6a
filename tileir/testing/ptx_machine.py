"""The PTX simulator's machine state: threads, registers, parameters and global memory.

All threads of all CTAs run together: a register is one numpy array with an
element per thread (raw bits: ``uint16``/``uint32``/``uint64``, or ``bool`` for
predicates), each thread has a program counter, and an instruction applies to
the *active* threads (those at that instruction, alive, with a true guard).

The machine is also the simulator's bug detector: it tracks which threads wrote
each register (so reading an unwritten one fails), checks every global access
against the arrays it placed in memory (bounds, alignment), and records which
agent last wrote each byte, and in shared memory last read it, with that agent's
time (``ptx_order``), so that accesses no synchronization orders fail
(``ptx_races``).  It also holds what the scheduler (``ptx_sched``) needs: which
threads wait, and why.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tileir.testing.ptx_errors import INVALID, UNINITIALIZED, UNSUPPORTED, SimulationError
from tileir.testing.ptx_numeric import (
    FORMATS,
    SINT,
    TYPES,
    UINT,
    PtxType,
    bits_to_values,
    round_to_format,
    unique,
    values_to_bits,
)
from tileir.testing.ptx_order import HappensBefore
from tileir.testing.ptx_parse import Imm, Instruction, Operand, Reg, Special
from tileir.testing.ptx_program import RegisterSlot

# ------------------------------------------------------------------------- threads


class ThreadGrid:
    """Coordinates of every simulated thread; thread ``i`` is element ``i`` of a register.

    Threads are numbered CTA by CTA (``ctaid.x`` fastest), and within a CTA by
    ``tid.x`` fastest, so the 32 threads of a warp are consecutive.
    """

    def __init__(
        self,
        grid: Sequence[int],
        block: Sequence[int],
        dynamic_shared: int = 0,
        sm_count: int = 132,
    ) -> None:
        self.grid = tuple(int(g) for g in grid)
        self.block = tuple(int(b) for b in block)
        if len(self.grid) != 3 or len(self.block) != 3 or min(self.grid + self.block) < 1:
            raise SimulationError(f"bad launch shape grid={self.grid} block={self.block}")
        self.per_cta = math.prod(self.block)
        if self.per_cta > 1024:
            raise SimulationError(f"a CTA of {self.per_cta} threads exceeds the limit of 1024")
        self.count = math.prod(self.grid) * self.per_cta
        lane = np.arange(self.count, dtype=np.int64)
        self.cta = lane // self.per_cta
        local = lane % self.per_cta
        #: Global warp number of each thread (warps do not straddle CTAs).
        self.warps_per_cta = -(-self.per_cta // 32)
        self.warp = self.cta * self.warps_per_cta + local // 32
        #: Global warpgroup number of each thread (four consecutive warps of a CTA).
        self.warpgroup = self.cta * -(-self.per_cta // 128) + local // 128
        #: The first thread of each warp, and one past its last (warps are contiguous).
        starts = np.flatnonzero(np.diff(self.warp, prepend=-1))
        self.warp_start = starts
        self.warp_end = np.append(starts[1:], self.count)
        self._values = {
            **_split_xyz("%tid", local, self.block),
            **_split_xyz("%ctaid", self.cta, self.grid),
            **{
                f"%ntid.{a}": np.full(self.count, n) for a, n in zip("xyz", self.block, strict=True)
            },
            **{
                f"%nctaid.{a}": np.full(self.count, n)
                for a, n in zip("xyz", self.grid, strict=True)
            },
            "%laneid": local % 32,
            "%warpid": local // 32,
            "%nwarpid": np.full(self.count, -(-self.per_cta // 32)),
            "%dynamic_smem_size": np.full(self.count, dynamic_shared),
            # The SM of each CTA: CTAs round-robin over ``sm_count`` SMs.
            "%smid": self.cta % sm_count,
            "%nsmid": np.full(self.count, sm_count),
        }

    def special(self, name: str) -> np.ndarray:
        """A special register's value in every thread, as ``uint32``."""
        return self._values[name].astype(np.uint32)

    def describe(self, lane: int) -> str:
        """``ctaid=(x, y, z) tid=(x, y, z)`` of thread ``lane``."""
        v = self._values
        cta = tuple(int(v[f"%ctaid.{a}"][lane]) for a in "xyz")
        tid = tuple(int(v[f"%tid.{a}"][lane]) for a in "xyz")
        return f"thread ctaid={cta} tid={tid}"


def _split_xyz(prefix: str, linear: np.ndarray, dims: tuple[int, ...]) -> dict[str, np.ndarray]:
    x, y = dims[0], dims[1]
    return {
        f"{prefix}.x": linear % x,
        f"{prefix}.y": (linear // x) % y,
        f"{prefix}.z": linear // (x * y),
    }


# ----------------------------------------------------------------------- registers


@dataclass
class Register:
    """One virtual register across all threads, and which threads have written it."""

    name: str
    type: PtxType
    bits: np.ndarray
    written: np.ndarray
    complete: bool = False

    @classmethod
    def declare(cls, name: str, t: PtxType, count: int) -> Register:
        dtype = np.bool_ if t.kind == "pred" else UINT[max(t.bits, 8)]
        return cls(name, t, np.zeros(count, dtype=dtype), np.zeros(count, dtype=bool))


def operand_compatible(reg: PtxType, t: PtxType, widen: bool) -> bool:
    """PTX's operand type rules: a ``.bN`` register goes with any type of N bits,
    integer types of one size mix, float registers need a float or bit type.
    ``widen`` (``ld``/``st``/``cvt``/``mov`` unpacking) lets an integer register be
    wider than the instruction type."""
    if reg.kind == "pred" or t.kind == "pred":
        return reg.kind == t.kind
    if reg.kind == "f" and t.kind in ("u", "s"):
        return False
    if t.kind == "f" and reg.kind in ("u", "s"):
        return False
    if reg.bits == t.bits:
        return True
    return widen and reg.kind != "f" and t.kind != "f" and reg.bits > t.bits


# -------------------------------------------------------------------------- memory


@dataclass
class Region:
    """One array argument's backing buffer, placed at ``start`` in global memory."""

    start: int
    buffer: np.ndarray
    label: str
    #: The CTA whose ``.shared`` array this is (-1: not shared memory).
    cta: int = -1

    @property
    def size(self) -> int:
        return int(self.buffer.nbytes)

    @property
    def end(self) -> int:
        return self.start + self.size

    def element(self, offset: int) -> str:
        """Which element of the buffer byte ``offset`` falls in, e.g. ``element (1, 0)``."""
        item = self.buffer.itemsize
        index = tuple(int(i) for i in np.unravel_index(offset // item, self.buffer.shape))
        where = f"element {index if len(index) != 1 else index[0]}"
        return where if offset % item == 0 else f"byte {offset % item} of {where}"

    def flat_bytes(self) -> np.ndarray:
        """The buffer's bytes, a writable view when the buffer is."""
        return self.buffer.reshape(-1).view(np.uint8)


def backing_buffer(a: np.ndarray) -> tuple[np.ndarray, int]:
    """``(buffer, byte offset of a's first element)`` for an array argument.

    A view into a C-contiguous base array (like ``tests/corpus/_common.strided_view``)
    places the whole base in memory and points at the view's first element: strides
    larger than the row length index the base as on a GPU, views of one base alias,
    and a view that starts ``k`` bytes into its base gets an address ``k`` bytes past
    a 256-byte boundary.  Any other C-contiguous array is its own buffer.
    """
    base = a.base
    if isinstance(base, np.ndarray) and base.flags.c_contiguous:
        offset = a.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        lo, hi = np.lib.array_utils.byte_bounds(a)
        blo, bhi = np.lib.array_utils.byte_bounds(base)
        if blo <= lo and hi <= bhi:
            return base, int(offset)
    if a.flags.c_contiguous:
        return a, 0
    raise SimulationError(
        "array arguments must be C-contiguous or views into a C-contiguous base array"
    )


class GlobalMemory:
    """A flat byte array holding every array argument, with guard gaps between them.

    Regions start 256-byte aligned, at least ``GUARD`` bytes apart, above
    ``BASE`` (so a null or small pointer is out of bounds).  Arguments that share
    a base array share one region, so aliasing views alias here too.
    """

    BASE = 0x10000
    ALIGN = 256
    GUARD = 256

    def __init__(self) -> None:
        self.regions: list[Region] = []
        self._by_base: dict[int, Region] = {}
        self._next = self.BASE
        self.data = np.zeros(0, dtype=np.uint8)
        #: Per byte: the agent (``ptx_order``) that last wrote it (-1: none, or an
        #: atomic) and that agent's time then; in shared memory also the thread that
        #: last read it and its time (the race checks of ``ptx_races``).
        self.writer = np.zeros(0, dtype=np.int32)
        self.wtime = np.zeros(0, dtype=np.int32)
        self.reader = np.zeros(0, dtype=np.int32)
        self.rtime = np.zeros(0, dtype=np.int32)
        #: Per byte, once a kernel issues asynchronous copies (``ptx_async``): the copy
        #: that will write it (-1: none), and how many unfinished copies read it.
        self.inflight: np.ndarray | None = None
        self.async_reads: np.ndarray | None = None
        #: Per byte, once a kernel initializes an mbarrier (``ptx_mbarrier``): whether
        #: it belongs to a valid mbarrier object (ld/st must not touch it).
        self.mbarrier_bytes: np.ndarray | None = None
        #: The launch's happens-before relation (set by ``Machine``).
        self.order: HappensBefore | None = None
        #: Called with the offsets and writers of every ``store`` (``ptx_tma``: writes
        #: into tensor maps), once a kernel sets it.
        self.watch: Callable[[np.ndarray, np.ndarray], None] | None = None

    def place(self, a: np.ndarray, label: str, cta: int = -1, align: int = 1) -> int:
        """Put ``a``'s backing buffer in memory (once per buffer, at a multiple of
        ``align``); its device address.  ``cta``: the CTA whose shared memory it is, if
        it is."""
        buffer, offset = backing_buffer(a)
        region = self._by_base.get(id(buffer))
        if region is None:
            self._next = -(-self._next // align) * align
            region = Region(self._next, buffer, label, cta)
            self._by_base[id(buffer)] = region
            self.regions.append(region)
            end = region.end + self.GUARD
            self._next = -(-end // self.ALIGN) * self.ALIGN
        return region.start + offset

    def materialize(self) -> None:
        """Copy every placed buffer into the flat memory (after all ``place`` calls)."""
        size = self._next - self.BASE
        self.data = np.zeros(size, dtype=np.uint8)
        self.writer = np.full(size, -1, dtype=np.int32)
        self.wtime = np.zeros(size, dtype=np.int32)
        self.reader = np.full(size, -1, dtype=np.int32)
        self.rtime = np.zeros(size, dtype=np.int32)
        for r in self.regions:
            self.data[r.start - self.BASE : r.end - self.BASE] = r.flat_bytes()
        self._starts = np.array([r.start for r in self.regions], dtype=np.int64)
        self._ends = np.array([r.end for r in self.regions], dtype=np.int64)
        self._ctas = np.array([r.cta for r in self.regions], dtype=np.int64)

    def write_back(self) -> None:
        """Copy memory back into the argument buffers that the kernel changed."""
        for r in self.regions:
            new = self.data[r.start - self.BASE : r.end - self.BASE]
            old = r.flat_bytes()
            if not np.array_equal(new, old):
                if not r.buffer.flags.writeable:
                    raise SimulationError(f"the kernel wrote to read-only {r.label}")
                old[...] = new

    # -- checks ---------------------------------------------------------------------

    def describe(self, address: int) -> str:
        """Where ``address`` is relative to the nearest array, for error messages."""
        if not self.regions:
            return "no arrays were passed"
        best = min(
            self.regions,
            key=lambda r: (
                0
                if r.start <= address < r.end
                else min(abs(address - r.start), abs(address - (r.end - 1)))
            ),
        )
        if best.start <= address < best.end:
            offset = address - best.start
            return f"{offset} bytes ({best.element(offset)}) into {best.label} ({best.size} bytes)"
        if address >= best.end:
            return f"{address - best.end} bytes past the end of {best.label} ({best.size} bytes)"
        return f"{best.start - address} bytes before the start of {best.label}"

    def check(self, addresses: np.ndarray, nbytes: int) -> tuple[np.ndarray, np.ndarray]:
        """``(in_bounds, aligned)`` for accesses of ``nbytes`` at ``addresses``."""
        a = addresses.astype(np.int64)
        idx = np.searchsorted(self._starts, a, side="right") - 1
        in_bounds = (idx >= 0) & (a >= self.BASE)
        ends = self._ends[np.maximum(idx, 0)] if len(self._ends) else np.zeros_like(a)
        in_bounds &= a + nbytes <= ends
        aligned = (a % nbytes) == 0
        return in_bounds, aligned

    def shared_cta(self, addresses: np.ndarray, nbytes: int) -> np.ndarray:
        """The CTA whose shared memory holds each access of ``nbytes`` (-1: none)."""
        a = addresses.astype(np.int64)
        idx = np.maximum(np.searchsorted(self._starts, a, side="right") - 1, 0)
        inside = (a >= self._starts[idx]) & (a + nbytes <= self._ends[idx])
        return np.where(inside, self._ctas[idx], -1)

    def load(self, addresses: np.ndarray, nbytes: int) -> np.ndarray:
        """``(n, nbytes)`` bytes read at checked ``addresses``."""
        offsets = addresses.astype(np.int64) - self.BASE
        return self.data[offsets[:, None] + np.arange(nbytes)]

    def offsets(self, addresses: np.ndarray, nbytes: int) -> np.ndarray:
        """``(n, nbytes)`` indices into ``data`` of accesses at ``addresses``."""
        return (addresses.astype(np.int64) - self.BASE)[:, None] + np.arange(nbytes)

    def store(self, addresses: np.ndarray, data: np.ndarray, writers: np.ndarray) -> None:
        """Write ``(n, nbytes)`` bytes at checked ``addresses``; remember the writers
        (agents, ``-1`` for none) and their times."""
        offsets = self.offsets(addresses, data.shape[1])
        self.data[offsets] = data
        self.writer[offsets] = writers[:, None]
        if self.order is not None:
            self.wtime[offsets] = self.order.stamp(writers)[:, None]
        self.reader[offsets] = -1
        if self.watch is not None:
            self.watch(offsets, writers)


# ------------------------------------------------------------------------- machine


@dataclass
class Machine:
    """Registers, parameters and memory of one launch, with checked operand access.

    Handlers read operands as typed numpy arrays over all threads and write
    results back under the ``active`` mask; every read checks that the active
    threads wrote the register, every access checks PTX's operand type rules.
    """

    threads: ThreadGrid
    memory: GlobalMemory
    params: dict[str, tuple[PtxType, int]]
    approx: str = "nearest"
    check_races: bool = True
    #: The entry's ``.maxnreg``: the registers per thread each warp starts with
    #: (``None``: ptxas's choice, unknown here; ``ptx_warpctl``).
    maxnreg: int | None = None
    registers: dict[str, Register] = field(default_factory=dict)
    #: Threads that have not exited (``ret``).
    alive: np.ndarray = field(init=False)
    #: Each thread's next instruction (an index into the program).
    pc: np.ndarray = field(init=False)
    #: Threads not exited and not past the end: the ones still running.
    live: np.ndarray = field(init=False)
    #: The live threads at the instruction being executed (guards aside).
    group: np.ndarray = field(init=False)
    current: Instruction | None = None
    #: The PTX line of each instruction of the program (for messages).
    lines: list[int] = field(default_factory=list)
    #: What ``vprintf`` printed, one string per call (``ptx_calls``).
    printed: list[str] = field(default_factory=list)
    #: Threads that wait: blocked at a barrier or a warpgroup rendezvous, or parked
    #: after an mbarrier wait that failed (``ptx_sched``); and, per warp, why.
    waiting: np.ndarray = field(init=False)
    parked: np.ndarray = field(init=False)
    rendezvous: np.ndarray = field(init=False)
    wait_notes: dict[int, str] = field(default_factory=dict)
    #: Counts events that may let waiting threads go on (a barrier or an mbarrier
    #: changing, a thread exiting), and its value when parked threads were last woken
    #: because nothing else could run (``ptx_sched``).
    progress: int = 0
    woken_at: tuple[int, bytes, bytes] | None = None
    #: The happens-before relation of the launch (``ptx_order``).
    order: HappensBefore = field(init=False)
    #: Per-module state of the instructions that keep some (``ptx_barriers``,
    #: ``ptx_mbarrier``, ``ptx_async``, ``ptx_wgmma``), by module.
    extensions: dict[str, object] = field(default_factory=dict)
    #: Called with the threads that exit (barriers they were holding up may complete).
    exit_hooks: list[Callable[[Machine, np.ndarray], None]] = field(default_factory=list)
    _constants: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.alive = np.ones(self.threads.count, dtype=bool)
        self.pc = np.zeros(self.threads.count, dtype=np.int64)
        self.live = self.alive.copy()
        self.group = self.alive.copy()
        self.waiting = np.zeros(self.threads.count, dtype=bool)
        self.parked = np.zeros(self.threads.count, dtype=bool)
        self.rendezvous = np.zeros(self.threads.count, dtype=bool)
        self.order = HappensBefore(self.threads.cta, self.threads.per_cta)
        self.memory.order = self.order

    @property
    def count(self) -> int:
        return self.threads.count

    # -- waiting (ptx_sched) -----------------------------------------------------------

    def note(self, threads: np.ndarray, why: str) -> None:
        """Say why the warps of ``threads`` (indices) wait, for a deadlock report."""
        for w in unique(self.threads.warp[threads]).tolist():
            self.wait_notes[w] = why

    def block(self, threads: np.ndarray, why: str) -> None:
        """The threads (indices) wait until ``unblock``."""
        self.waiting[threads] = True
        self.note(threads, why)

    def unblock(self, threads: np.ndarray) -> None:
        self.waiting[threads] = False

    def park(self, threads: np.ndarray, why: str) -> None:
        """The threads (indices) found an mbarrier phase incomplete: they wait until
        some mbarrier changes (``unpark``), so that other warps run meanwhile, or until
        nothing else can run (``ptx_sched``)."""
        self.parked[threads] = True
        self.block(threads, why)

    def unpark(self) -> None:
        """An mbarrier changed: parked threads retry."""
        self.progress += 1
        if self.parked.any():
            self.waiting &= ~self.parked
            self.parked[:] = False

    def exited(self, threads: np.ndarray) -> None:
        """The threads (a mask) exit."""
        self.alive &= ~threads
        self.progress += 1
        for hook in list(self.exit_hooks):
            hook(self, threads)

    # -- errors ---------------------------------------------------------------------

    def fail(
        self,
        message: str,
        where: np.ndarray | int | None = None,
        address: int | None = None,
        kind: str = INVALID,
    ) -> SimulationError:
        """An error about the current instruction, in thread ``where`` (a thread
        index, or the first thread of a mask)."""
        thread = None
        if isinstance(where, np.ndarray):
            where = int(np.argmax(where)) if where.any() else None
        if where is not None:
            thread = self.threads.describe(where)
        ins = self.current
        return SimulationError(
            message,
            kind=kind,
            line=ins.line if ins else None,
            instruction=ins.text if ins else None,
            thread=thread,
            address=address,
        )

    # -- registers ------------------------------------------------------------------

    def declare(self, registers: dict[str, RegisterSlot]) -> None:
        """Create every register of the program (keys are unique in the kernel)."""
        for key, slot in registers.items():
            t = TYPES.get(slot.type_name)
            if t is None:
                raise SimulationError(
                    f"unsupported register type .{slot.type_name}", kind=UNSUPPORTED, line=slot.line
                )
            self.registers[key] = Register.declare(slot.name, t, self.count)

    def _register(self, op: Operand, t: PtxType, widen: bool) -> Register:
        if not isinstance(op, Reg):
            raise self.fail(f"expected a register, got {op}")
        reg = self.registers.get(op.name)
        if reg is None:
            raise self.fail(f"register {op.name} is not declared")
        if not operand_compatible(reg.type, t, widen):
            raise self.fail(f"register {reg.name} (.{reg.type.name}) cannot be a .{t.name} operand")
        return reg

    def read_bits(
        self, op: Operand, t: PtxType, active: np.ndarray, widen: bool = False
    ) -> np.ndarray:
        """Raw ``t.bits``-bit patterns of a source operand in every thread."""
        if isinstance(op, Imm):
            return self.constant(self.immediate_bits(op, t), t)
        if isinstance(op, Special):
            if t.bits != 32 or t.kind == "f":
                raise self.fail(f"special register {op.name} is read as a 32-bit integer")
            return self.threads.special(op.name)
        reg = self._register(op, t, widen)
        if not reg.complete:
            missing = active & ~reg.written
            if missing.any():
                raise self.fail(
                    f"register {reg.name} is read before it is written", missing, kind=UNINITIALIZED
                )
        if reg.type.bits > t.bits:
            return reg.bits.astype(UINT[max(t.bits, 8)])
        return reg.bits

    def constant(self, bits: int, t: PtxType) -> np.ndarray:
        """A read-only array of one bit pattern in every thread (cached)."""
        key = (bits, t.bits)
        arr = self._constants.get(key)
        if arr is None:
            arr = np.full(self.count, bits, dtype=UINT[max(t.bits, 8)])
            arr.flags.writeable = False
            self._constants[key] = arr
        return arr

    def read(self, op: Operand, t: PtxType, active: np.ndarray, widen: bool = False) -> np.ndarray:
        """A source operand's values, as ``t``'s numpy dtype, in every thread."""
        return bits_to_values(self.read_bits(op, t, active, widen), t)

    def read_pred(self, op: Operand, active: np.ndarray) -> np.ndarray:
        """A predicate operand (``!p`` negates) in every thread."""
        if not isinstance(op, Reg):
            raise self.fail(f"expected a predicate register, got {op}")
        value = self.read_bits(op, TYPES["pred"], active)
        return ~value if op.negated else value

    def write_bits(
        self, op: Operand, bits: np.ndarray, t: PtxType, active: np.ndarray, widen: bool = False
    ) -> None:
        """Store ``t.bits``-bit patterns into a destination register in active threads.

        A register wider than ``t`` (``widen``) gets the value sign-extended for
        signed types and zero-extended otherwise, as PTX's ``ld``/``cvt`` do."""
        reg = self._register(op, t, widen)
        if isinstance(op, Reg) and op.negated:
            raise self.fail("a destination cannot be negated")
        if reg.type.bits > t.bits and t.kind != "pred":
            if t.kind == "s":
                signed = bits.astype(UINT[t.bits]).view(SINT[t.bits])
                bits = signed.astype(SINT[reg.type.bits]).view(UINT[reg.type.bits])
            else:
                bits = bits.astype(UINT[reg.type.bits])
        if active.all():
            reg.bits[:] = bits
        else:
            reg.bits[active] = bits[active]
        if not reg.complete:
            reg.written |= active
            reg.complete = bool(reg.written.all())

    def write(
        self, op: Operand, values: np.ndarray, t: PtxType, active: np.ndarray, widen: bool = False
    ) -> None:
        """Store ``values`` (of ``t``'s dtype) into a destination register."""
        self.write_bits(op, values_to_bits(values, t), t, active, widen)

    def write_pred(self, op: Operand, values: np.ndarray, active: np.ndarray) -> None:
        self.write_bits(op, np.asarray(values, dtype=bool), TYPES["pred"], active)

    # -- literals and parameters ------------------------------------------------------

    def immediate_bits(self, imm: Imm, t: PtxType) -> int:
        """The bit pattern a literal has as a ``t`` operand."""
        if t.kind == "pred":
            raise self.fail("a predicate operand cannot be a literal")
        if imm.float_bits is not None and imm.float_width is not None:
            if t.bits == imm.float_width:
                return imm.float_bits
            if not t.is_float:
                raise self.fail(f"{imm.float_width}-bit float literal for a .{t.name} operand")
            raw = np.array([imm.float_bits], dtype=UINT[imm.float_width])
            return self._float_literal(float(raw.view(f"f{imm.float_width // 8}")[0]), t)
        if t.is_float != isinstance(imm.value, float):
            raise self.fail(f"literal {imm.value} for a .{t.name} operand")
        if isinstance(imm.value, float):
            return self._float_literal(imm.value, t)
        if not -(1 << 63) <= imm.value < (1 << 64):
            raise self.fail(f"literal {imm.value} does not fit in 64 bits")
        return imm.value & ((1 << t.bits) - 1)  # ptxas truncates wider literals too

    def _float_literal(self, value: float, t: PtxType) -> int:
        fmt = FORMATS[t.name]
        rounded = round_to_format(np.array([value]), fmt, "rn").astype(fmt.dtype)
        return int(rounded.view(UINT[t.bits])[0])

    def param_bits(self, name: str, t: PtxType) -> int:
        """A kernel parameter's value read as ``ld.param.t``."""
        entry = self.params.get(name)
        if entry is None:
            raise self.fail(f"no kernel parameter named {name}")
        ptype, bits = entry
        if ptype.bits != t.bits:
            raise self.fail(f"parameter {name} is .{ptype.name}, read as .{t.name}")
        return bits
