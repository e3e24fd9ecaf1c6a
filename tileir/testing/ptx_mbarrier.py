"""mbarrier objects in the PTX simulator: phases, arrivals and transaction counts.

Written from the PTX ISA's *mbarrier* sections (8.x).  An mbarrier is a 64-bit object in
shared memory (8-byte aligned) with a current phase, a pending and an expected arrival
count, and a transaction count (tx-count):

* ``mbarrier.init{.shared{::cta}}.b64 [addr], count``: phase 0, expected = pending =
  ``count`` (1 .. 2^20-1), tx-count 0.  Initializing a valid object is an error; the
  init must happen before every other use by another thread (a ``bar.sync`` after it),
  as for any shared store.  ``mbarrier.inval`` ends the object.  While it is valid,
  ``ld``/``st`` must not touch its bytes.
* ``mbarrier.arrive{.release|.relaxed}{.cta}{.shared{::cta}}.b64 state, [addr]{, count}``
  (also ``.noComplete``, ``.expect_tx`` with a tx count instead of ``count``, and
  ``arrive_drop``, which lowers the expected count for later phases too): each active
  thread arrives ``count`` times (default 1); ``.expect_tx`` first raises the tx-count.
  ``state`` (or the sink ``_``) gets an opaque value naming the phase arrived on.
* ``mbarrier.expect_tx`` / ``mbarrier.complete_tx [addr], txCount``: raise / lower the
  tx-count; asynchronous copies lower it as they complete (``ptx_async``).
* The phase completes when its pending count and tx-count both reach 0: the phase
  advances, pending is reset to the expected count, tx-count to 0.  More arrivals than
  pending in one phase (the phase waits for transactions), a ``.noComplete`` arrival
  that completes it, or a copy completing more bytes than the phase still expects (its
  tx-count would pass zero mid-copy, completing the phase early), is an error.
* ``mbarrier.test_wait{.parity}`` / ``mbarrier.try_wait{.parity}{.acquire|.relaxed}
  {.cta}{.shared{::cta}}.b64 waitComplete, [addr], state|phaseParity{, hint}``: true if
  the phase ``state`` names has completed, or (``.parity``) if the current phase's parity
  differs from ``phaseParity`` (the phase with that parity, the current or the one
  before, has completed).  A false answer parks the thread (``ptx_sched``) until some
  mbarrier changes, so the warps that will complete the phase run meanwhile.

Ordering (``ptx_order``): an arrival releases the arriving thread's accesses (not with
``.relaxed``), a wait that sees its phase complete acquires everything released into
completed phases (not with ``.relaxed``), and the copies that completed on the object
are an agent of their own whose writes only such a wait makes visible.

When an asynchronous copy completes is up to the hardware; the simulator completes it
as late as it can: when its phase would otherwise complete (every arrival made, the
tx-count covered by copies in flight), the copies land and the phase completes.  So
every access to a copy's destination that a wait does not order after the phase is
caught: before, the bytes are in flight (``async-race``); after, the access is not
ordered after the copy's completion (``async-race`` too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, lanes_of, operands
from tileir.testing.ptx_errors import INVALID, RACE
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import TYPES, unique
from tileir.testing.ptx_parse import Imm, Instruction, Mem, Operand, Reg
from tileir.testing.ptx_program import SINK

_MAX_COUNT = (1 << 20) - 1
_SEMANTICS = ("release", "acquire", "relaxed")
_SCOPES = ("cta", "cluster")
_SPACES = ("shared", "shared::cta", "shared::cluster")
_OPERATIONS = (
    "init",
    "inval",
    "arrive",
    "arrive_drop",
    "expect_tx",
    "complete_tx",
    "test_wait",
    "try_wait",
)


class Completion(Protocol):
    """Something in flight that lands when an mbarrier phase completes (``ptx_async``)."""

    @property
    def nbytes(self) -> int: ...

    @property
    def text(self) -> str: ...

    def land(self, m: Machine, agent: int) -> None: ...


class Deferred(Protocol):
    """An arrival that happens once some copies complete (``cp.async.mbarrier.arrive``,
    ``ptx_async``)."""

    def land_together(self, m: Machine, arrivals: Sequence[Deferred], agent: int) -> None:
        """Land the copies of ``arrivals`` (this one among them), all on one phase."""
        ...


@dataclass
class Mbarrier:
    """One valid mbarrier object."""

    address: int
    cta: int
    #: Its agent (``ptx_order``): the copies that complete on it.
    agent: int
    expected: int
    pending: int
    tx: int = 0
    #: Completed phases (the current phase's number).
    phase: int = 0
    #: The join of the current phase's releasing arrivals, and of completed phases.
    arrivals: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    completed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    #: Copies in flight whose completion lowers the tx-count (in issue order).
    transfers: list[Completion] = field(default_factory=list)
    #: Arrivals that happen when some copies complete (``cp.async.mbarrier.arrive``).
    deferred: list[Deferred] = field(default_factory=list)
    #: The thread that initialized it, and its time then.
    init_by: int = -1
    init_time: int = 0
    #: Threads whose use was found ordered after the init (``lookup``): clocks only
    #: grow, so the verdict holds from then on and is not worked out again.
    init_seen: set[int] = field(default_factory=set[int])


@dataclass
class _Mbarriers:
    objects: dict[int, Mbarrier] = field(default_factory=dict)


def _state(m: Machine) -> _Mbarriers:
    state = m.extensions.get(__name__)
    if isinstance(state, _Mbarriers):
        return state
    state = _Mbarriers()
    m.extensions[__name__] = state
    return state


def lookup(m: Machine, address: int, lane: int) -> Mbarrier:
    """The valid mbarrier at ``address``, used by thread ``lane`` (after its init)."""
    bar = _state(m).objects.get(address)
    if bar is None:
        raise m.fail(
            "no valid mbarrier object at this address (mbarrier.init it first)", lane, address
        )
    if bar.init_by != lane and m.check_races and lane not in bar.init_seen:
        ok = m.order.ordered(np.array([bar.init_by]), np.array([bar.init_time]), np.array([lane]))
        if ok[0]:
            bar.init_seen.add(lane)
        else:
            raise m.fail(
                f"the mbarrier is used before its mbarrier.init by "
                f"{m.threads.describe(bar.init_by)} is ordered before the use (a bar.sync "
                "after the init)",
                lane,
                address,
                kind=RACE,
            )
    return bar


def unfinished_transfers(m: Machine) -> list[tuple[Mbarrier, Completion]]:
    """Copies still in flight on an mbarrier whose phase never completed (at the end of
    the launch: copies no thread waited for)."""
    return [(bar, copy) for bar in _state(m).objects.values() for copy in bar.transfers]


def mbarrier_addresses(m: Machine, addr: Mem, act: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """The shared addresses of an mbarrier operand, checked: 8-byte aligned, in the
    executing thread's CTA's shared memory."""
    from tileir.testing.ptx_ops import _addresses  # pyright: ignore[reportPrivateUsage]

    addresses = _addresses(m, addr, act, lanes, "shared")
    cta = m.memory.shared_cta(addresses, 8)
    bad = (cta != m.threads.cta[lanes]) | (addresses % 8 != 0)
    if bad.any():
        k = int(np.argmax(bad))
        raise m.fail(
            "an mbarrier address that is not 8-byte aligned in the thread's CTA's shared "
            f"memory ({m.memory.describe(int(addresses[k]))})",
            int(lanes[k]),
            int(addresses[k]),
        )
    return addresses.astype(np.int64)


# ------------------------------------------------------------------- phases


def changed(m: Machine) -> None:
    """An mbarrier changed: threads parked on one retry (``ptx_sched``)."""
    m.unpark()


def settle(m: Machine, bar: Mbarrier) -> None:
    """Complete the current phase if it can complete: every arrival made (deferred
    ones happen now: their copies land), and the tx-count covered by transfers in
    flight (the earliest land until it is 0)."""
    while True:
        if bar.pending - len(bar.deferred) > 0:
            return
        # The deferred arrivals of a phase (one a thread) land together: one store of each
        # copy's rows, not one a thread (which cost seconds a phase, a race check each).
        count = min(len(bar.deferred), max(bar.pending, 0))
        if count:
            landing, bar.deferred = bar.deferred[:count], bar.deferred[count:]
            bar.pending -= count
            landing[0].land_together(m, landing, bar.agent)
        while bar.tx > 0 and bar.transfers:
            copy = bar.transfers.pop(0)
            if copy.nbytes > bar.tx:
                raise m.fail(
                    f"a copy completes {copy.nbytes} transaction bytes on an mbarrier phase "
                    f"that expects only {bar.tx} more: the tx-count passes zero mid-copy, so the "
                    "phase may complete before the copy's bytes have all landed (the expect_tx "
                    "count is too small)",
                    None,
                    bar.address,
                    kind=INVALID,
                )
            copy.land(m, bar.agent)
            bar.tx -= copy.nbytes
        if bar.pending != 0 or bar.tx != 0:
            return
        _complete_phase(m, bar)


def _complete_phase(m: Machine, bar: Mbarrier) -> None:
    order = m.order
    j = bar.agent - 2 * m.count
    completed = np.maximum(order.fit(bar.completed), order.fit(bar.arrivals))
    _, column = order.locate(np.array([bar.agent]))
    completed[int(column[0])] = order.object_time[j]
    order.object_time[j] += 1
    bar.completed = completed
    bar.arrivals = order.empty_row()
    bar.phase += 1
    bar.pending = bar.expected
    bar.tx = 0
    changed(m)


def arrive(
    m: Machine,
    bar: Mbarrier,
    lanes: np.ndarray,
    counts: np.ndarray,
    tx: np.ndarray | None,
    release: bool,
    no_complete: bool = False,
    drop: bool = False,
) -> np.ndarray:
    """``lanes`` arrive on ``bar`` (``counts`` each, after raising the tx-count by
    ``tx``); the phase number each arrived on."""
    phases = np.zeros(len(lanes), dtype=np.int64)
    clocks = m.order.clock[lanes].copy() if release else None
    if release:
        m.order.tick(lanes)
    for k in range(len(lanes)):
        if clocks is not None:  # each arrival releases into the phase it arrives on
            bar.arrivals = np.maximum(m.order.fit(bar.arrivals), clocks[k])
        if tx is not None:
            bar.tx += int(tx[k])
        count = int(counts[k])
        if count > bar.pending:
            raise m.fail(
                f"{count} arrival(s) on an mbarrier phase with {bar.pending} pending (its "
                f"expected count is {bar.expected}; the phase still waits for "
                f"{bar.tx} transaction bytes)",
                int(lanes[k]),
                bar.address,
                kind=INVALID,
            )
        bar.pending -= count
        if drop:
            bar.expected -= count
        phases[k] = bar.phase
        if no_complete and bar.pending == 0 and bar.tx == 0 and not bar.deferred:
            raise m.fail(
                "mbarrier.arrive.noComplete completes the phase", int(lanes[k]), bar.address
            )
        settle(m, bar)
    changed(m)
    return phases


# ----------------------------------------------------------------- decoders


def _space(ins: Instruction, mods: Mods) -> None:
    space = mods.one_of(_SPACES)
    if space is None:
        raise invalid(ins, "the simulator supports mbarriers in .shared only (name .shared::cta)")


def _u32(m: Machine, op: Operand, act: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    return m.read(op, TYPES["u32"], act)[lanes].astype(np.int64)


@decoder("mbarrier")
def decode_mbarrier(ins: Instruction) -> Exec:
    mods = Mods(ins)
    kind = ins.modifiers[0] if ins.modifiers else ""
    if kind not in _OPERATIONS:
        raise invalid(ins, f"mbarrier.{kind} is not an mbarrier operation")
    mods.flag(kind)
    semantic = mods.one_of(_SEMANTICS)
    mods.one_of(_SCOPES)
    _space(ins, mods)
    if mods.type("b") != TYPES["b64"]:
        raise invalid(ins, "mbarrier operations are .b64")
    if kind == "init":
        mods.done()
        return _decode_init(ins)
    if kind == "inval":
        mods.done()
        return _decode_inval(ins)
    if kind in ("arrive", "arrive_drop"):
        return _decode_arrive(ins, mods, semantic != "relaxed", kind == "arrive_drop")
    if kind in ("expect_tx", "complete_tx"):
        mods.done()
        return _decode_tx(ins, kind == "expect_tx")
    parity = mods.flag("parity")
    mods.done()
    return _decode_wait(ins, kind == "try_wait", parity, semantic != "relaxed")


def _address(ins: Instruction, op: Operand) -> Mem:
    if not isinstance(op, Mem):
        raise invalid(ins, f"an mbarrier address operand, got {op}")
    return op


def _decode_init(ins: Instruction) -> Exec:
    a, c = operands(ins, 2)
    addr = _address(ins, a)

    def run(m: Machine, act: np.ndarray) -> None:
        from tileir.testing.ptx_races import check_store

        lanes = lanes_of(act)
        addresses = mbarrier_addresses(m, addr, act, lanes)
        counts = _u32(m, c, act, lanes)
        state = _state(m)
        if m.memory.mbarrier_bytes is None:
            m.memory.mbarrier_bytes = np.zeros(len(m.memory.data), dtype=bool)
        for k, (address, count) in enumerate(zip(addresses.tolist(), counts.tolist(), strict=True)):
            lane = int(lanes[k])
            if not 1 <= count <= _MAX_COUNT:
                raise m.fail(f"mbarrier.init count {count} (1 .. 2^20-1)", lane, address)
            if address in state.objects:
                raise m.fail(
                    "mbarrier.init of a valid mbarrier object (mbarrier.inval it first)",
                    lane,
                    address,
                )
            here = np.array([address], dtype=np.int64)
            if m.check_races:
                check_store(m, here, 8, np.array([lane]), shared=True)
            m.memory.store(here, np.zeros((1, 8), dtype=np.uint8), np.array([lane]))
            bar = Mbarrier(
                address,
                int(m.threads.cta[lane]),
                m.order.new_object(int(m.threads.cta[lane])),
                count,
                count,
                init_by=lane,
                init_time=int(m.order.now(np.array([lane]))[0]),
            )
            bar.arrivals = m.order.empty_row()
            bar.completed = m.order.empty_row()
            state.objects[address] = bar
            m.memory.mbarrier_bytes[address - m.memory.BASE : address - m.memory.BASE + 8] = True
        changed(m)

    return run


def _decode_inval(ins: Instruction) -> Exec:
    (a,) = operands(ins, 1)
    addr = _address(ins, a)

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        addresses = mbarrier_addresses(m, addr, act, lanes)
        state = _state(m)
        for k, address in enumerate(addresses.tolist()):
            bar = lookup(m, address, int(lanes[k]))
            if bar.transfers or bar.deferred:
                raise m.fail(
                    "mbarrier.inval while asynchronous copies still complete on it",
                    int(lanes[k]),
                    address,
                )
            del state.objects[address]
            assert m.memory.mbarrier_bytes is not None
            m.memory.mbarrier_bytes[address - m.memory.BASE : address - m.memory.BASE + 8] = False

    return run


def _decode_arrive(ins: Instruction, mods: Mods, release: bool, drop: bool) -> Exec:
    expect_tx = mods.flag("expect_tx")
    no_complete = mods.flag("noComplete")
    mods.done()
    if not 2 <= len(ins.operands) <= 3:
        raise invalid(ins, "mbarrier.arrive takes a state, an address and an optional count")
    d, a = ins.operands[0], ins.operands[1]
    extra = ins.operands[2] if len(ins.operands) == 3 else None
    if expect_tx and extra is None:
        raise invalid(ins, "mbarrier.arrive.expect_tx needs a tx count")
    if no_complete and extra is None:
        raise invalid(ins, "mbarrier.arrive.noComplete needs a count")
    if not isinstance(d, Reg):
        raise invalid(ins, f"mbarrier.arrive state operand {d}")
    if isinstance(extra, Imm) and not expect_tx and not 1 <= int(extra.value) <= _MAX_COUNT:
        raise invalid(ins, f"arrival count {extra.value}")
    addr = _address(ins, a)
    sink = d.name == SINK

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        addresses = mbarrier_addresses(m, addr, act, lanes)
        if extra is None:
            counts = np.ones(len(lanes), dtype=np.int64)
            tx = None
        elif expect_tx:
            counts = np.ones(len(lanes), dtype=np.int64)
            tx = _u32(m, extra, act, lanes)
        else:
            counts = _u32(m, extra, act, lanes)
            tx = None
        states = np.zeros(m.count, dtype=np.uint64)
        for address in unique(addresses).tolist():
            at = addresses == address
            bar = lookup(m, address, int(lanes[at][0]))
            phases = arrive(
                m,
                bar,
                lanes[at],
                counts[at],
                None if tx is None else tx[at],
                release,
                no_complete,
                drop,
            )
            states[lanes[at]] = (np.uint64(address & 0xFFFFFFFF) << np.uint64(32)) | (
                phases.astype(np.uint64) & np.uint64(0xFFFFFFFF)
            )
        if not sink:
            m.write_bits(d, states, TYPES["b64"], act)

    return run


def _decode_tx(ins: Instruction, expect: bool) -> Exec:
    a, c = operands(ins, 2)
    addr = _address(ins, a)

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        addresses = mbarrier_addresses(m, addr, act, lanes)
        counts = _u32(m, c, act, lanes)
        for k, address in enumerate(addresses.tolist()):
            bar = lookup(m, address, int(lanes[k]))
            bar.tx += int(counts[k]) if expect else -int(counts[k])
            settle(m, bar)
        changed(m)

    return run


def _decode_wait(ins: Instruction, try_wait: bool, parity: bool, acquire: bool) -> Exec:
    if not 3 <= len(ins.operands) <= (4 if try_wait else 3):
        raise invalid(ins, f"{ins.opcode} operands")
    d, a, s = ins.operands[0], ins.operands[1], ins.operands[2]
    addr = _address(ins, a)
    what = "mbarrier.try_wait" if try_wait else "mbarrier.test_wait"

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        addresses = mbarrier_addresses(m, addr, act, lanes)
        if parity:
            wanted = _u32(m, s, act, lanes)
        else:
            wanted = m.read_bits(s, TYPES["b64"], act)[lanes].astype(np.uint64)
        done = np.zeros(len(lanes), dtype=bool)
        phase_of: dict[int, int] = {}
        for address in unique(addresses).tolist():
            at = addresses == address
            bar = lookup(m, address, int(lanes[at][0]))
            settle(m, bar)
            phase_of[address] = bar.phase
            if parity:
                done[at] = (bar.phase & 1) != (wanted[at] & 1)
            else:
                owner = (wanted[at] >> np.uint64(32)).astype(np.int64)
                if (owner != (address & 0xFFFFFFFF)).any():
                    k = int(np.flatnonzero(at)[int(np.argmax(owner != (address & 0xFFFFFFFF)))])
                    raise m.fail(
                        f"{what} with a state that another mbarrier's arrive returned",
                        int(lanes[k]),
                        address,
                    )
                arrived = (wanted[at] & np.uint64(0xFFFFFFFF)).astype(np.int64)
                since = (bar.phase - arrived) & 0xFFFFFFFF
                done[at] = (since >= 1) & (since < 1 << 31)
            if acquire:
                m.order.acquire(lanes[at][done[at]], bar.completed)
        result = np.zeros(m.count, dtype=bool)
        result[lanes] = done
        m.write_pred(d, result, act)
        waiting = lanes[~done]
        if len(waiting):
            address = int(addresses[~done][0])
            want = f"parity {int(wanted[~done][0]) & 1}" if parity else "its arrival's phase"
            m.park(
                waiting,
                f"spins on {what} for {want} of the mbarrier at 0x{address:x} (phase "
                f"{phase_of[address]}, {_describe(_state(m).objects[address])}) in "
                f"`{ins.text}`",
            )

    return run


def _describe(bar: Mbarrier) -> str:
    return (
        f"{bar.pending} of {bar.expected} arrivals pending, tx-count {bar.tx}, "
        f"{len(bar.transfers)} copies in flight"
    )
