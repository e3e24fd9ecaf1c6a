"""Scheduling in the PTX simulator: which threads run the next instruction.

Every thread has a program counter; a *step* runs one instruction for a group of
threads at it (as one numpy operation), and threads that wait are left out:

* blocked at a ``bar.sync`` / ``barrier.sync`` that is not complete (``ptx_barriers``),
  or at a warpgroup-collective instruction (``wgmma``, ``setmaxnreg``) until every
  running thread of the warpgroup is there too (a *rendezvous*, so that warps that
  run apart meet again at the instruction they must execute together), and at a
  ``setmaxnreg.inc`` until its CTA's register pool holds what it asks for
  (``ptx_warpctl``);
* parked after an ``mbarrier.try_wait`` / ``test_wait`` that found its phase
  incomplete: the hardware's wait returns false after a while and the program loops
  back to wait again; the simulator lets the thread sleep until some mbarrier changes
  (an arrival, a transaction, a completed phase), which is when the retry could give
  another answer, and meanwhile runs the other warps (``ptx_mbarrier``).  When nothing
  else can run, parked threads go on (a program may do other work after a failed
  wait).

When no thread can run and some have not exited (parked threads woken that way park
again where they did with nothing changed since: they spin), every remaining warp waits for another:
a ``SimulationError`` of kind ``deadlock`` lists what each waits for.

The order (``warp_order``):

* ``"lockstep"`` (the default): each step takes the lowest program counter among the
  threads that can run, in all CTAs, and runs it for all of them.  Threads that branch
  apart run their paths in program order and meet again where the paths join, and
  warps that run the same code stay together: the fastest order for the simulator,
  exact and deterministic.
* ``"round-robin"``: one warp at a time, in warp order; a warp runs (its diverged
  paths as above) until it waits or exits, then the next warp that can run does.
* ``"random"``: one warp at a time, chosen by a seeded random generator whenever the
  running warp waits or exits, and also after a random number of instructions (about
  four on average), so each seed gives another interleaving of the warps.

All orders are legal executions of the kernel, so results must not depend on the
order, and the race checks (``ptx_order``) do not depend on it either: they look at
what orders two accesses, not at which ran first.  One warp at a time is slower (a
step costs about the same for one warp as for all of them).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import numpy as np

from tileir.testing.ptx_errors import DEADLOCK, SimulationError
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import unique

#: One instruction, ready to run for the threads of ``m.group``.
Step = Callable[[Machine], None]

WARP_ORDERS = ("lockstep", "round-robin", "random")

#: Instructions all threads of a warpgroup execute together.
WARPGROUP_OPCODES = frozenset({"wgmma", "setmaxnreg"})

#: In ``random`` order, the chance that the running warp yields after a step.
_YIELD = 0.25


def run(
    m: Machine,
    steps: Sequence[Step],
    max_steps: int,
    warp_order: str = "lockstep",
    seed: int | None = None,
    collective: Collection[int] = (),
) -> None:
    """Execute until every thread has exited or run past the last instruction.

    ``collective`` holds the program counters of warpgroup-collective instructions.
    """
    if warp_order not in WARP_ORDERS:
        raise ValueError(f"warp_order must be one of {WARP_ORDERS}, got {warp_order!r}")
    end = len(steps)
    collective = frozenset(collective)
    if warp_order == "lockstep":
        _lockstep(m, steps, max_steps, end, collective)
    else:
        rng = np.random.default_rng(seed) if warp_order == "random" else None
        _warp_at_a_time(m, steps, max_steps, end, collective, rng)


def _runnable(m: Machine, end: int) -> np.ndarray | None:
    """The threads that can run now; ``None`` when all have exited."""
    finished = m.alive & (m.pc >= end)
    if finished.any():
        m.exited(finished)
    m.live = m.alive
    if not m.alive.any():
        return None
    runnable = m.alive & ~m.waiting
    if not runnable.any():
        # Parked threads go on once nothing else can run (a failed mbarrier wait need
        # not be a spin loop); if they park again at the same instructions with nothing
        # changed, they spin.
        parked = np.flatnonzero(m.parked)
        key = (m.progress, parked.tobytes(), m.pc[parked].tobytes())
        if len(parked) and m.woken_at != key:
            m.woken_at = key
            m.waiting &= ~m.parked
            m.parked[:] = False
            return m.alive & ~m.waiting
        raise _deadlock(m)
    return runnable


def _lockstep(
    m: Machine, steps: Sequence[Step], max_steps: int, end: int, collective: frozenset[int]
) -> None:
    for _ in range(max_steps):
        runnable = _runnable(m, end)
        if runnable is None:
            return
        current = int(m.pc[runnable].min())
        group = runnable & (m.pc == current)
        _execute(m, steps, current, group, collective)
    raise SimulationError(f"more than {max_steps} instructions executed: an endless loop?")


def _warp_at_a_time(
    m: Machine,
    steps: Sequence[Step],
    max_steps: int,
    end: int,
    collective: frozenset[int],
    rng: np.random.Generator | None,
) -> None:
    threads = m.threads
    warps = len(threads.warp_start)
    warp = -1
    for _ in range(max_steps):
        runnable = _runnable(m, end)
        if runnable is None:
            return
        start, stop = (threads.warp_start[warp], threads.warp_end[warp]) if warp >= 0 else (0, 0)
        keep = warp >= 0 and runnable[start:stop].any()
        if keep and rng is not None and rng.random() < _YIELD:
            keep = False
        if not keep:
            ready = np.flatnonzero(np.bincount(threads.warp[runnable], minlength=warps))
            if rng is not None:
                warp = int(rng.choice(ready))
            else:
                later = ready[ready > warp]
                warp = int(later[0] if len(later) else ready[0])
            start, stop = threads.warp_start[warp], threads.warp_end[warp]
        mine = runnable[start:stop]
        pcs = m.pc[start:stop]
        current = int(pcs[mine].min())
        group = np.zeros(m.count, dtype=bool)
        group[start:stop] = mine & (pcs == current)
        _execute(m, steps, current, group, collective)
    raise SimulationError(f"more than {max_steps} instructions executed: an endless loop?")


def _execute(
    m: Machine, steps: Sequence[Step], current: int, group: np.ndarray, collective: frozenset[int]
) -> None:
    if current in collective:
        group = _rendezvous(m, group, current)
        if not group.any():
            return
    m.group = group
    m.pc[group] = current + 1
    steps[current](m)


def _rendezvous(m: Machine, group: np.ndarray, current: int) -> np.ndarray:
    """The threads of ``group`` whose whole warpgroup (its running threads) is at the
    collective instruction ``current``, with those that waited there for them; the
    others wait."""
    here = group | (m.rendezvous & (m.pc == current))
    wg = m.threads.warpgroup
    touched = np.isin(wg, unique(wg[here]))
    missing = touched & m.alive & ~here
    ready = here & ~np.isin(wg, unique(wg[missing])) if missing.any() else here
    waiting = here & ~ready
    if waiting.any():
        m.rendezvous |= waiting
        m.block(np.flatnonzero(waiting), f"waits for its warpgroup at line {_line(m, current)}")
    if ready.any():
        m.rendezvous &= ~ready
        m.unblock(np.flatnonzero(ready))
    return ready


def _line(m: Machine, pc: int) -> str:
    return str(m.lines[pc]) if 0 <= pc < len(m.lines) else "?"


def release_rendezvous(m: Machine, threads: np.ndarray) -> None:
    """Threads exited: warps waiting for them at a rendezvous look again."""
    del threads
    if m.rendezvous.any():
        m.waiting &= ~m.rendezvous
        m.rendezvous[:] = False


def _deadlock(m: Machine) -> SimulationError:
    waiting = unique(m.threads.warp[m.alive & m.waiting]).tolist()
    # Consecutive warps of a CTA that wait for the same thing are one entry (a whole
    # warpgroup at a setmaxnreg, an agent's warps at its mbarrier), so that up to 8
    # different waits show.
    runs: list[list[int]] = []
    for w in waiting:
        last = runs[-1][-1] if runs else -2
        if (
            w == last + 1
            and m.threads.cta[m.threads.warp_start[w]] == m.threads.cta[m.threads.warp_start[last]]
            and m.wait_notes.get(w) == m.wait_notes.get(last)
        ):
            runs[-1].append(w)
        else:
            runs.append([w])
    shown = []
    for warps in runs[:8]:
        lane = m.threads.describe(int(m.threads.warp_start[warps[0]]))
        who = f"warp of {lane}" if len(warps) == 1 else f"{len(warps)} warps from {lane}"
        shown.append(f"{who}: {m.wait_notes.get(warps[0], 'waits')}")
    left = sum(len(r) for r in runs[8:])
    more = f"; and {left} more warps" if left else ""
    return SimulationError(
        "every remaining thread waits, and nothing they wait for can happen: "
        + "; ".join(shown)
        + more,
        kind=DEADLOCK,
    )
