"""Race checks of the PTX simulator's stores.

A store races with an earlier store of the same byte when that earlier store does
not happen before this one (``ptx_order``): no ``bar.sync`` or other barrier orders
them.  Stores of one instruction race when two threads write one byte.

Loads are not checked (tileir's CTAs do not communicate through memory), nor
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


def _race(m: Machine, address: int, lane: int, other: int, how: str):
    """The error for thread ``lane``'s access racing thread ``other``'s."""
    where = m.memory.describe(address)
    message = f"{m.threads.describe(other)} {how} this byte, unordered ({where})"
    return m.fail(message, lane, address, kind=RACE)
