"""Race checks of the PTX simulator's memory accesses.

A store races with an earlier store (any memory) or an earlier read (shared memory)
of the same byte, and a shared-memory load with an earlier store, when that earlier
access does not happen before this one (``ptx_order``): no ``bar.sync``, named
or other barrier orders them.  Stores of one instruction race when two threads
write one byte.

Global loads are not checked (tileir's CTAs do not communicate through memory), nor
are atomics (their writes record no writer).
"""

from __future__ import annotations

import numpy as np

from tileir.testing.ptx_errors import RACE
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
    writers = memory.writer[flat]
    if (writers >= 0).any():
        ok = m.order.ordered(writers, memory.wtime[flat], who)
        if not ok.all():
            k = int(np.argmin(ok))
            raise _race(m, int(flat[k]) + memory.BASE, int(who[k]), int(writers[k]), "wrote")
    memory.reader[flat] = who
    memory.rtime[flat] = m.order.now(who)


def _race(m: Machine, address: int, lane: int, other: int, how: str):
    """The error for thread ``lane``'s access racing thread ``other``'s."""
    where = m.memory.describe(address)
    message = f"{m.threads.describe(other)} {how} this byte, unordered ({where})"
    return m.fail(message, lane, address, kind=RACE)
