"""Race checks of the PTX simulator's memory accesses.

A store races with an earlier store (any memory) or an earlier read (shared memory)
of the same byte, and a shared-memory load with an earlier store, when that earlier
access does not happen before this one (``ptx_order``): no ``bar.sync``, named
barrier, mbarrier phase or asynchronous-copy wait orders them.  Stores of one
instruction race when two threads write one byte.  An access to bytes that an
asynchronous copy has not yet written (``ptx_async``: the copy is in flight until the
wait that completes it), or a store to bytes one still reads, is an ``async-race``;
so is an access unordered with bytes an asynchronous copy wrote.  Loads and stores
must not touch a valid mbarrier object (``ptx_mbarrier``).

Global loads are not checked (tileir's CTAs do not communicate through memory), nor
are atomics (their writes record no writer).
"""

from __future__ import annotations

import numpy as np

from tileir.testing.ptx_errors import ASYNC_RACE, INVALID, RACE
from tileir.testing.ptx_machine import Machine


def check_store(
    m: Machine, addresses: np.ndarray, nbytes: int, lanes: np.ndarray, shared: bool
) -> None:
    """Fail if the store of ``nbytes`` at ``addresses`` by threads ``lanes`` races."""
    memory = m.memory
    offsets = memory.offsets(addresses, nbytes)
    flat = offsets.reshape(-1)
    who = np.repeat(lanes, nbytes)
    if len(lanes) > 1:
        order = np.argsort(flat, kind="stable")
        same = (flat[order][1:] == flat[order][:-1]) & (who[order][1:] != who[order][:-1])
        if same.any():
            k = int(np.argmax(same))
            address = int(flat[order][k]) + memory.BASE
            raise _race(m, address, int(who[order][k + 1]), int(who[order][k]), "also writes")
    _check_untouchable(m, flat, who, "store to")
    if shared and memory.async_reads is not None:
        reading = memory.async_reads[flat] > 0
        if reading.any():
            k = int(np.argmax(reading))
            raise m.fail(
                "a store to shared bytes that an asynchronous copy is still reading (wait for "
                "it with cp.async.bulk.wait_group.read first)",
                int(who[k]),
                int(flat[k]) + memory.BASE,
                kind=ASYNC_RACE,
            )
    order_ok = m.order.ordered(memory.writer[flat], memory.wtime[flat], who)
    if not order_ok.all():
        k = int(np.argmin(order_ok))
        raise _race(
            m, int(flat[k]) + memory.BASE, int(who[k]), int(memory.writer[flat[k]]), "also writes"
        )
    if shared:
        read_ok = m.order.ordered(memory.reader[flat], memory.rtime[flat], who)
        if not read_ok.all():
            k = int(np.argmin(read_ok))
            raise _race(
                m, int(flat[k]) + memory.BASE, int(who[k]), int(memory.reader[flat[k]]), "reads"
            )


def check_load(m: Machine, addresses: np.ndarray, nbytes: int, lanes: np.ndarray) -> None:
    """Fail if the shared-memory load of ``nbytes`` at ``addresses`` by threads
    ``lanes`` reads bytes written by an unordered store; record the readers."""
    memory = m.memory
    offsets = memory.offsets(addresses, nbytes)
    flat = offsets.reshape(-1)
    who = np.repeat(lanes, nbytes)
    _check_untouchable(m, flat, who, "load from")
    writers = memory.writer[flat]
    if (writers >= 0).any():
        ok = m.order.ordered(writers, memory.wtime[flat], who)
        if not ok.all():
            k = int(np.argmin(ok))
            raise _race(m, int(flat[k]) + memory.BASE, int(who[k]), int(writers[k]), "wrote")
    memory.reader[flat] = who
    memory.rtime[flat] = m.order.now(who)


def _check_untouchable(m: Machine, flat: np.ndarray, who: np.ndarray, what: str) -> None:
    memory = m.memory
    if memory.inflight is not None:
        pending = memory.inflight[flat] >= 0
        if pending.any():
            k = int(np.argmax(pending))
            raise m.fail(
                f"a {what.split()[0]} of shared bytes that an asynchronous copy has not written "
                "yet: the copy completes only at the wait that observes it (cp.async.wait_group, "
                "or the mbarrier phase its complete_tx belongs to)",
                int(who[k]),
                int(flat[k]) + memory.BASE,
                kind=ASYNC_RACE,
            )
    if memory.mbarrier_bytes is not None:
        hit = memory.mbarrier_bytes[flat]
        if hit.any():
            k = int(np.argmax(hit))
            raise m.fail(
                f"a {what} the bytes of a valid mbarrier object (only mbarrier instructions may "
                "access it until mbarrier.inval)",
                int(who[k]),
                int(flat[k]) + memory.BASE,
                kind=INVALID,
            )


def check_async_read(m: Machine, addresses: np.ndarray, observer: int, what: str) -> None:
    """An async-proxy read (``wgmma`` operands, a bulk copy's shared source) of the
    bytes at ``addresses`` on behalf of thread ``observer``: no copy may still be
    writing them; bytes a thread stored need its ``fence.proxy.async`` after the store,
    ordered before this read; bytes a copy wrote need its completion ordered before."""
    memory = m.memory
    flat = addresses.astype(np.int64) - memory.BASE
    who = np.full(len(flat), observer)
    _check_untouchable(m, flat, who, "read of")
    writer = memory.writer[flat]
    generic = (writer >= 0) & (writer < m.count)
    if generic.any():
        fenced = m.order.fenced(writer[generic], memory.wtime[flat][generic], observer)
        if not fenced.all():
            k = int(np.flatnonzero(generic)[int(np.argmin(fenced))])
            raise m.fail(
                f"{what} reads bytes that {m.threads.describe(int(writer[k]))} stored with a "
                "generic-proxy store not yet made visible to the async proxy: the writer needs "
                "fence.proxy.async after its stores, then a synchronization (bar.sync, an "
                f"mbarrier) before the async-proxy read ({memory.describe(int(addresses[k]))})",
                observer,
                int(addresses[k]),
                kind=ASYNC_RACE,
            )
    copied = writer >= m.count
    if copied.any():
        ok = m.order.ordered(writer[copied], memory.wtime[flat][copied], who[copied])
        if not ok.all():
            k = int(np.flatnonzero(copied)[int(np.argmin(ok))])
            raise _race(m, int(addresses[k]), observer, int(writer[k]), "wrote")


def describe_agent(m: Machine, agent: int) -> str:
    """Who agent ``agent`` (``ptx_order``) is, for messages."""
    count = m.count
    if agent < count:
        return m.threads.describe(agent)
    if agent < 2 * count:
        return f"an asynchronous copy of {m.threads.describe(agent - count)}"
    return "an asynchronous copy completing on an mbarrier"


def _race(m: Machine, address: int, lane: int, other: int, how: str):
    """The error for thread ``lane``'s access racing ``other``'s (an agent id)."""
    asynchronous = other >= m.count
    where = m.memory.describe(address)
    if asynchronous:
        message = (
            f"{describe_agent(m, other)} wrote this byte, and no wait this thread observed "
            f"orders it before this access ({where})"
        )
    else:
        message = f"{m.threads.describe(other)} {how} this byte, unordered ({where})"
    return m.fail(message, lane, address, kind=ASYNC_RACE if asynchronous else RACE)
