"""Warp-control instructions of warp-specialized kernels in the PTX simulator:
``setmaxnreg`` and ``elect.sync``.

Written from the PTX ISA's *setmaxnreg* and *elect.sync* sections.

* ``setmaxnreg.{inc,dec}.sync.aligned.u32 N``: moves the warp's per-thread register
  budget to ``N`` (24 .. 256, a multiple of 8).  It has no effect on values here (the
  simulator has as many registers as the PTX declares), but the rules are checked: all
  threads of the warpgroup execute the same ``setmaxnreg`` together (the scheduler
  gathers the warpgroup first, ``ptx_sched``; a warpgroup with some threads exited or
  elsewhere is an error), all its warps synchronize (a barrier joining them) before the
  next ``setmaxnreg``, ``.inc`` does not lower the budget and ``.dec`` does not raise it.
* The registers come from a pool per CTA, as the ISA describes it: each warp starts
  with the entry's ``.maxnreg`` per thread (rounded up to the allocation granule of 8)
  and the pool starts empty; ``.dec`` puts ``(old - N) x 32`` registers of each warp in
  its CTA's pool, ``.inc`` takes ``(N - old) x 32`` for each warp from it, and while the
  pool holds fewer the warpgroup waits at the ``setmaxnreg.inc`` (blocked like at a
  barrier: the other warps go on) until a ``.dec`` of another warpgroup of the CTA
  fills the pool; when nothing will, the launch is a ``deadlock`` whose report says how
  many registers the warpgroup waits for and how many the pool holds.  (Found on an
  H200: two consumer warpgroups asking for 16,384 registers of a pool the producer had
  given 15,360 hung the GPU while the simulator, without the pool, passed the kernel.)
  Exiting warps give nothing back (the ISA names only ``.dec``).  Without ``.maxnreg``
  the count a warp starts with is ptxas's choice, unknown here (ptxas 13.0 then leaves
  ``setmaxnreg`` out of the SASS; HOPPER.md's warning C7508): a ``setmaxnreg`` is
  ``invalid``.  (Not modelled: when the largest ``.inc`` target is below ``.maxnreg``,
  ptxas 13.0 records that target as the kernel's register count, so warps start with
  it; tileir emits an ``.inc`` only above ``.maxnreg``, and here such an ``.inc`` is
  ``invalid``, lowering the budget.)
* ``bar.warp.sync membermask``: every thread of ``membermask`` executes it together,
  and their earlier accesses are ordered before their later ones (a barrier of those
  threads: ``ptx_order``);
* ``elect.sync d|p, membermask``: every thread of ``membermask`` executes it together;
  the leader is the lowest active lane of the mask (the ISA only says it is the same
  one every time); ``d`` (or the sink ``_``) gets its lane number, ``p`` is true in it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tileir.testing.ptx_decode import Exec, Mods, decoder, invalid, lanes_of, operands
from tileir.testing.ptx_errors import INVALID
from tileir.testing.ptx_machine import Machine
from tileir.testing.ptx_numeric import TYPES
from tileir.testing.ptx_parse import Imm, Instruction, Reg, Vec
from tileir.testing.ptx_program import SINK

#: Registers are allocated to a thread in multiples of this.
GRANULE = 8


@dataclass
class _Registers:
    #: Per warpgroup: its register budget after its last setmaxnreg, the line, and each
    #: thread's own time then (the warps must have synchronized since).
    budget: dict[int, int] = field(default_factory=dict)
    times: dict[int, tuple[np.ndarray, np.ndarray, str]] = field(default_factory=dict)
    #: Per CTA: the registers in its pool (given back by ``.dec``, not yet taken).
    pool: dict[int, int] = field(default_factory=dict)
    #: Per CTA: its warpgroups waiting at a ``setmaxnreg.inc`` for the pool, and their
    #: threads.
    blocked: dict[int, dict[int, np.ndarray]] = field(default_factory=dict)


def _state(m: Machine) -> _Registers:
    state = m.extensions.get(__name__)
    if isinstance(state, _Registers):
        return state
    state = _Registers()
    m.extensions[__name__] = state
    return state


@decoder("setmaxnreg")
def decode_setmaxnreg(ins: Instruction) -> Exec:
    mods = Mods(ins)
    action = mods.one_of(("inc", "dec"))
    if action is None:
        raise invalid(ins, "setmaxnreg needs .inc or .dec")
    if not (mods.flag("sync") and mods.flag("aligned")):
        raise invalid(ins, "setmaxnreg without .sync.aligned")
    if mods.type("u") != TYPES["u32"]:
        raise invalid(ins, "setmaxnreg is .u32")
    mods.done()
    (n,) = operands(ins, 1)
    if not isinstance(n, Imm) or not isinstance(n.value, int):
        raise invalid(ins, f"setmaxnreg takes a literal register count, got {n}")
    count = int(n.value)
    if not 24 <= count <= 256 or count % 8:
        raise invalid(ins, f"setmaxnreg register count {count} (24 .. 256, a multiple of 8)")
    text = ins.text

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        if m.maxnreg is None:
            raise m.fail(
                "setmaxnreg in a kernel without .maxnreg: the registers each warp starts "
                "with are ptxas's choice, unknown here (and ptxas leaves setmaxnreg out of "
                "the SASS then); give the entry a .maxnreg",
                int(lanes[0]),
                kind=INVALID,
            )
        launch = -(-m.maxnreg // GRANULE) * GRANULE
        threads = m.threads
        groups = threads.warpgroup[lanes]
        state = _state(m)
        for g in np.unique(groups).tolist():
            members = np.flatnonzero(threads.warpgroup == g)
            here = lanes[groups == g]
            if len(here) != len(members):
                missing = np.zeros(m.count, dtype=bool)
                missing[members] = True
                missing[here] = False
                raise m.fail(
                    f"`{text}` executed by {len(here)} of the {len(members)} threads of a "
                    "warpgroup (every warp of the warpgroup executes the same setmaxnreg)",
                    missing if missing.any() else int(here[0]),
                    kind=INVALID,
                )
            previous = state.times.get(g)
            if previous is not None:
                before, times, where = previous
                local = m.order.local[before]
                seen = m.order.clock[np.ix_(here, local)]
                if (seen <= times[None, :]).any():
                    raise m.fail(
                        f"setmaxnreg again without the warps of the warpgroup synchronizing "
                        f"since the last one (`{where}`)",
                        int(here[0]),
                        kind=INVALID,
                    )
            budget = state.budget.get(g, launch)
            if (action == "inc" and count < budget) or (action == "dec" and count > budget):
                raise m.fail(
                    f"setmaxnreg.{action} to {count} registers from {budget}",
                    int(here[0]),
                    kind=INVALID,
                )
            if not _take_from_pool(m, state, g, here, (count - budget) * 32, ins):
                continue
            state.budget[g] = count
            # The warpgroup's threads must meet again before the next one: remember
            # their times now, then tick, so only a later release satisfies the check.
            state.times[g] = (here, m.order.now(here).copy(), text)
            m.order.tick(here)

    return run


def _take_from_pool(
    m: Machine, state: _Registers, group: int, here: np.ndarray, per_warp: int, ins: Instruction
) -> bool:
    """Warpgroup ``group`` (its threads ``here``) moves ``per_warp`` registers of each
    of its warps from its CTA's pool (a negative count gives them back, and the
    warpgroups waiting for the pool try again).  False when the pool holds too few:
    the warpgroup waits at the instruction."""
    cta = int(m.threads.cta[here[0]])
    need = per_warp * len(np.unique(m.threads.warp[here]))
    pool = state.pool.get(cta, 0)
    waiting = state.blocked.setdefault(cta, {})
    if need > pool:
        m.pc[here] -= 1  # the scheduler moved them past it: they retry it
        m.block(
            here,
            f"waits in `{ins.text}` (PTX line {ins.line}) for {need} registers "
            f"of its CTA's pool, which holds {pool} (setmaxnreg.inc blocks until a "
            "setmaxnreg.dec of another warpgroup gives enough back)",
        )
        waiting[group] = here
        return False
    state.pool[cta] = pool - need
    waiting.pop(group, None)
    if need < 0 and waiting:
        for blocked in waiting.values():
            m.unblock(blocked)
        waiting.clear()
        m.progress += 1
    return True


def decode_warp_sync(ins: Instruction) -> Exec:
    """``bar.warp.sync membermask`` (``ptx_barriers``' decoder hands it here)."""
    mods = Mods(ins)
    if not (mods.flag("warp") and mods.flag("sync")):
        raise invalid(ins, "bar.warp needs .sync")
    mods.done()
    (mask,) = operands(ins, 1)

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        masks = m.read(mask, TYPES["u32"], act)[lanes].astype(np.int64)
        for here, _ in _members(m, lanes, masks, "bar.warp.sync"):
            m.order.acquire(here, m.order.release(here))

    return run


def _members(m: Machine, lanes: np.ndarray, masks: np.ndarray, what: str):
    """Per warp of ``lanes``: its executing threads and their lane ids, checked to be
    exactly the lanes of one member mask (``masks``, one per thread)."""
    laneid = m.threads.special("%laneid").astype(np.int64)
    for w in np.unique(m.threads.warp[lanes]).tolist():
        at = m.threads.warp[lanes] == w
        here = lanes[at]
        member = masks[at]
        if (member != member[0]).any():
            raise m.fail(f"{what}: the threads disagree on the member mask", int(here[0]))
        bits = int(member[0]) & 0xFFFFFFFF
        ids = laneid[here]
        if ((bits >> ids) & 1 == 0).any():
            raise m.fail(f"{what} executed by a lane outside its member mask", int(here[0]))
        if len(here) != bin(bits).count("1"):
            raise m.fail(
                f"{what}: not every lane of the member mask executes it together", int(here[0])
            )
        yield here, ids


@decoder("elect")
def decode_elect(ins: Instruction) -> Exec:
    mods = Mods(ins)
    if not mods.flag("sync"):
        raise invalid(ins, "elect without .sync")
    mods.done()
    d, mask = operands(ins, 2)
    if not isinstance(d, Vec) or len(d.items) != 2:
        raise invalid(ins, "elect.sync's destination is d|p")
    lane_dest, pred_dest = d.items
    if not isinstance(lane_dest, Reg) or not isinstance(pred_dest, Reg):
        raise invalid(ins, "elect.sync's destination is d|p")

    def run(m: Machine, act: np.ndarray) -> None:
        lanes = lanes_of(act)
        masks = m.read(mask, TYPES["u32"], act)[lanes].astype(np.int64)
        laneid = m.threads.special("%laneid").astype(np.int64)
        leader = np.zeros(m.count, dtype=bool)
        chosen = np.zeros(m.count, dtype=np.uint32)
        for here, ids in _members(m, lanes, masks, "elect.sync"):
            first = int(here[int(np.argmin(ids))])
            leader[first] = True
            chosen[here] = laneid[first]
        if lane_dest.name != SINK:
            m.write_bits(lane_dest, chosen, TYPES["b32"], act)
        m.write_pred(pred_dest, leader, act)

    return run
