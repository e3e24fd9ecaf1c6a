"""Happens-before in the PTX simulator: vector clocks over the agents of each CTA.

The simulator runs a kernel in one order (``ptx_sched``), but a race is a pair of
accesses that *no* synchronization orders, whatever order they ran in.  So every
memory access is checked against a happens-before relation built from the kernel's
synchronization, the way data-race detectors for threads do it (vector clocks, as in
FastTrack): each thread keeps a row of clocks, one per *agent* of its CTA, saying up
to which time of that agent it has synchronized; a byte remembers the agent that last
wrote it (and, in shared memory, last read it) and that agent's time then; an access
is ordered after it when the accessing thread's row has caught up with that time.

Agents (their ids are ints, so memory can store them per byte):

* thread ``t`` (id ``t``): its clock ticks at every release it performs (a barrier
  arrival, an ``mbarrier.arrive``, a ``fence.proxy.async``), so accesses before and
  after a release are told apart;
* the asynchronous copies of thread ``t`` that complete through its own waits
  (``cp.async.wait_group``, ``cp.async.bulk.wait_group``; id ``count + t``): their
  clock ticks when a wait lands them, and only that wait tells thread ``t``;
* an mbarrier object (id ``2 * count + j``): the copies that complete on it
  (``complete_tx``, ``cp.async.mbarrier.arrive``) are stamped with its clock, which
  ticks with its phases, and only a wait that observes the phase tells a thread;
* a warpgroup's ``wgmma`` operand reads (an object too, ``ptx_wgmma``): they end at
  the ``wgmma.wait_group`` that retires them, which stamps them with the object's
  clock and tells the warpgroup's threads (``observe_object``), so another thread's
  later write into those bytes must be ordered after that wait by a barrier or an
  mbarrier phase.

Synchronization moves rows: a release joins the thread's row into the barrier's or
mbarrier phase's clock; an acquire (a completed ``bar.sync``, a successful
``mbarrier.try_wait``) joins that clock into the waiting thread's row.  A thread of
another CTA is never ordered (the simulator has no clusters).

The async proxy has one more rule (the ISA's proxy fences): bytes a thread stored
with the generic proxy reach an async-proxy reader (``wgmma`` operands, the source
of a ``cp.async.bulk`` store) only if that thread executed ``fence.proxy.async``
after the store and the fence happens before the reader (``fenced``).
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from tileir.testing.ptx_numeric import unique_inverse


class HappensBefore:
    """The vector clocks of one launch (see the module docstring).

    ``clock[t, c]``: the time of agent column ``c`` of thread ``t``'s CTA that thread
    ``t`` has synchronized with.  Columns: ``0 .. P-1`` the CTA's threads, then (once
    a kernel uses thread-completed asynchronous copies) ``P`` columns for them, then
    one per mbarrier object, allocated as they are initialized.
    """

    def __init__(self, cta: np.ndarray, per_cta: int) -> None:
        self.count = len(cta)
        self.per_cta = per_cta
        self.cta = cta
        self.thread = np.arange(self.count, dtype=np.int64)
        self.local = self.thread - cta * per_cta
        self.clock = np.zeros((self.count, per_cta), dtype=np.int32)
        self.clock[self.thread, self.local] = 1
        #: Completions of each thread's own asynchronous copies.
        self.async_time = np.zeros(self.count, dtype=np.int32)
        self.async_base: int | None = None
        #: Per mbarrier object: its CTA, its column and its clock.
        self.object_cta = np.zeros(0, dtype=np.int64)
        self.object_column = np.zeros(0, dtype=np.int64)
        self.object_time = np.zeros(0, dtype=np.int32)
        #: Per thread: its own time at each ``fence.proxy.async`` (in order).
        self.fences: list[list[int]] = [[] for _ in range(self.count)]

    # -- columns -----------------------------------------------------------------------

    @property
    def width(self) -> int:
        return int(self.clock.shape[1])

    def _widen(self, columns: int) -> int:
        first = self.width
        extra = np.zeros((self.count, columns), dtype=np.int32)
        self.clock = np.concatenate([self.clock, extra], axis=1)
        return first

    def fit(self, row: np.ndarray) -> np.ndarray:
        """``row`` (a clock saved earlier) padded to the current width."""
        if len(row) == self.width:
            return row
        return np.concatenate([row, np.zeros(self.width - len(row), dtype=np.int32)])

    def empty_row(self) -> np.ndarray:
        return np.zeros(self.width, dtype=np.int32)

    def thread_async(self, threads: np.ndarray) -> np.ndarray:
        """The agent ids of these threads' own asynchronous copies."""
        if self.async_base is None:
            self.async_base = self._widen(self.per_cta)
        return threads.astype(np.int64) + self.count

    def new_object(self, cta: int) -> int:
        """A fresh agent for an mbarrier object of ``cta``; its id."""
        column = self._widen(1)
        j = len(self.object_cta)
        self.object_cta = np.append(self.object_cta, cta)
        self.object_column = np.append(self.object_column, column)
        self.object_time = np.append(self.object_time, np.int32(1))
        return 2 * self.count + j

    def locate(self, agents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(cta, column)`` of each agent id (ids must be valid, ``>= 0``)."""
        a = agents.astype(np.int64)
        if not len(a) or int(a.max()) < self.count:  # threads only: the common case
            return self.cta[a], self.local[a]
        kind = np.minimum(a // self.count, 2)
        t = np.where(kind < 2, a - kind * self.count, 0)
        cta = self.cta[t]
        column = self.local[t] + np.where(kind == 1, self.async_base or 0, 0)
        objects = kind == 2
        if objects.any():
            j = a[objects] - 2 * self.count
            cta[objects] = self.object_cta[j]
            column[objects] = self.object_column[j]
        return cta, column

    # -- times -------------------------------------------------------------------------

    def now(self, threads: np.ndarray) -> np.ndarray:
        """Each thread's own time."""
        return self.clock[threads, self.local[threads]]

    def stamp(self, agents: np.ndarray) -> np.ndarray:
        """The time an access by each agent is stamped with (0 for ``-1``)."""
        a = agents.astype(np.int64)
        out = np.zeros(len(a), dtype=np.int32)
        thread = (a >= 0) & (a < self.count)
        out[thread] = self.now(a[thread])
        own_async = (a >= self.count) & (a < 2 * self.count)
        out[own_async] = self.async_time[a[own_async] - self.count]
        obj = a >= 2 * self.count
        out[obj] = self.object_time[a[obj] - 2 * self.count]
        return out

    def ordered(self, agents: np.ndarray, times: np.ndarray, observers: np.ndarray) -> np.ndarray:
        """Whether each access (by ``agents`` at ``times``; ``-1``: none) happens before
        the thread ``observers`` does now."""
        valid = agents >= 0
        if valid.all():  # the common case: no selection, no scatter
            a, t, obs = agents, times, observers.astype(np.int64)
            at = None
        else:
            at = np.flatnonzero(valid)
            if not len(at):
                return np.ones(len(agents), dtype=bool)
            a, t, obs = agents[at], times[at], observers[at].astype(np.int64)
        cta, column = self.locate(a)
        same_cta = cta == self.cta[obs]
        known = self.clock[obs, np.where(same_cta, column, 0)]
        verdict = (a == obs) | (same_cta & (known >= t))
        if at is None:
            return verdict
        out = np.ones(len(agents), dtype=bool)
        out[at] = verdict
        return out

    def row_ordered(
        self, agents: np.ndarray, times: np.ndarray, row: np.ndarray, cta: int
    ) -> np.ndarray:
        """Like ``ordered`` for an observer whose clock is ``row`` (of ``cta``), such as
        a copy's issuing thread as it was when it issued the copy."""
        out = np.ones(len(agents), dtype=bool)
        at = np.flatnonzero(agents >= 0)
        if not len(at):
            return out
        row = self.fit(row)
        where, column = self.locate(agents[at])
        out[at] = (where == cta) & (row[column] >= times[at])
        return out

    # -- synchronization -----------------------------------------------------------------

    def tick(self, threads: np.ndarray) -> None:
        """The threads' own clocks advance (after a release)."""
        self.clock[threads, self.local[threads]] += 1

    def release(self, threads: np.ndarray) -> np.ndarray:
        """The join of the threads' clocks (of one CTA); then their clocks tick."""
        row = self.clock[threads].max(axis=0) if len(threads) else self.empty_row()
        self.tick(threads)
        return row

    def acquire(self, threads: np.ndarray, row: np.ndarray) -> None:
        """The threads learn everything ``row`` knows."""
        if len(threads):
            self.clock[threads] = np.maximum(self.clock[threads], self.fit(row))

    def join_ctas(self, ctas: np.ndarray) -> None:
        """Every thread of each CTA in ``ctas`` meets every other (a ``bar.sync`` they
        all reach): all learn the join, then each one's clock ticks."""
        shaped = self.clock.reshape(-1, self.per_cta, self.width)
        shaped[ctas] = shaped[ctas].max(axis=1, keepdims=True)
        threads = (ctas[:, None] * self.per_cta + np.arange(self.per_cta)).reshape(-1)
        self.tick(threads)

    def observe_own_async(self, threads: np.ndarray) -> np.ndarray:
        """A wait lands the threads' own copies: their async clocks tick and the threads
        learn it.  The new times (to stamp the landed bytes with)."""
        agents = self.thread_async(threads)
        self.async_time[threads] += 1
        assert self.async_base is not None
        self.clock[threads, self.async_base + self.local[threads]] = self.async_time[threads]
        return agents

    def observe_object(self, agent: int, threads: np.ndarray) -> int:
        """An event of object ``agent`` that ``threads`` observe as it happens (a
        ``wgmma.wait_group`` retiring the warpgroup's reads): the time accesses that end
        with it are stamped with; the threads learn it, then the object's clock ticks."""
        j = agent - 2 * self.count
        time = int(self.object_time[j])
        column = int(self.object_column[j])
        self.clock[threads, column] = np.maximum(self.clock[threads, column], time)
        self.object_time[j] += 1
        return time

    # -- the async proxy -------------------------------------------------------------------

    def proxy_fence(self, threads: np.ndarray) -> None:
        """``fence.proxy.async`` in these threads: record the time, then tick."""
        times = self.now(threads)
        for t, time in zip(threads.tolist(), times.tolist(), strict=True):
            self.fences[t].append(time)
        self.tick(threads)

    def fenced(self, writers: np.ndarray, times: np.ndarray, observer: int) -> np.ndarray:
        """For generic stores by thread ``writers`` at ``times``: whether the writer
        executed ``fence.proxy.async`` after the store and that fence happens before
        thread ``observer`` now (the writer itself: the fence alone suffices)."""
        out = np.zeros(len(writers), dtype=bool)
        pairs, inverse = unique_inverse(writers.astype(np.int64) << 32 | times.astype(np.int64))
        ok = np.zeros(len(pairs), dtype=bool)
        for i, pair in enumerate(pairs.tolist()):
            w, time = pair >> 32, pair & 0xFFFFFFFF
            fences = self.fences[w]
            k = bisect_left(fences, time)
            if k == len(fences):
                continue
            if w == observer:
                ok[i] = True
            elif self.cta[w] == self.cta[observer]:
                ok[i] = bool(self.clock[observer, self.local[w]] > fences[k])
        out[:] = ok[inverse.reshape(-1)]
        return out
