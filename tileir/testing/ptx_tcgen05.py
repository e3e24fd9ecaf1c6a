"""Blackwell's tensor memory and `tcgen05` instructions in the PTX simulator (sm_100a).

Written from the PTX ISA 8.6+ section 9.7.16, "TensorCore 5th Generation Family
Instructions" (no Blackwell GPU was at hand: this reading of the ISA, and ptxas, are
the judges).  What is modelled:

* *Tensor memory* (9.7.16.2): per CTA 128 lanes x 512 columns of 32-bit cells.
* *Allocation* (9.7.16.7.1): `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
  [slot], ncols` by a whole warp, `ncols` a power of two from 32 to 512; the base
  address (lane 0 in bits 16-31, the first column in bits 0-15) is written to the
  shared-memory `slot` by the warp's first thread; `tcgen05.dealloc` of exactly an
  allocation; `tcgen05.relinquish_alloc_permit` (an `alloc` after it is an error).
  Columns are allocated first-fit on multiples of 32; when none are free the real
  instruction blocks, here it is reported (`deadlock`).  An allocation a CTA has not
  freed when its last thread exits is reported (a *leaked allocation*).
* `tcgen05.mma.cta_group::1.kind::{f16,tf32,f8f6f4,i8} [d], a-desc, b-desc, idesc,
  enable-input-d` (9.7.16.10.9), issued by each thread that executes it (it is not
  warp-collective), A and B from shared memory: the *instruction descriptor*
  (9.7.16.4.2) decoded bit by bit (sparsity bits 0-2, saturate 3, D type 4-5, A type
  7-9, B type 10-12, negations 13-14, transposes 15-16, N >> 3 in 17-22, M >> 4 in
  24-28, reserved bits 6, 23, 29 and the `.ws` shift 30-31 zero), every field checked
  against the kind; the *shared-memory descriptors* (9.7.16.4.1): the fields of the
  Hopper matrix descriptor (`ptx_wgmma`) with the fixed value 0b001 in bits 46-48,
  base offset in 49-51, the leading-dimension mode in bit 52 (only the absolute mode
  is supported), reserved bits 53-60 zero, the swizzle mode in 61-63 (0 none, 2 128-,
  4 64-, 6 32-byte; 1, the 128-byte swizzle with 32-byte atoms, is not supported);
  a wrong fixed value or reserved bit is a *bad descriptor*.  M = 128 (N a multiple of
  16) is data-path layout D (9.7.16.10.5): row `i` of D is lane `i`, column `j` is
  column `j`; M = 64 (N a multiple of 8) is layout F: rows `16q .. 16q+15` are lanes
  `32q .. 32q+15`, the other lanes untouched.  D's columns must lie in
  one of the CTA's allocations.  The product is exact (float64, int64) and rounded
  once, as in `ptx_wgmma`; `enable-input-d` false ignores the old D.
* `tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar]`
  (9.7.16.6.3): every earlier MMA of the thread completes, and the mbarrier gets one
  arrival (a release by the committing thread).  The MMA is computed at issue, but
  completes only with such a phase: its D columns may be read only by a thread that
  observed the phase of a commit of its issuer after it, the first or a later one (a
  wait on it, or a CTA barrier with a thread that waited); reading them with
  `tcgen05.ld` earlier (a barrier with the issuing thread is not enough), or before
  any commit, is an error.
* `tcgen05.ld.sync.aligned.32x32b.xN.b32` / `tcgen05.st...32x32b.xN.b32` (9.7.16.8):
  warp-collective; the address's lane field must be the warp's *lane quarter*,
  `32 (w % 4)` for warp `w` of the CTA (9.7.16.8.3, "Access restrictions"); thread
  `l` moves lane `quarter + l`, columns `col .. col+N-1` in register order; the
  columns must be allocated.  `.16x256b.xN` (9.7.16.2.3.1, "Matrix fragments for shape
  .16x256b"): 16 lanes from the address's, which is the quarter's first or its
  seventeenth; `4N` registers, register `r` of thread `l` is lane `l / 4 + 8 (r / 2 %
  2)`, column `col + r % 2 + 2 (l % 4) + 8 (r / 4)` (the `mma.sync` m16n8 accumulator
  fragment, once per 8 columns).  Other shapes are `unsupported`.
* `tcgen05.wait::{ld,st}.sync.aligned` and `tcgen05.fence::{before,after}_thread_sync`
  are accepted (loads and stores complete at issue here).

* The shared-memory operands of a `tcgen05.mma` (read at issue here) must stay as they
  are until its completion: a store, or an asynchronous copy issued, into bytes an MMA
  read, by a thread that has not observed the phase of a later commit of the MMA's
  issuer (9.7.16.6.3: the commit's arrival comes once every earlier `tcgen05.mma` of
  the thread has completed), is an `async-race`.  So a ring slot refilled before the
  commit of the MMAs that read it fails.

* A from tensor memory (`tcgen05.mma ... [d], [a], b-desc, ...`, 9.7.16.10.9, the
  matrix A in Tensor Memory): M = 128, A K-major, laid out as D (row `i` in lane `i`), the
  32 bytes of a K step in the 8 columns from the address's, 16-bit elements two a column
  (the even one in the low half).  An MMA reading a column whose `tcgen05.st` its writer
  has not waited for (`tcgen05.wait::st`, 9.7.16.8.5) fails, and so does a `tcgen05.st`
  or an MMA's D writing columns that an MMA reads as A before the writer observed the
  phase of a later commit of its issuer (9.7.16.6.3) (an `async-race`).

* `tcgen05.cp` (shared -> tensor memory) and the block-scaled `tcgen05.mma ...
  .kind::{mxf8f6f4,mxf4,mxf4nvf4}.block_scale` live in ``ptx_tcgen05_scaled``; they use
  this module's state (allocations, commits, regions, operand reads).

Not checked: a `tcgen05.st` racing with an MMA's D on the same columns, the fences
themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, lanes_of, operands, unsupported
from tileir.testing.ptx_errors import ASYNC_RACE, DEADLOCK, UNSUPPORTED
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_mbarrier import arrive, lookup, mbarrier_addresses
from tileir.testing.ptx_numeric import TYPES, unique, unique_counts, unique_inverse
from tileir.testing.ptx_parse import Imm, Instruction, Mem, Operand, Reg, Vec
from tileir.testing.ptx_wgmma import (
    _decode_elements,  # pyright: ignore[reportPrivateUsage]
    _operand_bytes,  # pyright: ignore[reportPrivateUsage]
)

LANES = 128
COLUMNS = 512
#: Bits 46-48 of an sm_100 shared-memory descriptor.
DESCRIPTOR_VERSION = 1
#: sm_100 swizzle field (bits 61-63) -> the Hopper field (bits 62-63) of the same mode.
_SWIZZLE = {0: 0, 2: 1, 4: 2, 6: 3}
#: Per kind: A/B type codes (instruction descriptor) -> the element kinds, and D types.
_AB = {
    "f16": {0: "f16", 1: "bf16"},
    "tf32": {2: "tf32"},
    "f8f6f4": {0: "e4m3", 1: "e5m2"},
    "i8": {0: "u8", 1: "s8"},
}
_D = {"f16": {1: "f32"}, "tf32": {1: "f32"}, "f8f6f4": {1: "f32"}, "i8": {2: "s32"}}
_K_BYTES = 32
#: Commits remembered per issuing thread and mbarrier (`_check_unread`).
_COMMITS_KEPT = 8


@dataclass
class _Region:
    """D columns an MMA wrote: readable once its commit is ordered before the reader."""

    cta: int
    lo: int
    hi: int
    issuer: int
    #: The agent of the mbarrier the commit arrives on (its phases are the MMAs'
    #: completions, `ptx_order`), and the time its completing phase is stamped with
    #: (-1: not committed yet).
    agent: int = -1
    time: int = -1
    #: The same for the issuer's later commits (the last `_COMMITS_KEPT`): each also
    #: arrives once the MMA has completed.
    later: list[tuple[int, int]] = field(default_factory=list[tuple[int, int]])


@dataclass
class _Commit:
    """A `tcgen05.commit`: the issuer's MMAs before its `upto`-th complete with the phase
    of the mbarrier `agent` stamped `time` (`ptx_order`)."""

    issuer: int
    upto: int
    agent: int
    time: int


@dataclass
class _State:
    tmem: dict[int, np.ndarray] = field(default_factory=dict)
    #: Per CTA: allocations, first column -> columns.
    allocations: dict[int, dict[int, int]] = field(default_factory=dict)
    relinquished: set[int] = field(default_factory=set)
    regions: list[_Region] = field(default_factory=list)
    hooked: bool = False
    #: MMAs issued per thread; per byte of memory, the issuer (-1: none) and number of
    #: the last MMA that read it (a later MMA of the same issuer completes after it);
    #: the commits that complete them.
    issued: dict[int, int] = field(default_factory=dict)
    reader: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    seq: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    commits: list[_Commit] = field(default_factory=list)
    #: Per CTA, per cell: the thread whose `tcgen05.st` wrote it and has not waited for
    #: it yet (`tcgen05.wait::st`), -1 for none.
    unwaited: dict[int, np.ndarray] = field(default_factory=dict)
    #: Columns MMAs read as A from tensor memory: (cta, lo, hi, issuer) -> the number of
    #: the issuer's last MMA that read them (a later one completes after it).
    a_reads: dict[tuple[int, int, int, int], int] = field(default_factory=dict)
    #: The same for the columns block-scaled MMAs read scale factors from
    #: (``ptx_tcgen05_scaled``).
    scale_reads: dict[tuple[int, int, int, int], int] = field(default_factory=dict)

    def memory(self, cta: int) -> np.ndarray:
        if cta not in self.tmem:
            self.tmem[cta] = np.zeros((LANES, COLUMNS), dtype=np.uint32)
        return self.tmem[cta]


def _state(m: Machine) -> _State:
    state = m.extensions.get(__name__)
    if isinstance(state, _State):
        return state
    state = _State()
    m.extensions[__name__] = state
    m.exit_hooks.append(_check_freed)
    memory = m.memory
    store = memory.store

    def checked_store(addresses: np.ndarray, data: np.ndarray, writers: np.ndarray) -> None:
        if state.commits or state.issued:
            written = (addresses.astype(np.int64)[:, None] + np.arange(data.shape[1])).reshape(-1)
            _check_unread(m, state, written, np.repeat(writers, data.shape[1]), "a store")
        store(addresses, data, writers)

    vars(memory)["store"] = checked_store
    return state


def _check_unread(
    m: Machine, state: _State, written: np.ndarray, writers: np.ndarray, what: str
) -> None:
    """Fail if threads `writers` change shared bytes `written` (absolute addresses) that
    an MMA reads before its completion is ordered before them: a commit of its issuer
    after it whose mbarrier phase the writer observed (9.7.16.6.3, "tcgen05.commit": the
    operands must stay as they are until then; any commit where the simulator does not
    track order).  Writers that are not threads (a landing copy's agent) were checked
    when the copy was issued."""
    if not len(state.reader):
        return
    flat = written - m.memory.BASE
    issuer = state.reader[flat]
    hit = np.flatnonzero((issuer >= 0) & (writers >= 0) & (writers < m.count))
    if not len(hit):
        return
    # One group per (issuer, MMA number), in that order: a single integer key (the
    # issuer in the high bits) sorts like the pair, without `np.unique(axis=1)`'s
    # lexicographic sort of a 2-row array.
    keys, group = unique_inverse(issuer[hit] << 32 | state.seq[flat[hit]])
    for i, key in enumerate(keys.tolist()):
        k_issuer, k_seq = key >> 32, key & 0xFFFFFFFF
        mine = hit[group == i]
        who = writers[mine].astype(np.int64)
        done = np.zeros(len(mine), dtype=bool)
        for c in state.commits:
            if c.issuer == k_issuer and c.upto > k_seq:
                if not m.check_races:
                    done[:] = True
                    break
                n = len(who)
                done |= m.order.ordered(np.full(n, c.agent), np.full(n, c.time), who)
        if not done.all():
            k = int(mine[int(np.argmin(done))])
            raise m.fail(
                f"{what} to shared memory that a tcgen05.mma still reads (wait for the "
                "mbarrier phase of the tcgen05.commit that covers it before overwriting "
                "its operands)",
                int(writers[k]),
                int(written[k]),
                kind=ASYNC_RACE,
            )


def _completed(m: Machine, state: _State, issuer: int, seq: int, who: np.ndarray) -> np.ndarray:
    """Which threads `who` observed the completion of MMA number `seq` of `issuer`: the
    phase of a later commit of its issuer (9.7.16.6.3); any such commit where the
    simulator does not track order."""
    done = np.zeros(len(who), dtype=bool)
    for c in state.commits:
        if c.issuer == issuer and c.upto > seq:
            if not m.check_races:
                return np.ones(len(who), dtype=bool)
            n = len(who)
            done |= m.order.ordered(np.full(n, c.agent), np.full(n, c.time), who)
    return done


def mma_d_columns(m: Machine, state: _State, taddr: int, n: int, lane: int) -> tuple[int, int]:
    """The CTA and first column of the `n`-column D a `tcgen05.mma` of thread `lane`
    writes at tensor-memory address `taddr`, checked: D starts at lane 0, its columns
    are allocated and no MMA in flight reads them as A."""
    cta = int(m.threads.cta[lane])
    lo = taddr & 0xFFFF
    if taddr >> 16:
        raise m.fail(f"tcgen05.mma's D at lane {taddr >> 16} (D starts at lane 0)", lane)
    _check_columns(m, state, cta, lo, lo + n, lane, "tcgen05.mma writes")
    _check_a_unread(m, state, cta, lo, lo + n, np.array([lane]), "a tcgen05.mma writes")
    return cta, lo


def _check_a_unread(
    m: Machine, state: _State, cta: int, lo: int, hi: int, who: np.ndarray, what: str
) -> None:
    """Fail if threads `who` write tensor-memory columns `lo .. hi - 1` of CTA `cta` that
    an MMA whose completion they have not observed reads as A or as scale factors
    (9.7.16.6.1: a `tcgen05.mma` reads its operands asynchronously, until its commit's
    phase)."""
    for reads, noun in ((state.a_reads, "A"), (state.scale_reads, "scale factors")):
        for (c, a_lo, a_hi, issuer), seq in reads.items():
            if c != cta or a_hi <= lo or hi <= a_lo:
                continue
            done = _completed(m, state, issuer, seq, who.astype(np.int64))
            if not done.all():
                raise m.fail(
                    f"{what} tensor memory columns {max(lo, a_lo)} .. {min(hi, a_hi) - 1} "
                    f"that a tcgen05.mma still reads as {noun} (wait for the mbarrier phase "
                    "of the tcgen05.commit that covers it first)",
                    int(who[int(np.argmin(done))]),
                    kind=ASYNC_RACE,
                )


def check_copy_unread(m: Machine, addresses: np.ndarray, writers: np.ndarray) -> None:
    """An asynchronous copy must not be issued into shared bytes that a `tcgen05.mma`
    still reads: the copy may land at any time after it is issued (``ptx_async``)."""
    state = m.extensions.get(__name__)
    if isinstance(state, _State):
        _check_unread(m, state, addresses.astype(np.int64), writers, "an asynchronous copy")


def _record_reads(m: Machine, state: _State, lane: int, addresses: np.ndarray) -> None:
    """The bytes the MMA `lane` issues now reads (the next of its numbers)."""
    if not len(state.reader):
        size = len(m.memory.data)
        state.reader = np.full(size, -1, dtype=np.int64)
        state.seq = np.zeros(size, dtype=np.int64)
    seq = state.issued.get(lane, 0)
    state.issued[lane] = seq + 1
    flat = addresses.astype(np.int64) - m.memory.BASE
    state.reader[flat] = lane
    state.seq[flat] = seq


def _check_freed(m: Machine, threads: np.ndarray) -> None:
    """A CTA whose last thread exits must have freed its tensor memory."""
    state = _state(m)
    for cta in unique(m.threads.cta[np.flatnonzero(threads)]).tolist():
        alive = m.alive & (m.threads.cta == cta)
        left = state.allocations.get(int(cta))
        if not alive.any() and left:
            start, cols = next(iter(left.items()))
            raise m.fail(
                f"CTA {cta} exits with tensor memory still allocated (columns {start} .. "
                f"{start + cols - 1}): a leaked allocation (tcgen05.dealloc it before exit)",
                int(np.argmax(threads)),
            )


# ------------------------------------------------------------------ helpers


def _warps(m: Machine, act: np.ndarray, what: str) -> np.ndarray:
    """Active threads as ``(warps, 32)``; every active warp must be whole."""
    lanes = lanes_of(act)
    key = lanes // 32
    ids, counts = unique_counts(key)
    if (counts != 32).any() or m.threads.per_cta % 32:
        bad = ids[counts != 32][0] if (counts != 32).any() else ids[0]
        raise m.fail(
            f"{what} is warp-collective (.sync.aligned) and was executed by part of a warp",
            int(lanes[key == bad][0]),
        )
    return lanes.reshape(-1, 32)


def _uniform(m: Machine, values: np.ndarray, warps: np.ndarray, what: str) -> np.ndarray:
    per = values[warps]
    differs = (per != per[:, :1]).any(axis=1)
    if differs.any():
        raise m.fail(f"{what} differs between the threads of a warp", int(warps[differs][0, 0]))
    return per[:, 0]


def _value(m: Machine, op: Operand, t: str, act: np.ndarray) -> np.ndarray:
    if isinstance(op, Imm):
        return np.full(m.count, int(op.value), dtype=np.uint64)
    return m.read_bits(op, TYPES[t], act).astype(np.uint64)


def _check_columns(m: Machine, state: _State, cta: int, lo: int, hi: int, lane: int, what: str):
    for start, cols in state.allocations.get(cta, {}).items():
        if start <= lo and hi <= start + cols:
            return
    raise m.fail(
        f"{what} columns {lo} .. {hi - 1} of tensor memory that CTA {cta} has not allocated",
        lane,
    )


# ------------------------------------------------------------------ decoders


@decoder("tcgen05")
def decode_tcgen05(ins: Instruction) -> Exec:
    mods = Mods(ins)
    if mods.flag("fence::before_thread_sync") or mods.flag("fence::after_thread_sync"):
        mods.done()
        operands(ins, 0)
        return lambda m, act: None
    wait = mods.one_of(("wait::ld", "wait::st"))
    if wait is not None:
        if not (mods.flag("sync") and mods.flag("aligned")):
            raise invalid(ins, f"tcgen05.{wait} without .sync.aligned")
        mods.done()
        operands(ins, 0)
        return _wait_st if wait == "wait::st" else (lambda m, act: None)
    kind = mods.one_of(
        ("alloc", "dealloc", "relinquish_alloc_permit", "mma", "commit", "ld", "st", "cp")
    )
    if kind is None:
        raise unsupported(ins, "this tcgen05 instruction")
    grouped = ("alloc", "dealloc", "relinquish_alloc_permit", "mma", "commit", "cp")
    if kind in grouped and not mods.flag("cta_group::1"):
        raise unsupported(ins, f"tcgen05.{kind} without .cta_group::1 (CTA pairs)")
    if kind == "alloc":
        return _decode_alloc(ins, mods)
    if kind == "dealloc":
        return _decode_dealloc(ins, mods)
    if kind == "relinquish_alloc_permit":
        if not (mods.flag("sync") and mods.flag("aligned")):
            raise invalid(ins, "tcgen05.relinquish_alloc_permit without .sync.aligned")
        mods.done()
        operands(ins, 0)
        return _relinquish
    if kind == "mma":
        return _decode_mma(ins, mods)
    if kind == "commit":
        return _decode_commit(ins, mods)
    if kind == "cp":
        from tileir.testing.ptx_tcgen05_scaled import decode_cp

        return decode_cp(ins, mods)
    return _decode_ld_st(ins, mods, kind == "st")


def _wait_st(m: Machine, act: np.ndarray) -> None:
    """`tcgen05.wait::st`: the thread's earlier `tcgen05.st` are complete."""
    state = _state(m)
    threads = lanes_of(act)
    for pending in state.unwaited.values():
        pending[np.isin(pending, threads)] = -1


def _relinquish(m: Machine, act: np.ndarray) -> None:
    warps = _warps(m, act, "tcgen05.relinquish_alloc_permit")
    state = _state(m)
    for w in warps:
        state.relinquished.add(int(m.threads.cta[w[0]]))


def _ncols(m: Machine, op: Operand, act: np.ndarray, warps: np.ndarray) -> np.ndarray:
    cols = _uniform(m, _value(m, op, "u32", act), warps, "the column count")
    for i, c in enumerate(cols.tolist()):
        if c < 32 or c > COLUMNS or c & (c - 1):
            raise m.fail(
                f"a tcgen05 column count of {c} (a power of two from 32 to 512)",
                int(warps[i, 0]),
            )
    return cols.astype(np.int64)


def _decode_alloc(ins: Instruction, mods: Mods) -> Exec:
    if not (mods.flag("sync") and mods.flag("aligned") and mods.flag("shared::cta")):
        raise invalid(ins, "tcgen05.alloc needs .sync.aligned.shared::cta")
    if mods.type("b") != TYPES["b32"]:
        raise invalid(ins, "tcgen05.alloc is .b32")
    mods.done()
    slot, ncols = operands(ins, 2)
    if not isinstance(slot, Mem):
        raise invalid(ins, f"tcgen05.alloc's destination is a shared address, got {slot}")

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing.ptx_ops import (
            _addresses,  # pyright: ignore[reportPrivateUsage]
            check_access,
        )
        from tileir.testing.ptx_races import check_store

        warps = _warps(m, act, "tcgen05.alloc")
        state = _state(m)
        cols = _ncols(m, ncols, act, warps)
        lanes = warps[:, 0]
        addresses = _addresses(m, slot, act, lanes, "shared")
        check_access(m, addresses, 4, lanes, "tcgen05.alloc slot store")
        for i, lead in enumerate(lanes.tolist()):
            cta = int(m.threads.cta[lead])
            if cta in state.relinquished:
                raise m.fail("tcgen05.alloc after the CTA relinquished its allocation permit", lead)
            taken = state.allocations.setdefault(cta, {})
            want = int(cols[i])
            start = next(
                (
                    s
                    for s in range(0, COLUMNS - want + 1, 32)
                    if all(s + want <= t or t + c <= s for t, c in taken.items())
                ),
                None,
            )
            if start is None:
                raise m.fail(
                    f"tcgen05.alloc of {want} columns blocks forever: CTA {cta} holds "
                    f"{sum(taken.values())} of the 512 columns",
                    lead,
                    kind=DEADLOCK,
                )
            taken[start] = want
            data = np.array([start], dtype="<u4").view(np.uint8).reshape(1, 4)
            at = addresses[i : i + 1]
            who = np.array([lead])
            if m.check_races:
                check_store(m, at, 4, who, True)
            m.memory.store(at, data, who)

    return run


def _decode_dealloc(ins: Instruction, mods: Mods) -> Exec:
    if not (mods.flag("sync") and mods.flag("aligned")) or mods.type("b") != TYPES["b32"]:
        raise invalid(ins, "tcgen05.dealloc needs .sync.aligned.b32")
    mods.done()
    taddr, ncols = operands(ins, 2)

    def run(m: Machine, act: np.ndarray) -> None:
        warps = _warps(m, act, "tcgen05.dealloc")
        state = _state(m)
        cols = _ncols(m, ncols, act, warps)
        addr = _uniform(m, _value(m, taddr, "u32", act), warps, "the tensor-memory address")
        for i, w in enumerate(warps):
            cta, a = int(m.threads.cta[w[0]]), int(addr[i])
            taken = state.allocations.get(cta, {})
            if a >> 16 or taken.get(a & 0xFFFF) != int(cols[i]):
                raise m.fail(
                    f"tcgen05.dealloc of {int(cols[i])} columns at 0x{a:x}, which is no "
                    f"allocation of CTA {cta} ({taken or 'none'})",
                    int(w[0]),
                )
            del taken[a & 0xFFFF]

    return run


# ------------------------------------------------------------------ mma


@dataclass(frozen=True)
class _Idesc:
    kind: str
    d: str
    a: str
    b: str
    neg_a: bool
    neg_b: bool
    mn_major_a: bool
    mn_major_b: bool
    n: int
    m: int


def decode_instruction_descriptor(word: int, kind: str) -> _Idesc | str:
    """The fields of a dense instruction descriptor of `kind`, or what is wrong."""
    bits = lambda lo, n: (word >> lo) & ((1 << n) - 1)  # noqa: E731
    if bits(0, 3):
        return f"sparsity bits 0-2 are {bits(0, 3)} (dense: 0)"
    if bits(3, 1) and kind != "i8":
        return "the saturate bit 3 is set on a floating-point kind"
    for lo, n in ((6, 1), (23, 1), (29, 1), (30, 2)):
        if bits(lo, n):
            return f"reserved bit(s) {lo}..{lo + n - 1} are set"
    d = _D[kind].get(bits(4, 2))
    a, b = _AB[kind].get(bits(7, 3)), _AB[kind].get(bits(10, 3))
    if d is None or a is None or b is None:
        return (
            f"D/A/B type codes {bits(4, 2)}/{bits(7, 3)}/{bits(10, 3)} are not valid for "
            f"kind::{kind}"
        )
    if kind == "f16" and a != b:
        return "kind::f16 takes A and B of one type"
    if kind == "i8" and (bits(13, 1) or bits(14, 1)):
        return "negation bits 13-14 on kind::i8"
    n, mm = bits(17, 6) << 3, bits(24, 5) << 4
    return _Idesc(kind, d, a, b, bool(bits(13, 1)), bool(bits(14, 1)), bool(bits(15, 1)),
                  bool(bits(16, 1)), n, mm)  # fmt: skip


def _sm100_to_hopper(m: Machine, desc: int, lead: int, which: str) -> int:
    """A Hopper-layout descriptor for ``ptx_wgmma``'s operand reader, after checking the
    sm_100 fields."""
    if (desc >> 46) & 7 != DESCRIPTOR_VERSION:
        raise m.fail(
            f"bad {which} shared-memory descriptor 0x{desc:016x}: bits 46-48 are "
            f"{(desc >> 46) & 7:#05b}, the sm_100 descriptor's fixed value is 0b001",
            lead,
        )
    # Bits 14-15 are not checked: the simulator's shared arrays sit at flat addresses
    # whose 18-bit window can carry a start address past 14 bits (ptx_wgmma matches
    # the start modulo the window, as the hardware's address arithmetic would).
    if (desc >> 53) & 0xFF or (desc >> 30) & 3:
        raise m.fail(f"bad {which} shared-memory descriptor 0x{desc:016x}: reserved bits set", lead)
    if (desc >> 52) & 1:
        raise m.fail(
            f"{which} descriptor: the relative leading-dimension mode (bit 52)",
            lead,
            kind=UNSUPPORTED,
        )
    swizzle = (desc >> 61) & 7
    if swizzle not in _SWIZZLE:
        what = "128-byte swizzle with 32-byte atoms" if swizzle == 1 else "no such mode"
        raise m.fail(f"{which} descriptor: swizzle mode {swizzle} ({what})", lead, kind=UNSUPPORTED)
    return (desc & ((1 << 46) - 1)) | (((desc >> 49) & 7) << 49) | (_SWIZZLE[swizzle] << 62)


def _decode_mma(ins: Instruction, mods: Mods) -> Exec:
    scaled = mods.one_of(("kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4"))
    if scaled is not None:
        from tileir.testing.ptx_tcgen05_scaled import decode_scaled_mma

        return decode_scaled_mma(ins, mods, scaled.removeprefix("kind::"))
    kind = mods.one_of(tuple(f"kind::{k}" for k in _AB))
    if kind is None:
        raise unsupported(ins, "tcgen05.mma kinds other than f16, tf32, f8f6f4 and i8")
    kind = kind.removeprefix("kind::")
    mods.done()
    ops = list(ins.operands)
    if len(ops) != 5:
        raise unsupported(ins, "tcgen05.mma forms other than [d], a-desc, b-desc, idesc, enable")
    d, a_desc, b_desc, idesc, enable = ops
    if not isinstance(d, Mem) or isinstance(a_desc, Vec) or isinstance(b_desc, Mem | Vec):
        raise invalid(ins, "tcgen05.mma takes [d], [a-tmem] or a-desc, b-desc")

    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        taddr, adesc, bdesc, words, keep = mma_operands(m, act, d, a_desc, b_desc, idesc, enable)
        a_tmem = isinstance(a_desc, Mem)
        for lane in lanes_of(act).tolist():
            form = decode_instruction_descriptor(int(words[lane]), kind)
            if isinstance(form, str):
                raise m.fail(f"bad tcgen05.mma instruction descriptor: {form}", lane)
            if form.m not in (64, 128):
                raise m.fail(f"tcgen05.mma.cta_group::1 with M = {form.m} (64 or 128)", lane)
            step = 8 if form.m == 64 else 16
            if form.n % step or not step <= form.n <= 256:
                raise m.fail(f"tcgen05.mma with M = {form.m} and N = {form.n}", lane)
            size = {"f16": 2, "bf16": 2, "tf32": 4}.get(form.a, 1)
            if size != 2 and (form.mn_major_a or form.mn_major_b):
                raise m.fail("MN-major operands of 32- or 8-bit types", lane, kind=UNSUPPORTED)
            cta, lo = mma_d_columns(m, state, int(taddr[lane]), form.n, lane)
            group = np.array([[lane]])
            read: list[list[np.ndarray]] = [[]]
            hop_b = _sm100_to_hopper(m, int(bdesc[lane]), lane, "B")
            if a_tmem:
                raw_a = tmem_a(m, state, cta, int(adesc[lane]), form.m, form.mn_major_a, lane)
            else:
                hop_a = _sm100_to_hopper(m, int(adesc[lane]), lane, "A")
                raw_a = _operand_bytes(
                    m, np.array([hop_a], dtype=np.uint64), group, form.m, "A", form.mn_major_a, read
                )
            raw_b = _operand_bytes(
                m, np.array([hop_b], dtype=np.uint64), group, form.n, "B", form.mn_major_b, read
            )
            k = _K_BYTES // size
            A = _decode_elements(raw_a, form.a).reshape(form.m, k)
            Bt = _decode_elements(raw_b, form.b).reshape(form.n, k)
            if form.neg_a:
                A = -A
            if form.neg_b:
                Bt = -Bt
            write_d(state, cta, lo, form.m, form.d, A @ Bt.T, bool(keep[lane]), lane)
            if a_tmem:
                a_lo = int(adesc[lane]) & 0xFFFF
                state.a_reads[(cta, a_lo, a_lo + _K_BYTES // 4, lane)] = state.issued.get(lane, 0)
            _record_reads(m, state, lane, np.concatenate([np.ravel(a) for a in read[0]]))

    return run


def tmem_address(m: Machine, op: Mem, act: np.ndarray) -> np.ndarray:
    """Per thread, the tensor-memory address of a `[reg+offset]` operand."""
    return _value(m, Reg(op.base), "u32", act) + np.uint64(op.offset)


def mma_operands(
    m: Machine, act: np.ndarray, d: Mem, a: Operand, b: Operand, idesc: Operand, enable: Operand
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per thread, a `tcgen05.mma`'s D address, A (a tensor-memory address for `[a]`, else
    a descriptor), B descriptor, instruction descriptor and enable-input-d."""
    adesc = tmem_address(m, a, act) if isinstance(a, Mem) else _value(m, a, "b64", act)
    if isinstance(enable, Imm):
        keep = np.full(m.count, bool(enable.value))
    else:
        assert isinstance(enable, Reg)
        p = m.read_bits(Reg(enable.name), TYPES["pred"], act).astype(bool)
        keep = ~p if enable.negated else p
    words = _value(m, idesc, "b32", act)
    return tmem_address(m, d, act), adesc, _value(m, b, "b64", act), words, keep


def write_d(
    state: _State, cta: int, lo: int, rows: int, d: str, product: np.ndarray, keep: bool, lane: int
) -> None:
    """D (`rows` x N from column `lo`) = `product` (+ the old D when `keep`), rounded once
    to `d`; the columns become a region of the MMA of `lane`, readable after its commit."""
    n = product.shape[1]
    lanes = _d_lanes(rows)
    cells = state.memory(cta)[lanes, lo : lo + n]
    if keep:
        old = cells.view(np.int32) if d == "s32" else cells.view(np.float32)
        product = product + old.astype(product.dtype)
    if d == "s32":
        bits = (product.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
    else:
        bits = product.astype(np.float32).view(np.uint32)
    state.memory(cta)[lanes, lo : lo + n] = bits
    add_region(state, cta, lo, lo + n, lane)


def add_region(state: _State, cta: int, lo: int, hi: int, lane: int) -> None:
    """Columns `lo .. hi - 1` are written asynchronously by `lane`'s MMA or copy: readable
    with `tcgen05.ld` once a commit of `lane` after it is observed (regions it covers
    are replaced)."""
    state.regions = [r for r in state.regions if not (r.cta == cta and r.lo >= lo and r.hi <= hi)]
    state.regions.append(_Region(cta, lo, hi, lane))


def tmem_a(
    m: Machine, state: _State, cta: int, taddr: int, rows: int, mn_major: bool, lane: int
) -> np.ndarray:
    """The bytes of A of an MMA that reads it from tensor memory at `taddr` (9.7.16.10.9
    "tcgen05.mma", the matrix A in Tensor Memory): M = 128 in data-path layout D, row `i`
    in lane `i`, the 32 bytes of its K step in the 8 columns from the address's, each
    little-endian word two 16-bit elements (the even one in the low half).  Every column
    must be allocated, and no thread's `tcgen05.st` to it may still be unwaited
    (`tcgen05.wait::st`, 9.7.16.8.5)."""
    if rows != 128:
        raise m.fail(f"tcgen05.mma with A in tensor memory and M = {rows}", lane, kind=UNSUPPORTED)
    if mn_major:
        raise m.fail("tcgen05.mma with A in tensor memory takes A K-major (bit 15 clear)", lane)
    if taddr >> 16:
        raise m.fail(f"tcgen05.mma's A at lane {taddr >> 16} (A starts at lane 0)", lane)
    lo = taddr & 0xFFFF
    hi = lo + _K_BYTES // 4
    _check_columns(m, state, cta, lo, hi, lane, "tcgen05.mma reads A from")
    pending = state.unwaited.get(cta)
    if pending is not None:
        writers = pending[:, lo:hi]
        if (writers >= 0).any():
            raise m.fail(
                f"tcgen05.mma reads A from tensor memory columns {lo} .. {hi - 1} that thread "
                f"{int(writers[writers >= 0][0])} stored with tcgen05.st and has not waited "
                "for (tcgen05.wait::st before the fence and the barrier)",
                lane,
            )
    cells = np.ascontiguousarray(state.memory(cta)[:, lo:hi]).astype("<u4")
    return cells.view(np.uint8).reshape(128, _K_BYTES)


def _d_lanes(rows: int) -> np.ndarray:
    """The tensor-memory lane of each row of D: layout D (M = 128) row `i` in lane `i`;
    layout F (M = 64) rows `16q .. 16q+15` in lanes `32q .. 32q+15` (half the data path)."""
    r = np.arange(rows)
    return r if rows == 128 else 32 * (r // 16) + r % 16


def _decode_commit(ins: Instruction, mods: Mods) -> Exec:
    if not (
        mods.flag("mbarrier::arrive::one")
        and mods.one_of(("shared::cluster", "shared::cta")) is not None
        and mods.type("b") == TYPES["b64"]
    ):
        raise unsupported(ins, "tcgen05.commit forms other than .mbarrier::arrive::one.b64")
    mods.done()
    (a,) = operands(ins, 1)
    if not isinstance(a, Mem):
        raise invalid(ins, f"an mbarrier address operand, got {a}")

    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        lanes = lanes_of(act)
        addresses = mbarrier_addresses(m, a, act, lanes)
        for k, lane in enumerate(lanes.tolist()):
            bar = lookup(m, int(addresses[k]), lane)
            # The MMAs complete with the mbarrier phase this arrival belongs to: only
            # a thread that observed that phase (or synchronized with one that did)
            # may read their D, not one merely ordered after the issuing thread.
            stamp = int(m.order.stamp(np.array([bar.agent]))[0]) if m.check_races else 0
            for region in state.regions:
                if region.issuer != lane:
                    continue
                if region.agent < 0:
                    region.agent, region.time = bar.agent, stamp
                else:
                    region.later = [*region.later, (bar.agent, stamp)][-_COMMITS_KEPT:]
            # The issuer's last commits to each mbarrier are kept (older ones cover only
            # MMAs that later ones cover too, for a writer that kept up with them).
            same = [c for c in state.commits if c.issuer == lane and c.agent == bar.agent]
            if len(same) >= _COMMITS_KEPT:
                state.commits.remove(same[0])
            state.commits.append(_Commit(lane, state.issued.get(lane, 0), bar.agent, stamp))
            arrive(m, bar, np.array([lane]), np.array([1]), None, release=True)

    return run


# ------------------------------------------------------------------ ld / st


def _decode_ld_st(ins: Instruction, mods: Mods, store: bool) -> Exec:
    what = "tcgen05.st" if store else "tcgen05.ld"
    if not (mods.flag("sync") and mods.flag("aligned")):
        raise invalid(ins, f"{what} without .sync.aligned")
    shape = mods.one_of(("32x32b", "16x256b"))
    if shape is None:
        raise unsupported(ins, f"{what} shapes other than .32x32b and .16x256b")
    reps = [r for r in mods.rest if r.startswith("x") and r[1:].isdigit()]
    if len(reps) != 1:
        raise invalid(ins, f"{what} needs one .xN")
    mods.rest.remove(reps[0])
    count = int(reps[0][1:])
    # .num: x1 .. x128 for .32x32b, x1 .. x32 for .16x256b (4 registers each).
    if count not in (1, 2, 4, 8, 16, 32, 64, 128) or (shape == "16x256b" and count > 32):
        raise invalid(ins, f"{what}.{shape}.x{count}")
    if mods.type("b") != TYPES["b32"]:
        raise invalid(ins, f"{what} is .b32")
    mods.done()
    regs_op, addr_op = (ins.operands[1], ins.operands[0]) if store else ins.operands[:2]
    operands(ins, 2)
    items = regs_op.items if isinstance(regs_op, Vec) else (regs_op,)
    registers = count if shape == "32x32b" else 4 * count
    if len(items) != registers or not isinstance(addr_op, Mem):
        raise invalid(ins, f"{what}.x{count} takes {registers} registers and a [taddr]")
    b32 = TYPES["b32"]
    # Per thread `l` of the warp and register `r`: the lane (from the address's) and the
    # column (from the address's) it moves.  .32x32b: lane l, column r.  .16x256b
    # (9.7.16.2.3.1, "Matrix fragments for shape .16x256b"): 16 lanes, 8 columns per
    # repetition; lane l / 4 + 8 (r / 2 % 2), column r % 2 + 2 (l % 4) + 8 (r / 4).
    thread = np.arange(32)[:, None]
    reg = np.arange(registers)[None, :]
    if shape == "32x32b":
        lane_of, column_of = (
            np.broadcast_to(thread, (32, registers)),
            np.broadcast_to(reg, (32, registers)),
        )
        span = (32, count)
    else:
        lane_of = thread // 4 + 8 * (reg // 2 % 2)
        column_of = reg % 2 + 2 * (thread % 4) + 8 * (reg // 4)
        span = (16, 8 * count)

    def run(m: Machine, act: np.ndarray) -> None:
        warps = _warps(m, act, what)
        state = _state(m)
        taddr = _value(m, Reg(addr_op.base), "u32", act) + np.uint64(addr_op.offset)
        addr = _uniform(m, taddr, warps, "the tensor-memory address")
        for i, w in enumerate(warps):
            lead = int(w[0])
            cta = int(m.threads.cta[lead])
            quarter = 32 * (((lead % m.threads.per_cta) // 32) % 4)
            lane0, col = int(addr[i]) >> 16, int(addr[i]) & 0xFFFF
            # A 16-lane access starts at either half of the lane quarter.
            if lane0 not in (quarter, quarter + 32 - span[0]):
                raise m.fail(
                    f"{what} at lane {lane0}: warp {(lead % m.threads.per_cta) // 32} may "
                    f"only access lanes {quarter} .. {quarter + 31} (its lane quarter)",
                    lead,
                )
            hi = col + span[1]
            _check_columns(m, state, cta, col, hi, lead, f"{what} accesses")
            cells = state.memory(cta)
            lanes, columns = lane0 + lane_of, col + column_of
            if store:
                _check_a_unread(m, state, cta, col, hi, w, f"{what} writes")
                sub = np.zeros(m.count, dtype=bool)
                sub[w] = True
                words = np.stack([m.read_bits(r, b32, sub)[w] for r in items], axis=1)
                cells[lanes, columns] = words.astype(np.uint32)
                if cta not in state.unwaited:
                    state.unwaited[cta] = np.full((LANES, COLUMNS), -1, dtype=np.int64)
                state.unwaited[cta][lanes, columns] = np.broadcast_to(
                    w.astype(np.int64)[:, None], lanes.shape
                )
                continue
            for region in state.regions:
                if region.cta != cta or region.hi <= col or hi <= region.lo:
                    continue
                if region.agent < 0:
                    raise m.fail(
                        f"{what} reads tensor memory columns {region.lo} .. {region.hi - 1} "
                        "that a tcgen05.mma writes before any tcgen05.commit covers it",
                        lead,
                    )
                if m.check_races:
                    ok = np.zeros(len(w), dtype=bool)
                    for agent, time in [(region.agent, region.time), *region.later]:
                        ok |= m.order.ordered(
                            np.full(len(w), agent), np.full(len(w), time), w.astype(np.int64)
                        )
                    if not ok.all():
                        raise m.fail(
                            f"{what} reads tensor memory columns {region.lo} .. "
                            f"{region.hi - 1} before the tcgen05.commit's mbarrier phase "
                            "completed for this thread (wait on the mbarrier first)",
                            int(w[int(np.argmin(ok))]),
                        )
            values = cells[lanes, columns]
            sub = np.zeros(m.count, dtype=bool)
            sub[w] = True
            for j, r in enumerate(items):
                full = np.zeros(m.count, dtype=np.uint32)
                full[w] = values[:, j]
                m.write_bits(r, full, b32, sub)

    return run
