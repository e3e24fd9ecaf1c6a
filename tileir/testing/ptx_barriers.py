"""Named barriers in the PTX simulator: ``bar`` / ``barrier`` ``.sync`` and ``.arrive``.

Written from the PTX ISA's *bar, barrier* section.  Each CTA has sixteen barriers
(``a`` = 0 .. 15, a literal or a register); ``b``, when given, is the number of
participating threads, a multiple of 32 (required for ``.arrive``); without it every
thread of the CTA participates.  A barrier counts *warps*: a warp arrives when all of
its non-exited threads have executed the instruction (``bar.sync`` and
``barrier.sync.aligned`` demand that they execute it together: a warp arriving with
only some of its running threads is an error, "divergent barrier"; plain
``barrier.sync`` lets them arrive separately).  ``.sync`` threads then wait until the
barrier completes; ``.arrive`` threads go on.  The barrier completes when ``b``
threads' warps have arrived, or, without ``b``, when every warp of the CTA with a
non-exited thread has (so threads that exit release a barrier they were holding up,
as the ISA's ``exit`` says), and is then ready for reuse.  A warp that arrives twice
before a barrier completes (``bar.arrive`` then another barrier instruction on it) is
an error, as the ISA warns.

Memory: every arrival releases the arriving threads' accesses into the barrier, and
the waiting threads acquire them all when it completes (``ptx_order``), so a barrier
orders exactly the accesses of the warps that take part in it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, lanes_of, unsupported
from tileir.testing.ptx_errors import INVALID, UNSUPPORTED
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import TYPES, unique
from tileir.testing.ptx_parse import Imm, Instruction, Operand, Reg

_BARRIERS = 16


@dataclass
class _Instance:
    """One use of a barrier of one CTA, until it completes."""

    #: Participating threads (``None``: all threads of the CTA).
    expected: int | None
    #: Per thread of the CTA: arrived / waiting in this instance.
    arrived: np.ndarray
    waiting: np.ndarray
    #: The join of the arrivals' clocks.
    clock: np.ndarray
    what: str


@dataclass
class _Barriers:
    instances: dict[tuple[int, int], _Instance]


def _state(m: Machine) -> _Barriers:
    state = m.extensions.get(__name__)
    if isinstance(state, _Barriers):
        return state
    state = _Barriers({})
    m.extensions[__name__] = state
    m.exit_hooks.append(_on_exit)
    return state


@decoder("bar", "barrier")
def decode_barrier(ins: Instruction) -> Exec:
    """``bar{.cta}.sync a{, b}``, ``bar{.cta}.arrive a, b``, ``barrier{.cta}.sync{.aligned}
    a{, b}``, ``barrier{.cta}.arrive{.aligned} a, b``; ``bar.warp.sync``: ``ptx_warpctl``."""
    if ins.opcode == "bar" and ins.modifiers[:1] == ("warp",):
        from tileir.testing.ptx_warpctl import decode_warp_sync

        return decode_warp_sync(ins)
    mods = Mods(ins)
    mods.flag("cta")
    kind = mods.one_of(("sync", "arrive", "red"))
    if kind == "red" or kind is None:
        raise unsupported(ins, f"{ins.opcode} without .sync or .arrive")
    aligned = mods.flag("aligned") or ins.opcode == "bar"
    mods.done()
    if not 1 <= len(ins.operands) <= 2:
        raise invalid(ins, f"{ins.opcode}.{kind} takes a barrier and an optional thread count")
    a = ins.operands[0]
    b = ins.operands[1] if len(ins.operands) == 2 else None
    if kind == "arrive" and b is None:
        raise invalid(ins, f"{ins.opcode}.arrive needs a thread count")
    for op in (a, b):
        if op is not None and not isinstance(op, Imm | Reg):
            raise invalid(ins, f"barrier operand {op}")
    if isinstance(a, Imm) and not 0 <= int(a.value) < _BARRIERS:
        raise invalid(ins, f"barrier {a.value} (there are 16: 0 .. 15)")
    if isinstance(b, Imm) and (int(b.value) <= 0 or int(b.value) % 32):
        raise invalid(ins, f"thread count {b.value} (a positive multiple of 32)")
    what = ins.text

    def run(m: Machine, act: np.ndarray) -> None:
        _arrive(m, act, a, b, kind == "sync", aligned, what)

    return run


def _operand(m: Machine, op: Operand, act: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    return m.read(op, TYPES["u32"], act)[lanes].astype(np.int64)


def _arrive(
    m: Machine,
    act: np.ndarray,
    a: Operand,
    b: Operand | None,
    sync: bool,
    aligned: bool,
    what: str,
) -> None:
    lanes = lanes_of(act)
    threads = m.threads
    if aligned:
        # Every non-exited thread of an arriving warp executes the instruction together.
        present = np.bincount(threads.warp[lanes], minlength=int(threads.warp[-1]) + 1)
        members = np.bincount(threads.warp[m.alive], minlength=len(present))
        partial = (present > 0) & (present < members)
        if partial.any():
            missing = m.alive & ~act & np.isin(threads.warp, np.flatnonzero(partial))
            raise m.fail(
                f"{what.split()[0]} reached by only some of the running threads of a warp "
                "(divergent barrier)",
                missing,
                kind=UNSUPPORTED,
            )
    ids = _operand(m, a, act, lanes)
    if (ids >= _BARRIERS).any():
        raise m.fail(f"barrier {int(ids.max())} (there are 16: 0 .. 15)", act)
    counts = _operand(m, b, act, lanes) if b is not None else None
    if counts is not None and ((counts <= 0) | (counts % 32 != 0)).any():
        raise m.fail("a barrier thread count that is not a positive multiple of 32", act)
    state = _state(m)
    cta = threads.cta[lanes]
    if sync and counts is None and _whole_ctas(m, state, act, cta, ids):
        return
    keys = unique(cta * _BARRIERS + ids)
    for key in keys.tolist():
        c, bar = divmod(key, _BARRIERS)
        sel = lanes[(cta == c) & (ids == bar)]
        expected = None
        if counts is not None:
            these = counts[(cta == c) & (ids == bar)]
            if (these != these[0]).any():
                raise m.fail(f"barrier {bar}: threads disagree on the thread count", sel[0])
            expected = int(these[0])
            if expected > threads.warps_per_cta * 32:
                raise m.fail(
                    f"barrier {bar}: a thread count of {expected} in a CTA of "
                    f"{threads.per_cta} threads",
                    int(sel[0]),
                )
        for w in unique(threads.warp[sel]).tolist():
            warp_lanes = sel[threads.warp[sel] == w]
            _arrive_warp(m, state, c, bar, expected, warp_lanes, sync, what)


def _whole_ctas(
    m: Machine, state: _Barriers, act: np.ndarray, cta: np.ndarray, ids: np.ndarray
) -> bool:
    """The common case, ``bar.sync`` reached by every running thread of each CTA at
    once with no use of the barrier pending: all meet at once.  Whether it applied."""
    ctas = unique(cta)
    if len(ids) and (ids != ids[0]).any():
        return False
    if any((int(c), int(ids[0])) in state.instances for c in ctas):
        return False
    everyone = m.alive & np.isin(m.threads.cta, ctas)
    if (everyone & ~act).any():
        return False
    m.order.join_ctas(ctas)
    return True


def _arrive_warp(
    m: Machine,
    state: _Barriers,
    cta: int,
    bar: int,
    expected: int | None,
    lanes: np.ndarray,
    sync: bool,
    what: str,
) -> None:
    per_cta = m.threads.per_cta
    key = (cta, bar)
    inst = state.instances.get(key)
    if inst is None:
        inst = _Instance(
            expected,
            np.zeros(per_cta, dtype=bool),
            np.zeros(per_cta, dtype=bool),
            m.order.empty_row(),
            what,
        )
        state.instances[key] = inst
    elif inst.expected != expected:
        raise m.fail(
            f"barrier {bar} is in use with a thread count of {inst.expected or 'all'}, "
            f"reached here with {expected or 'all'} (`{inst.what}`)",
            int(lanes[0]),
        )
    local = lanes - cta * per_cta
    if inst.arrived[local].any():
        raise m.fail(
            f"a warp arrives at barrier {bar} twice before it completes (after a "
            f"bar.arrive, `{inst.what}`)",
            int(lanes[0]),
            kind=INVALID,
        )
    inst.arrived[local] = True
    inst.clock = np.maximum(m.order.fit(inst.clock), m.order.release(lanes))
    if sync:
        inst.waiting[local] = True
        expect = f"{expected} threads" if expected is not None else "every thread of the CTA"
        m.block(lanes, f"waits at barrier {bar} ({expect}) in `{what}`")
    _complete(m, state, key)


def _complete(m: Machine, state: _Barriers, key: tuple[int, int]) -> None:
    """Release the barrier's waiting threads if it is complete."""
    inst = state.instances.get(key)
    if inst is None:
        return
    cta, _ = key
    per_cta = m.threads.per_cta
    alive = m.alive[cta * per_cta : (cta + 1) * per_cta]
    warp = m.threads.warp[cta * per_cta : (cta + 1) * per_cta]
    warp = warp - warp[0]
    # A warp has arrived when every one of its non-exited threads has.
    pending = np.bincount(warp, weights=alive & ~inst.arrived, minlength=int(warp[-1]) + 1)
    some = np.bincount(warp, weights=inst.arrived, minlength=len(pending))
    if inst.expected is None:
        complete = not (alive & ~inst.arrived).any()
    else:
        sizes = np.bincount(warp, minlength=len(pending))
        complete = int(sizes[(pending == 0) & (some > 0)].sum()) >= inst.expected
    if not complete:
        return
    del state.instances[key]
    m.progress += 1
    waiting = np.flatnonzero(inst.waiting) + cta * per_cta
    m.order.acquire(waiting, inst.clock)
    m.unblock(waiting)


def _on_exit(m: Machine, threads: np.ndarray) -> None:
    state = _state(m)
    ctas = set(unique(m.threads.cta[threads]).tolist())
    for key in [k for k in state.instances if k[0] in ctas]:
        _complete(m, state, key)
