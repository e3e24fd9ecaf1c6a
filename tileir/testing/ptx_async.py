"""Asynchronous copies in the PTX simulator: ``cp.async`` and ``cp.async.bulk``, and the
proxy fences they need.

Written from the PTX ISA's *cp.async*, *cp.async.bulk* and *membar/fence* sections (8.x).
A copy is *in flight* from the instruction that issues it to the completion that a
wait observes, and the simulator lands its bytes only then, as late as the hardware
may (``ptx_mbarrier`` for the mbarrier side).  Until then any ``ld``/``st`` of the
destination, another copy to it, or a store over a source still being read, is an
``async-race``; after it, an access not ordered after the completion (``ptx_order``:
the wait, then a barrier for other threads) is one too.  A copy also must not
overwrite bytes whose earlier readers and writers are not ordered before its issue
(a stage refilled before its consumers released it).

* ``cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B/128B/256B} [dst],
  [src], cp-size{, src-size | ignore-src}{, cache-policy}`` (sm_80): 4, 8 or 16 bytes
  (``.cg``: 16), ``src-size`` of them read from ``src`` and the rest zero (with
  ``ignore-src`` true, none); ``dst`` and ``src`` aligned to ``cp-size``; only the
  bytes read are bounds-checked (``src-size`` 0 reads nothing).  The source is read at
  issue (changing it in flight is not detected).  ``cp.async.commit_group`` closes the
  thread's group of copies, ``cp.async.wait_group N`` lands all but the newest ``N``
  committed groups of the thread, ``cp.async.wait_all`` all of them; the landed bytes
  are visible to the waiting thread, to others after a barrier.
  ``cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar]``: an arrival on the
  mbarrier once all the thread's copies so far complete (they then land on that
  mbarrier's phase; without ``.noinc`` the pending count is raised by one first, so the
  arrival does not count towards the expected ones).
* ``cp.async.bulk.shared::{cluster,cta}.global.mbarrier::complete_tx::bytes
  {.L2::cache_hint} [dst], [src], size, [mbar]{, policy}`` (sm_90): ``size`` bytes, a
  multiple of 16, both addresses 16-byte aligned; on completion the bytes land and the
  mbarrier's tx-count drops by ``size``.  The shared::cluster destination is the
  issuing CTA's own shared memory (the simulator has no clusters).
* ``cp.async.bulk.global.shared::cta.bulk_group{.L2::cache_hint} [dst], [src], size
  {, policy}``: the reverse, read from shared memory through the async proxy (so bytes a
  thread stored there must be made visible with its ``fence.proxy.async`` ordered before
  the copy: ``ptx_races.check_async_read``), completed per thread by
  ``cp.async.bulk.commit_group`` and ``cp.async.bulk.wait_group{.read} N`` (``.read``:
  the source may be reused; without it the global bytes have landed too).  A CTA that
  exits while such a copy still reads its shared memory is an error; global writes
  still in flight at the end of the launch land then.
* ``fence.proxy.async{.shared::cta,.shared::cluster,.global}``: the thread's earlier
  generic-proxy stores become visible to async-proxy readers ordered after the fence;
  ``fence.mbarrier_init.release.cluster`` is accepted (no clusters: no effect).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tileir.testing.ptx_decode import (
    Exec,
    Mods,
    decoder,
    invalid,
    lanes_of,
    operands,
    unsupported,
)
from tileir.testing.ptx_errors import ASYNC_RACE, INVALID, MISALIGNED, OUT_OF_BOUNDS
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_mbarrier import (
    Deferred,
    changed,
    lookup,
    mbarrier_addresses,
    settle,
    unfinished_transfers,
)
from tileir.testing.ptx_numeric import TYPES
from tileir.testing.ptx_ops import check_access
from tileir.testing.ptx_parse import Imm, Instruction, Mem, Operand, Reg
from tileir.testing.ptx_races import check_async_read, describe_agent
from tileir.testing.ptx_tcgen05 import check_copy_unread as check_tcgen05_unread
from tileir.testing.ptx_wgmma import check_copy_unread


@dataclass
class Copy:
    """Copies issued by one instruction: a row per issuing thread, each ``size`` bytes
    from ``data`` to ``dst`` (shared memory, or global for a bulk store)."""

    text: str
    ident: int
    issuer: np.ndarray
    dst: np.ndarray
    data: np.ndarray
    #: Each issuing thread's clock at the issue.
    clock: np.ndarray
    #: The issuing thread's group number (``cp.async``, bulk stores), else -1.
    group: np.ndarray
    pending: np.ndarray
    shared: bool = True
    #: Bulk stores: the shared source bytes still being read (flat offsets), per row.
    reading: list[np.ndarray] | None = None

    @property
    def size(self) -> int:
        return int(self.data.shape[1])

    @property
    def nbytes(self) -> int:
        return self.size * len(self.issuer)

    def land(self, m: Machine, agent: int) -> None:
        """Every row lands, written by ``agent`` (an mbarrier's copies)."""
        land(m, self, self.pending.copy(), np.full(len(self.issuer), agent))


@dataclass
class _Deferred:
    """``cp.async.mbarrier.arrive``: lands a thread's copies in flight at that point."""

    parts: list[tuple[Copy, np.ndarray]]

    def land_together(self, m: Machine, arrivals: Sequence[Deferred], agent: int) -> None:
        """The copies of all ``arrivals`` land, each copy's rows at once."""
        rows: dict[int, tuple[Copy, np.ndarray]] = {}
        for arrival in arrivals:
            assert isinstance(arrival, _Deferred)
            for copy, mine in arrival.parts:
                seen = rows.get(id(copy))
                rows[id(copy)] = (copy, mine if seen is None else seen[1] | mine)
        for copy, mask in rows.values():
            land(m, copy, mask & copy.pending, np.full(len(copy.issuer), agent))


@dataclass
class _Async:
    copies: list[Copy] = field(default_factory=list)
    stores: list[Copy] = field(default_factory=list)
    committed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    bulk_committed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    idents: int = 0


def _state(m: Machine) -> _Async:
    state = m.extensions.get(__name__)
    if isinstance(state, _Async):
        return state
    state = _Async()
    state.committed = np.zeros(m.count, dtype=np.int64)
    state.bulk_committed = np.zeros(m.count, dtype=np.int64)
    m.extensions[__name__] = state
    memory = m.memory
    if memory.inflight is None:
        memory.inflight = np.full(len(memory.data), -1, dtype=np.int32)
        memory.async_reads = np.zeros(len(memory.data), dtype=np.int32)
    m.order.thread_async(np.zeros(0, dtype=np.int64))  # the columns of threads' own copies
    return state


# ------------------------------------------------------------------- landing


def land(m: Machine, copy: Copy, rows: np.ndarray, agents: np.ndarray) -> None:
    """The copy's ``rows`` (a mask) land, written by ``agents`` (per row)."""
    idx = np.flatnonzero(rows & copy.pending)
    if not len(idx):
        return
    memory = m.memory
    offsets = memory.offsets(copy.dst[idx], copy.size)
    flat = offsets.reshape(-1)
    if copy.shared:
        assert memory.inflight is not None
        memory.inflight[flat] = -1
    if m.check_races:
        _check_overwrite(m, copy, idx, flat)
    memory.store(copy.dst[idx], copy.data[idx], agents[idx])
    copy.pending[idx] = False


def _check_overwrite(m: Machine, copy: Copy, idx: np.ndarray, flat: np.ndarray) -> None:
    """The bytes' earlier writers and readers must happen before the copy's issue."""
    memory, order = m.memory, m.order
    row = np.repeat(idx, copy.size)
    clocks = copy.clock
    if clocks.shape[1] < order.width:
        clocks = np.pad(clocks, ((0, 0), (0, order.width - clocks.shape[1])))
    for agents, times, how in (
        (memory.reader[flat], memory.rtime[flat], "read"),
        (memory.writer[flat], memory.wtime[flat], "wrote"),
    ):
        need = (agents >= 0) & (agents != copy.issuer[row])
        if not need.any():
            continue
        cta, column = order.locate(agents[need])
        rows = row[need]
        ok = (cta == m.threads.cta[copy.issuer[rows]]) & (clocks[rows, column] >= times[need])
        if not ok.all():
            k = int(np.flatnonzero(need)[int(np.argmin(ok))])
            raise m.fail(
                f"`{copy.text}` ({m.threads.describe(int(copy.issuer[row[k]]))}) overwrites a "
                f"byte that {describe_agent(m, int(agents[k]))} {how}, and that access is not "
                "ordered before the copy was issued (a buffer refilled before its readers "
                f"released it) ({memory.describe(int(flat[k]) + memory.BASE)})",
                int(copy.issuer[row[k]]),
                int(flat[k]) + memory.BASE,
                kind=ASYNC_RACE,
            )


def issue(m: Machine, text: str, lanes: np.ndarray, dst: np.ndarray, data: np.ndarray) -> Copy:
    """Record copies of ``data`` to shared ``dst`` issued by ``lanes``: the bytes are
    in flight from now on."""
    state = _state(m)
    memory = m.memory
    assert memory.inflight is not None and memory.async_reads is not None
    flat = memory.offsets(dst, data.shape[1]).reshape(-1)
    who = np.repeat(lanes, data.shape[1])
    busy = memory.inflight[flat] >= 0
    if busy.any():
        k = int(np.argmax(busy))
        raise m.fail(
            "an asynchronous copy to shared bytes that another copy in flight also writes "
            "(no wait orders the two)",
            int(who[k]),
            int(flat[k]) + memory.BASE,
            kind=ASYNC_RACE,
        )
    if memory.mbarrier_bytes is not None and memory.mbarrier_bytes[flat].any():
        k = int(np.argmax(memory.mbarrier_bytes[flat]))
        raise m.fail(
            "an asynchronous copy over a valid mbarrier object",
            int(who[k]),
            int(flat[k]) + memory.BASE,
            kind=INVALID,
        )
    check_copy_unread(m, flat + memory.BASE, who)
    check_tcgen05_unread(m, flat + memory.BASE, who)
    reading = memory.async_reads[flat] > 0
    if reading.any():
        k = int(np.argmax(reading))
        raise m.fail(
            "an asynchronous copy to shared bytes that a bulk copy is still reading",
            int(who[k]),
            int(flat[k]) + memory.BASE,
            kind=ASYNC_RACE,
        )
    state.idents += 1
    copy = Copy(
        text,
        state.idents,
        lanes.astype(np.int64),
        dst.astype(np.int64),
        data,
        m.order.clock[lanes].copy(),
        np.full(len(lanes), -1, dtype=np.int64),
        np.ones(len(lanes), dtype=bool),
    )
    memory.inflight[flat] = copy.ident
    return copy


def finish(m: Machine) -> None:
    """After the launch: copies into shared memory whose mbarrier phase never completed
    (nobody waited for them: the CTA exited with them in flight) and bulk stores still
    reading shared memory are errors; the stores' global bytes still in flight land."""
    state = m.extensions.get(__name__)
    if not isinstance(state, _Async):
        return
    m.current = None
    for bar, copy in unfinished_transfers(m):
        raise m.fail(
            f"the CTA exited while `{copy.text}` may still write its shared memory: the "
            f"mbarrier phase it completes on never completed ({bar.pending} of "
            f"{bar.expected} arrivals pending, tx-count {bar.tx}), so no thread waited for it",
            None,
            bar.address,
            kind=ASYNC_RACE,
        )
    for store in state.stores:
        if store.reading:
            lane = int(store.issuer[0])
            raise m.fail(
                f"the CTA exited while `{store.text}` still reads its shared memory (wait with "
                "cp.async.bulk.wait_group.read before exiting)",
                lane,
                kind=ASYNC_RACE,
            )
        land(m, store, store.pending.copy(), store.issuer + m.count)


# ------------------------------------------------------------------ decoders


def _u32(m: Machine, op: Operand, act: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    return m.read(op, TYPES["u32"], act)[lanes].astype(np.int64)


def shared_destination(
    m: Machine, dst: np.ndarray, size: np.ndarray | int, lanes: np.ndarray, align: int, what: str
) -> None:
    """Each access of ``size`` bytes at ``dst`` lies in the issuing thread's CTA's shared
    memory and is ``align``-aligned."""
    sizes = np.broadcast_to(np.asarray(size), dst.shape)
    for n in np.unique(sizes).tolist():
        at = np.flatnonzero(sizes == n)
        outside = m.memory.shared_cta(dst[at], int(n)) != m.threads.cta[lanes[at]]
        misaligned = dst[at] % align != 0
        for bad, problem, kind in (
            (outside, "outside the thread's CTA's shared memory", OUT_OF_BOUNDS),
            (misaligned, f"not {align}-byte aligned", MISALIGNED),
        ):
            if bad.any():
                k = int(at[int(np.argmax(bad))])
                address = int(dst[k])
                raise m.fail(
                    f"{what}: a {n}-byte shared access {problem} ({m.memory.describe(address)})",
                    int(lanes[k]),
                    address,
                    kind=kind,
                )


def _global_source(
    m: Machine, src: np.ndarray, sizes: np.ndarray, lanes: np.ndarray, align: int, what: str
) -> np.ndarray:
    """``(n, max size)`` bytes read from global ``src`` (``sizes[i]`` of row ``i``),
    bounds- and alignment-checked where something is read."""
    width = int(sizes.max()) if len(sizes) else 0
    data = np.zeros((len(src), width), dtype=np.uint8)
    for n in np.unique(sizes).tolist():
        at = np.flatnonzero(sizes == n)
        if n == 0:
            continue
        check_access(m, src[at], n, lanes[at], f"{what} source", align)
        data[at, :n] = m.memory.load(src[at], n)
    return data


@decoder("cp")
def decode_cp(ins: Instruction) -> Exec:
    mods = Mods(ins)
    if not mods.flag("async"):
        raise unsupported(ins, "cp without .async")
    if mods.flag("bulk"):
        return _decode_bulk(ins, mods)
    if mods.flag("commit_group"):
        mods.done()
        operands(ins, 0)
        return _commit
    if mods.flag("wait_all"):
        mods.done()
        operands(ins, 0)
        return _wait(0, commit=True)
    if mods.flag("wait_group"):
        mods.done()
        (n,) = operands(ins, 1)
        if not isinstance(n, Imm) or not isinstance(n.value, int) or n.value < 0:
            raise invalid(ins, f"cp.async.wait_group takes a non-negative literal, got {n}")
        return _wait(int(n.value), commit=False)
    if mods.flag("mbarrier"):
        return _decode_mbarrier_arrive(ins, mods)
    return _decode_cp_async(ins, mods)


def _decode_cp_async(ins: Instruction, mods: Mods) -> Exec:
    cache = mods.one_of(("ca", "cg"))
    if cache is None:
        raise invalid(ins, "cp.async needs .ca or .cg")
    if mods.one_of(("shared", "shared::cta")) is None or not mods.flag("global"):
        raise invalid(ins, "cp.async copies .global to .shared{::cta}")
    hint = mods.flag("L2::cache_hint")
    mods.one_of(("L2::64B", "L2::128B", "L2::256B"))
    mods.done()
    ops = list(ins.operands)
    if hint:
        ops = ops[:-1]  # the cache policy
    if not 3 <= len(ops) <= 4:
        raise invalid(ins, "cp.async takes [dst], [src], cp-size{, src-size | ignore-src}")
    d, s, c = ops[0], ops[1], ops[2]
    extra = ops[3] if len(ops) == 4 else None
    if not isinstance(d, Mem) or not isinstance(s, Mem):
        raise invalid(ins, "cp.async addresses must be [address] operands")
    if not isinstance(c, Imm) or c.value not in (4, 8, 16):
        raise invalid(ins, f"cp.async cp-size must be 4, 8 or 16, got {c}")
    size = int(c.value)
    if cache == "cg" and size != 16:
        raise invalid(ins, "cp.async.cg copies 16 bytes")
    text = ins.text

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing.ptx_ops import _addresses  # pyright: ignore[reportPrivateUsage]

        state = _state(m)
        lanes = lanes_of(act)
        dst = _addresses(m, d, act, lanes, "shared").astype(np.int64)
        src = _addresses(m, s, act, lanes).astype(np.int64)
        if extra is None:
            sizes = np.full(len(lanes), size, dtype=np.int64)
        elif isinstance(extra, Reg) and m.registers[extra.name].type.kind == "pred":
            ignore = m.read_pred(extra, act)[lanes]
            sizes = np.where(ignore, 0, size).astype(np.int64)
        else:
            sizes = _u32(m, extra, act, lanes)
            if (sizes > size).any():
                k = int(np.argmax(sizes > size))
                raise m.fail(
                    f"cp.async src-size {int(sizes[k])} exceeds cp-size {size}",
                    int(lanes[k]),
                    kind=INVALID,
                )
        shared_destination(m, dst, size, lanes, size, "cp.async")
        data = np.zeros((len(lanes), size), dtype=np.uint8)
        read = _global_source(m, src, sizes, lanes, size, "cp.async")
        data[:, : read.shape[1]] = read
        copy = issue(m, text, lanes, dst, data)
        copy.group = state.committed[lanes].copy()
        state.copies.append(copy)

    return run


def _commit(m: Machine, act: np.ndarray) -> None:
    state = _state(m)
    state.committed[act] += 1


def _wait(n: int, commit: bool) -> Exec:
    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        if commit:
            state.committed[act] += 1
        lanes = lanes_of(act)
        limit = np.full(m.count, -1, dtype=np.int64)
        limit[lanes] = state.committed[lanes] - n
        agents = m.order.observe_own_async(lanes)
        by_thread = np.full(m.count, -1, dtype=np.int64)
        by_thread[lanes] = agents
        for copy in state.copies:
            rows = act[copy.issuer] & (copy.group < limit[copy.issuer]) & copy.pending
            if rows.any():
                land(m, copy, rows, by_thread[copy.issuer])
        state.copies = [c for c in state.copies if c.pending.any()]

    return run


def _decode_mbarrier_arrive(ins: Instruction, mods: Mods) -> Exec:
    if not mods.flag("arrive"):
        raise invalid(ins, "cp.async.mbarrier needs .arrive")
    noinc = mods.flag("noinc")
    if mods.one_of(("shared", "shared::cta")) is None:
        raise invalid(ins, "cp.async.mbarrier.arrive needs .shared{::cta}")
    if mods.type("b") != TYPES["b64"]:
        raise invalid(ins, "cp.async.mbarrier.arrive is .b64")
    mods.done()
    (a,) = operands(ins, 1)
    if not isinstance(a, Mem):
        raise invalid(ins, f"an mbarrier address operand, got {a}")

    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        lanes = lanes_of(act)
        addresses = mbarrier_addresses(m, a, act, lanes)
        # The threads with rows in flight in each copy, once: rows only land meanwhile,
        # so a copy without pending rows of a thread now has none at its turn either.
        issuers = [(c, set(c.issuer[c.pending].tolist())) for c in state.copies]
        for k, address in enumerate(addresses.tolist()):
            lane = int(lanes[k])
            bar = lookup(m, address, lane)
            parts = [(c, (c.issuer == lane) & c.pending) for c, who in issuers if lane in who]
            deferred = _Deferred([(c, rows) for c, rows in parts if rows.any()])
            if not noinc:
                bar.pending += 1
            bar.deferred.append(deferred)
            settle(m, bar)
        # (Copies that have landed everywhere are done with, as after `cp.async.wait_group`.)
        state.copies = [c for c in state.copies if c.pending.any()]
        changed(m)

    return run


def _decode_bulk(ins: Instruction, mods: Mods) -> Exec:
    if mods.flag("commit_group"):
        mods.done()
        operands(ins, 0)
        return _bulk_commit
    if mods.flag("wait_group"):
        read = mods.flag("read")
        mods.done()
        (n,) = operands(ins, 1)
        if not isinstance(n, Imm) or not isinstance(n.value, int) or n.value < 0:
            raise invalid(ins, f"cp.async.bulk.wait_group takes a non-negative literal, got {n}")
        return _bulk_wait(int(n.value), read)
    if mods.flag("prefetch"):
        raise unsupported(ins, "cp.async.bulk.prefetch (L2 prefetches)")
    if mods.flag("tensor"):
        from tileir.testing.ptx_tma import decode_bulk_tensor

        return decode_bulk_tensor(ins, mods)
    if mods.flag("multicast::cluster"):
        raise unsupported(ins, "multicast bulk copies (clusters)")
    hint = mods.flag("L2::cache_hint")
    spaces = [x for x in mods.rest if x in ("global", "shared::cta", "shared::cluster")]
    if len(spaces) != 2:
        raise invalid(ins, "cp.async.bulk needs a destination and a source state space")
    for space in spaces:
        mods.flag(space)
    destination, source = spaces
    if destination != "global" and source == "global":
        if not mods.flag("mbarrier::complete_tx::bytes"):
            raise invalid(ins, "cp.async.bulk to shared memory completes on an mbarrier")
        mods.done()
        return _decode_bulk_load(ins, hint)
    if destination == "global" and source == "shared::cta":
        if not mods.flag("bulk_group"):
            raise invalid(ins, "cp.async.bulk to global memory completes in a bulk group")
        mods.done()
        return _decode_bulk_store(ins, hint)
    raise unsupported(ins, f"cp.async.bulk from .{source} to .{destination}")


def _bulk_operands(ins: Instruction, ops: list[Operand], hint: bool, count: int) -> list[Operand]:
    if hint:
        ops = ops[:-1]
    if len(ops) != count:
        raise invalid(ins, f"{len(ops)} operands (expected {count} and an optional cache policy)")
    for k in (0, 1):
        if not isinstance(ops[k], Mem):
            raise invalid(ins, f"cp.async.bulk address operand {ops[k]}")
    return ops


def _bulk_sizes(m: Machine, op: Operand, act: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    sizes = _u32(m, op, act, lanes)
    bad = (sizes <= 0) | (sizes % 16 != 0)
    if bad.any():
        k = int(np.argmax(bad))
        raise m.fail(
            f"cp.async.bulk size {int(sizes[k])} (a positive multiple of 16)",
            int(lanes[k]),
            kind=INVALID,
        )
    return sizes


def _decode_bulk_load(ins: Instruction, hint: bool) -> Exec:
    d, s, c, b = _bulk_operands(ins, list(ins.operands), hint, 4)
    assert isinstance(d, Mem) and isinstance(s, Mem)
    if not isinstance(b, Mem):
        raise invalid(ins, f"an mbarrier address operand, got {b}")
    text = ins.text

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing.ptx_ops import _addresses  # pyright: ignore[reportPrivateUsage]

        _state(m)
        lanes = lanes_of(act)
        dst = _addresses(m, d, act, lanes, "shared").astype(np.int64)
        src = _addresses(m, s, act, lanes).astype(np.int64)
        sizes = _bulk_sizes(m, c, act, lanes)
        bars = mbarrier_addresses(m, b, act, lanes)
        shared_destination(m, dst, sizes, lanes, 16, "cp.async.bulk")
        for k in range(len(lanes)):
            lane = lanes[k : k + 1]
            bar = lookup(m, int(bars[k]), int(lane[0]))
            data = _global_source(m, src[k : k + 1], sizes[k : k + 1], lane, 16, "cp.async.bulk")
            copy = issue(m, text, lane, dst[k : k + 1], data)
            bar.transfers.append(copy)
            settle(m, bar)
        changed(m)

    return run


def _decode_bulk_store(ins: Instruction, hint: bool) -> Exec:
    d, s, c = _bulk_operands(ins, list(ins.operands), hint, 3)
    assert isinstance(d, Mem) and isinstance(s, Mem)
    text = ins.text

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing.ptx_ops import _addresses  # pyright: ignore[reportPrivateUsage]

        state = _state(m)
        memory = m.memory
        assert memory.async_reads is not None
        lanes = lanes_of(act)
        dst = _addresses(m, d, act, lanes).astype(np.int64)
        src = _addresses(m, s, act, lanes, "shared").astype(np.int64)
        sizes = _bulk_sizes(m, c, act, lanes)
        for k in range(len(lanes)):
            lane = int(lanes[k])
            n = int(sizes[k])
            one = np.array([lane])
            check_access(m, dst[k : k + 1], n, one, "cp.async.bulk destination", 16)
            shared_destination(m, src[k : k + 1], n, one, 16, "cp.async.bulk source")
            source = src[k] + np.arange(n, dtype=np.int64)
            if m.check_races:
                check_async_read(m, source, lane, "cp.async.bulk source")
            data = memory.load(src[k : k + 1], n)
            state.idents += 1
            store = Copy(
                text,
                state.idents,
                one.astype(np.int64),
                dst[k : k + 1],
                data,
                m.order.clock[one].copy(),
                state.bulk_committed[one].copy(),
                np.ones(1, dtype=bool),
                shared=False,
                reading=[source - memory.BASE],
            )
            memory.async_reads[source - memory.BASE] += 1
            state.stores.append(store)

    return run


def _bulk_commit(m: Machine, act: np.ndarray) -> None:
    state = _state(m)
    state.bulk_committed[act] += 1


def _bulk_wait(n: int, read_only: bool) -> Exec:
    def run(m: Machine, act: np.ndarray) -> None:
        state = _state(m)
        memory = m.memory
        assert memory.async_reads is not None
        lanes = lanes_of(act)
        limit = np.full(m.count, -1, dtype=np.int64)
        limit[lanes] = state.bulk_committed[lanes] - n
        if not read_only:
            m.order.observe_own_async(lanes)
        for store in state.stores:
            lane = int(store.issuer[0])
            if not act[lane] or store.group[0] >= limit[lane]:
                continue
            if store.reading:
                for offsets in store.reading:
                    memory.async_reads[offsets] -= 1
                store.reading = None
            if not read_only:
                land(m, store, store.pending.copy(), store.issuer + m.count)
        state.stores = [s for s in state.stores if s.reading or s.pending.any()]

    return run


@decoder("fence")
def decode_fence(ins: Instruction) -> Exec:
    """``fence.proxy.async{.shared::cta,.shared::cluster,.global}``: the thread's earlier
    generic stores become visible to async-proxy readers that the fence happens before
    (``ptx_order.HappensBefore.fenced``); ``fence.mbarrier_init.release.cluster``: no
    effect without clusters."""
    mods = Mods(ins)
    if mods.flag("mbarrier_init"):
        if not (mods.flag("release") and mods.flag("cluster")):
            raise invalid(ins, "fence.mbarrier_init is .release.cluster")
        mods.done()
        operands(ins, 0)
        return lambda m, act: None
    if "tensormap::generic" in mods.rest and mods.flag("proxy"):
        from tileir.testing.ptx_tma import decode_fence as decode_tensormap_fence

        return decode_tensormap_fence(ins, mods)
    if not (mods.flag("proxy") and mods.flag("async")):
        raise unsupported(
            ins,
            "fence other than fence.proxy.async, fence.proxy.tensormap::generic and "
            "fence.mbarrier_init",
        )
    mods.one_of(("shared::cta", "shared::cluster", "global"))
    mods.done()
    operands(ins, 0)
    return _proxy_fence


def _proxy_fence(m: Machine, act: np.ndarray) -> None:
    m.order.proxy_fence(np.flatnonzero(act))


@decoder("membar")
def decode_membar(ins: Instruction) -> Exec:
    """``membar.{cta,gl,sys}``: orders the thread's own memory accesses, which the
    simulator performs in program order already; it synchronizes no thread with
    another, so the race checks take no order from it (no effect)."""
    mods = Mods(ins)
    mods.one_of(("cta", "gl", "sys"))
    mods.done()
    operands(ins, 0)
    return lambda m, act: None
